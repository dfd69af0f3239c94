/**
 * `dpgw login` for a profile that lacks settings (issue #48 §2): at a real terminal (a pseudo-terminal, keys typed as
 * a person types them) it asks for them, checks each answer as its flag would be, reads the realm's discovery document
 * for its grants, saves the profile and signs in; without a terminal, one error names every missing setting and no
 * request is sent. The built binary against the sandbox's identity provider and gateway.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atTerminal, CTRL_C, DOWN, ENTER, screen } from '../helpers/at-terminal.js';
import { closedPort, startRecordingServer } from '../helpers/recording-server.js';
import { cleanEnv, spawnDpgw } from '../helpers/run-dpgw.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest();

/** Ctrl-U: clears what the answer line holds (a suggestion, or a refused answer), as in a shell. */
const CLEAR_LINE = '\\x15';

describe('dpgw login sets up a profile that lacks settings', () => {
  it('asks at a terminal (a wrong URL and an unknown realm asked again), saves the profile, signs in, and the next command needs no flag', async () => {
    const sandbox = await sandboxes.start();
    const admin = sandbox.users.find((u) => u.username === 'admin')!;
    const env = cleanEnv();
    const secretFile = join(env.DPGW_CONFIG_DIR!, 'client-secret');
    writeFileSync(secretFile, `${sandbox.clientSecret}\n`, { mode: 0o600 });
    const result = await atTerminal(['login'], {
      env,
      timeoutSeconds: 60,
      steps: [
        { when: 'Gateway URL:', keys: `${sandbox.gatewayUrl}${ENTER}` },
        { when: 'Identity provider URL', keys: `not-a-url${ENTER}` },
        { when: '"not-a-url" is not a URL', keys: `${CLEAR_LINE}${sandbox.authUrl}${ENTER}` },
        // The realm is offered (Enter takes it); another name is typed over it, and the provider has no such realm.
        // Typing replaces a suggestion (Tab would put it on the line to edit): no Ctrl-U needed.
        { when: 'Realm:', keys: `nowhere${ENTER}` },
        { when: 'Enter them again?', keys: ENTER },
        { when: 'Identity provider URL', keys: ENTER },
        { when: 'Realm:', keys: `${CLEAR_LINE}${sandbox.realm}${ENTER}` },
        { when: 'Client id:', keys: `${sandbox.clientId}${ENTER}` },
        { when: 'How do you sign in?', keys: ENTER },
        // Where the secret is read from, never the secret: a file, which must exist.
        { when: 'Where does dpgw read the secret of client dpgw-backend from?', keys: `${DOWN}${DOWN}${ENTER}` },
        { when: 'File path:', keys: `${secretFile}.missing${ENTER}` },
        { when: 'there is no file at', keys: `${CLEAR_LINE}${secretFile}${ENTER}` },
        { when: 'Username:', keys: `admin${ENTER}` },
        { when: 'Password for admin:', keys: `${admin.password}${ENTER}` },
      ],
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    // The unknown realm said why, and was asked again.
    expect(text).toContain(`has no realm nowhere`);
    // The grants of the realm's discovery document are the choices.
    expect(text).toContain('password: a user name and password');
    expect(text).toContain("client-credentials: the client's service account");
    expect(text).toContain('device: approve in a browser');
    expect(text).toMatch(/✓ signed in to realm data-platform as admin/);
    expect(text).toContain(
      `same without questions: dpgw login --gateway ${sandbox.gatewayUrl} --auth-url ${sandbox.authUrl} --realm ${sandbox.realm} --client-id ${sandbox.clientId} --grant password --client-secret file:${secretFile} --username admin`,
    );
    // The discovery document was read for the realm that does not exist, then for the one that does.
    const discovery = sandbox.requestLog.of('identity').filter((entry) => entry.path.endsWith('/.well-known/openid-configuration'));
    expect(discovery.map((entry) => entry.path)).toContain('/auth/realms/nowhere/.well-known/openid-configuration');

    const configPath = join(env.DPGW_CONFIG_DIR!, 'config.yaml');
    expect(statSync(configPath).mode & 0o777).toBe(0o600);
    const config = readFileSync(configPath, 'utf8');
    expect(config).toContain(`gateway: ${sandbox.gatewayUrl}`);
    expect(config).toContain(`authUrl: ${sandbox.authUrl}`);
    expect(config).toContain(`realm: ${sandbox.realm}`);
    expect(config).toContain(`clientId: ${sandbox.clientId}`);
    expect(config).toContain('grant: password');
    expect(config).toContain(`clientSecret: file:${secretFile}`);
    expect(config).toContain('username: admin');
    // No secret in plain text: the client's only as its reference, the password never.
    expect(config).not.toContain(sandbox.clientSecret);
    expect(config).not.toContain(admin.password);
    expect(text).not.toContain(admin.password);
    expect(text).not.toContain(sandbox.clientSecret);

    const next = await spawnDpgw(['catalog', 'sources'], { env });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('mock-data-library');
  });

  it('the device grant with a public client saves no secret; settings from the environment are neither asked for nor copied', async () => {
    const sandbox = await sandboxes.start();
    const env = cleanEnv({ DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm });
    // The device grant, chosen with the arrow keys; no secret for the public client; the login then waits for the browser (ended by the timeout).
    const result = await atTerminal(['login', '--no-color'], {
      env,
      timeoutSeconds: 20,
      steps: [
        { when: 'Client id:', keys: `dpgw-cli${ENTER}` },
        { when: 'How do you sign in?', keys: `${DOWN}${DOWN}${ENTER}` },
        { when: 'have a secret', keys: ENTER },
        { when: 'to sign in, open', keys: CTRL_C },
      ],
    });
    const text = screen(result.stdout);
    expect(text).toContain('saved clientId, grant to profile "default"');
    const config = readFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), 'utf8');
    expect(config).toContain('grant: device');
    expect(config).not.toContain('clientSecret');
    // Settings from the environment are not asked for, nor copied into the profile.
    expect(text).not.toContain('Gateway URL:');
    expect(config).not.toContain('gateway:');
  });

  it('dpgw --profile NAME login at a terminal sets up a profile config.yaml does not have yet, says it is new and which exist, and saves it there', async () => {
    const sandbox = await sandboxes.start();
    const env = cleanEnv({ DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm });
    writeFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), `profiles:\n  dev:\n    gateway: ${sandbox.gatewayUrl}\n`, { mode: 0o600 });
    const result = await atTerminal(['--profile', 'staging', 'login', '--no-color'], {
      env,
      timeoutSeconds: 20,
      steps: [
        { when: 'Gateway URL:', keys: `${sandbox.gatewayUrl}${ENTER}` },
        { when: 'Client id:', keys: `dpgw-cli${ENTER}` },
        { when: 'How do you sign in?', keys: `${DOWN}${DOWN}${ENTER}` },
        { when: 'have a secret', keys: ENTER },
        { when: 'to sign in, open', keys: CTRL_C },
      ],
    });
    const text = screen(result.stdout);
    expect(text).toContain('profile "staging" is new (config.yaml has "dev")');
    const config = readFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), 'utf8');
    expect(config).toMatch(/ {2}staging:\n {4}gateway: http/);
    expect(config).toContain('grant: device');
    // Any other command still refuses a profile config.yaml lacks; so does a login with no one to ask.
    const other = await spawnDpgw(['--profile', 'stagin', 'catalog', 'sources'], { env });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('unknown profile "stagin"');
    const piped = await spawnDpgw(['--profile', 'prod', 'login'], { env });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('unknown profile "prod"');
    // At a terminal with nothing to set up (the variables name it all), a misspelt profile is refused, not made.
    const given = { ...env, DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_CLIENT_ID: 'dpgw-cli', DPGW_GRANT: 'device' };
    const misspelt = await atTerminal(['--profile', 'stagin', 'login'], { env: given, when: 'dpgw', keys: '' });
    expect(misspelt.code).toBe(2);
    expect(screen(misspelt.stdout)).toContain('unknown profile "stagin"');
  });

  it("shows the grants the realm's discovery document does not list, but offers only those it lists", async () => {
    const discoveryPath = '/auth/realms/small/.well-known/openid-configuration';
    const provider = await startRecordingServer({
      [`GET ${discoveryPath}`]: () => ({ body: { issuer: 'x', grant_types_supported: ['password', 'refresh_token'] } }),
    });
    try {
      const env = cleanEnv({ DPGW_GATEWAY: 'http://127.0.0.1:9', DPGW_AUTH_URL: provider.url, DPGW_REALM: 'small' });
      const result = await atTerminal(['login'], {
        env,
        steps: [
          { when: 'Client id:', keys: `dpgw-backend${ENTER}` },
          { when: 'How do you sign in?', keys: CTRL_C },
        ],
      });
      const text = screen(result.stdout);
      expect(text).toMatch(/client-credentials: .*realm small does not offer it/);
      expect(text).toMatch(/device: .*realm small does not offer it/);
      expect(text).not.toMatch(/password: a user name and password.*does not offer it/);
      expect(provider.requests.map((request) => `${request.method} ${request.path}`)).toEqual([`GET ${discoveryPath}`]);
      // Interrupted at a question: nothing saved.
      expect(result.code).toBe(130);
      expect(existsSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'))).toBe(false);
    } finally {
      await provider.close();
    }
  });

  it('an identity provider that cannot be reached is said, and its URL may be kept', async () => {
    const env = cleanEnv({ DPGW_GATEWAY: 'http://127.0.0.1:9' });
    const unreachable = `http://127.0.0.1:${await closedPort()}`;
    const result = await atTerminal(['login'], {
      env,
      steps: [
        { when: 'Identity provider URL', keys: `${unreachable}${ENTER}` },
        { when: 'Realm:', keys: ENTER },
        { when: 'Enter them again?', keys: `${DOWN}${ENTER}` },
        { when: 'Client id:', keys: CTRL_C },
      ],
    });
    const text = screen(result.stdout);
    expect(text).toContain(`cannot read realm data-platform's discovery document at ${unreachable}/auth/realms/data-platform/.well-known/openid-configuration (ECONNREFUSED)`);
    expect(text).toContain('keep them');
    expect(result.code).toBe(130);
  });

  it('without a terminal, one error names every missing setting with its flag, variable and profile key, and sends nothing', async () => {
    const server = await startRecordingServer();
    try {
      const env = cleanEnv({ DPGW_GATEWAY: server.url, DPGW_AUTH_URL: server.url });
      for (const argv of [['login'], ['login', '--no-input']]) {
        const result = await spawnDpgw(argv, { env });
        expect(result.code).toBe(2);
        expect(result.stderr).toBe(
          'dpgw: 4 settings are not set: realm (--realm, DPGW_REALM, profile key realm); clientId (--client-id, DPGW_CLIENT_ID, profile key clientId); username (--username, DPGW_USERNAME, profile key username); clientSecret (--client-secret, DPGW_CLIENT_SECRET, profile key clientSecret)' +
            ` — set each with its flag, its variable, or \`dpgw config set <key> <value>\`; ${argv.includes('--no-input') ? 'without --no-input, ' : ''}at a terminal \`dpgw login\` asks for them and saves them to the profile\n`,
        );
      }
      const json = await spawnDpgw(['login', '--json'], { env });
      expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'SETTING_MISSING', exitCode: 2, details: { settings: ['realm', 'clientId', 'username', 'clientSecret'] } });
      expect(server.requests).toEqual([]);
      expect(server.connections).toBe(0);
      expect(existsSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('with --no-input at a terminal it asks nothing: the same one error', async () => {
    const env = cleanEnv();
    const result = await atTerminal(['login', '--no-input'], { env, when: 'dpgw', keys: '' });
    const text = screen(result.stdout);
    expect(result.code).toBe(2);
    // The gateway too, as a terminal would ask for it: the session is cached for the gateway it was signed in for.
    expect(text).toContain('dpgw: 6 settings are not set: gateway (--gateway, DPGW_GATEWAY, profile key gateway); authUrl (--auth-url, DPGW_AUTH_URL, profile key authUrl); realm');
    expect(text).not.toContain('Gateway URL:');
  });
});
