/**
 * The identity the settings name is the one that acts, as a user meets it: the built CLI
 * against the sandbox (users of different groups) or a hostile identity provider. A cached
 * session of another user, client, grant or gateway never serves; the token cache is used
 * only when it is the user's own, and runs nothing; the device grant sends the person only
 * to the provider's own page and stops when the code expires.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEVICE_CLIENT_ID, SERVICE_ACCOUNT_CLIENT_ID } from '../../src/sandbox/sandbox.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { cleanEnv, spawnDpgw } from '../helpers/run-dpgw.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { signInEnv } from '../helpers/sandbox-http.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const TOKEN_PATH = '/auth/realms/data-platform/protocol/openid-connect/token';

/** A sandbox, settings from the environment (admin by default), and admin signed in. */
async function signedInAsAdmin() {
  const sandbox = await sandboxes.start();
  const password = (username: string) => sandbox.users.find((u) => u.username === username)!.password;
  const env = signInEnv(sandbox, { DPGW_USERNAME: 'admin' });
  const dpgw = (argv: string[], extra: NodeJS.ProcessEnv = {}) => spawnDpgw(argv, { env: { ...env, ...extra } });
  const login = await dpgw(['login'], { DPGW_PASSWORD: password('admin') });
  expect(login.code, login.stderr).toBe(0);
  const passwordGrantsFor = () => sandbox.requestLog.of('identity', TOKEN_PATH).flatMap((r) => ((r.body as Record<string, string>).grant_type === 'password' ? [(r.body as Record<string, string>).username] : []));
  const gatewayWrites = () => sandbox.requestLog.of('gateway').filter((r) => r.method !== 'GET');
  return { sandbox, env, dpgw, password, passwordGrantsFor, gatewayWrites };
}

const tokensFolder = (env: NodeJS.ProcessEnv) => join(env.XDG_CACHE_HOME!, 'dpgw', 'tokens');
/** The session files of the cache (their names are dpgw's business). */
const sessionFiles = (env: NodeJS.ProcessEnv) => readdirSync(tokensFolder(env)).filter((name) => name.endsWith('.json')).map((name) => join(tokensFolder(env), name));

describe('a cached session of another user never acts', () => {
  it('DPGW_USERNAME=analyst with DPGW_PASSWORD signs in as analyst (the gateway refuses analyst), and admin\'s session stays', async () => {
    const { dpgw, password, passwordGrantsFor } = await signedInAsAdmin();
    const enable = await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', 'track-readers'], { DPGW_USERNAME: 'analyst', DPGW_PASSWORD: password('analyst') });
    expect(enable.code, enable.stderr).toBe(3);
    expect(enable.stderr).toContain('signed in as analyst');
    expect(enable.stderr).toContain('user analyst is not in group platform-admins');
    expect(passwordGrantsFor()).toEqual(['admin', 'analyst']);
    // Both sessions are cached, each serving its own identity.
    const admin = await dpgw(['auth', 'status', '--json']);
    expect(JSON.parse(admin.stdout)).toMatchObject({ signedIn: true, username: 'admin' });
    const analyst = await dpgw(['auth', 'status', '--json'], { DPGW_USERNAME: 'analyst' });
    expect(JSON.parse(analyst.stdout)).toMatchObject({ signedIn: true, username: 'analyst' });
  });

  it('DPGW_USERNAME=analyst without a password: exit 4 naming whose session is cached and the login to run; nothing sent to the gateway', async () => {
    const { dpgw, gatewayWrites } = await signedInAsAdmin();
    const enable = await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', 'track-readers'], { DPGW_USERNAME: 'analyst' });
    expect(enable.code).toBe(4);
    expect(enable.stderr).toBe(
      'dpgw: the cached session of profile "default" is admin@data-platform via client dpgw-backend (password grant), not for the user analyst that DPGW_USERNAME names — run `dpgw login` to sign in as the identity the settings name (in a pipeline, DPGW_USERNAME and DPGW_PASSWORD sign in by themselves)\n',
    );
    expect(gatewayWrites()).toEqual([]);
  });

  it('--username outsider storage touch does not run as admin: exit 4, the login with --username outsider, nothing sent', async () => {
    const { dpgw, gatewayWrites } = await signedInAsAdmin();
    const touch = await dpgw(['--username', 'outsider', 'storage', 'touch', '--dataset', 'track']);
    expect(touch.code).toBe(4);
    expect(touch.stderr).toMatch(/^dpgw: the cached session of profile "default" is admin@data-platform via client dpgw-backend \(password grant\), not for the user outsider that --username names — run `dpgw login --username outsider` /);
    expect(gatewayWrites()).toEqual([]);
    // auth token says the same as any command: they decide by one lookup.
    const token = await dpgw(['--username', 'outsider', 'auth', 'token']);
    expect([token.code, token.stdout]).toEqual([4, '']);
    const status = await dpgw(['--username', 'outsider', 'auth', 'status']);
    expect(status.code).toBe(4);
    expect(status.stderr).toBe(token.stderr);
  });
});

describe('a cached token goes only to the gateway it was signed in for', () => {
  it('--gateway on another origin: no Authorization header reaches it; exit 4 naming both gateways', async () => {
    const { dpgw } = await signedInAsAdmin();
    const other: RecordingServer = await startRecordingServer({ 'GET /api/internal/catalog/datasources': () => ({ body: [] }) });
    closers.push(() => other.close());
    const result = await dpgw(['catalog', 'sources', '--gateway', other.url]);
    expect(other.requests.map((r) => r.headers.authorization)).toEqual(other.requests.map(() => undefined));
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(new RegExp(`is for the gateway http://127\\.0\\.0\\.1:\\d+, not ${other.url.replace(/[.]/g, '\\.')} that --gateway names; its token goes to no other gateway`));
  });
});

describe('login and the commands after it name one identity', () => {
  it('login --grant device --client-id dpgw-cli saves them to the profile: a gateway command works, auth status and auth token agree', async () => {
    const sandbox = await sandboxes.start();
    const env = cleanEnv();
    const secretFile = join(env.DPGW_CONFIG_DIR!, 'client-secret');
    writeFileSync(secretFile, sandbox.clientSecret, { mode: 0o600 });
    const profile = [`gateway: ${sandbox.gatewayUrl}`, `authUrl: ${sandbox.authUrl}`, `realm: ${sandbox.realm}`, `clientId: ${sandbox.clientId}`, `clientSecret: file:${secretFile}`];
    writeFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), `currentProfile: sbx\nprofiles:\n  sbx:\n${profile.map((line) => `    ${line}\n`).join('')}`, { mode: 0o600 });
    const running = spawnDpgw(['login', '--grant', 'device', '--client-id', DEVICE_CLIENT_ID], { env });
    let code: string | undefined;
    for (let i = 0; i < 200 && code === undefined; i++) {
      code = sandbox.identity.pendingUserCodes()[0];
      if (code === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const analyst = sandbox.users.find((u) => u.username === 'analyst')!;
    await fetch(`${sandbox.authUrl}/auth/realms/${sandbox.realm}/device`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ user_code: code!, username: 'analyst', password: analyst.password }) });
    const login = await running;
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`saved --client-id, --grant to profile "sbx" (${join(env.DPGW_CONFIG_DIR!, 'config.yaml')})`);
    expect(readFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), 'utf8')).toMatch(/clientId: dpgw-cli\n[^]*grant: device\n/);

    const sources = await spawnDpgw(['catalog', 'sources'], { env });
    expect(sources.code, sources.stderr).toBe(0);
    const status = await spawnDpgw(['auth', 'status', '--json'], { env });
    expect([status.code, JSON.parse(status.stdout)]).toEqual([0, expect.objectContaining({ signedIn: true, username: 'analyst', grant: 'device' })]);
    const token = await spawnDpgw(['auth', 'token'], { env });
    expect(token.code, token.stderr).toBe(0);
  });

  it('login --grant client-credentials with settings from the environment only: auth status finds that session', async () => {
    const sandbox = await sandboxes.start();
    const client = sandbox.clients.find((c) => c.clientId === SERVICE_ACCOUNT_CLIENT_ID)!;
    const env = cleanEnv({ DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm, DPGW_CLIENT_ID: client.clientId, DPGW_CLIENT_SECRET: client.secret });
    const login = await spawnDpgw(['login', '--grant', 'client-credentials'], { env });
    expect(login.code, login.stderr).toBe(0);
    const status = await spawnDpgw(['auth', 'status', '--json'], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ signedIn: true, serviceAccountOf: 'dpgw-ci' });
    expect((await spawnDpgw(['auth', 'token'], { env })).code).toBe(0);
  });
});

describe('the token cache is used only when it is the user\'s own, and runs nothing', () => {
  it('mode 0666 or another owner: not used, one warning naming the file and what to run', async () => {
    const { env, dpgw } = await signedInAsAdmin();
    const [file] = sessionFiles(env);
    chmodSync(file!, 0o666);
    const writable = await dpgw(['auth', 'status']);
    expect(writable.code).toBe(4);
    expect(writable.stderr).toContain(`warning: ignoring the token cache ${file}: others can change it (mode 666); run \`rm ${file}\` and \`dpgw login\``);
    if (process.getuid?.() === 0) {
      // Root reads any file: the owner is what is checked, not whether the open fails.
      chmodSync(file!, 0o600);
      chownSync(file!, 65534, 65534);
      const foreign = await dpgw(['auth', 'token']);
      expect(foreign.code).toBe(4);
      expect(foreign.stdout).toBe('');
      expect(foreign.stderr).toContain(`warning: ignoring the token cache ${file}: it belongs to another user (uid 65534), who could have written it; run \`rm ${file}\` and \`dpgw login\``);
    }
  });

  it('a symbolic link in place of a session file is not followed', async () => {
    const { env, dpgw } = await signedInAsAdmin();
    const [file] = sessionFiles(env);
    const elsewhere = join(env.DPGW_CONFIG_DIR!, 'planted.json');
    renameSync(file!, elsewhere);
    symlinkSync(elsewhere, file!);
    const target = file!;
    const status = await dpgw(['auth', 'status']);
    expect(status.code).toBe(4);
    expect(status.stderr).toContain(`warning: ignoring the token cache ${target}: it is a symbolic link`);
  });

  it('a link (to a FIFO) or a FIFO at the lock\'s name holds no lock: taken over, not followed nor waited on, and the sign-in goes on', async () => {
    const { env, dpgw, password } = await signedInAsAdmin();
    const lock = join(tokensFolder(env), 'default.json.lock');
    const fifo = join(env.DPGW_CONFIG_DIR!, 'fifo');
    execFileSync('mkfifo', [fifo]);
    for (const plant of [() => symlinkSync(fifo, lock), () => execFileSync('mkfifo', [lock])]) {
      plant();
      // Before: the lock's holder was read through the link, or from the FIFO, and the sign-in waited for a writer that never came.
      const login = await dpgw(['login', '--timeout', '5'], { DPGW_PASSWORD: password('admin') });
      expect(login.code, login.stderr).toBe(0);
      expect(lstatSync(fifo).isFIFO()).toBe(true);
      expect(existsSync(lock)).toBe(false);
    }
  }, 30_000);

  it('an edited, expired cache that names an exec: client secret never runs it', async () => {
    const { env, dpgw } = await signedInAsAdmin();
    const marker = join(env.DPGW_CONFIG_DIR!, 'ran');
    for (const file of sessionFiles(env)) {
      const session = JSON.parse(readFileSync(file, 'utf8'));
      writeFileSync(file, JSON.stringify({ ...session, accessTokenExpiresAt: new Date(Date.now() - 1000).toISOString(), clientSecretReference: `exec:touch ${marker}` }), { mode: 0o600 });
    }
    // Settings that name no client secret: the refresh has none, and the cache gives none.
    const token = await dpgw(['auth', 'token'], { DPGW_CLIENT_SECRET: '' });
    expect(existsSync(marker)).toBe(false);
    expect(token.code).toBe(2);
    expect(token.stderr).toMatch(/^dpgw: clientSecret: no client secret for client dpgw-backend/);
  });
});

/** A hostile identity provider for the device grant: its device answer is `device(origin)`; its token endpoint always says "pending". */
async function deviceProvider(device: (origin: string) => Record<string, unknown>): Promise<{ url: string; polls: () => number }> {
  const realm = '/auth/realms/test';
  let polls = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const reply = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.url === `${realm}/.well-known/openid-configuration`) {
        return reply(200, { issuer: `${origin}${realm}`, token_endpoint: `${origin}${realm}/protocol/openid-connect/token`, device_authorization_endpoint: `${origin}${realm}/protocol/openid-connect/auth/device` });
      }
      if (request.url === `${realm}/protocol/openid-connect/auth/device`) return reply(200, { device_code: 'device-code-1', user_code: 'ABCD-EFGH', ...device(origin) });
      if (request.url === `${realm}/protocol/openid-connect/token`) {
        polls++;
        return reply(400, { error: 'authorization_pending', error_description: 'The authorization request is still pending' });
      }
      reply(404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, polls: () => polls };
}

const deviceLogin = (authUrl: string) => spawnDpgw(['login', '--grant', 'device'], { env: cleanEnv({ DPGW_AUTH_URL: authUrl, DPGW_REALM: 'test', DPGW_CLIENT_ID: 'dpgw-cli' }) });

describe('the device grant', () => {
  it('a verification_uri on another origin than the identity provider\'s is refused before the person is sent there', async () => {
    const provider = await deviceProvider(() => ({ verification_uri: 'https://login.example-lookalike.test/device', expires_in: 2, interval: 1 }));
    const result = await deviceLogin(provider.url);
    expect(result.code).toBe(4);
    expect(result.stderr).toBe(`dpgw: the identity provider sends the person to approve the sign-in at https://login.example-lookalike.test (its verification_uri), not at the origin of --auth-url (${provider.url}); dpgw shows no such page — set --auth-url to the provider's own URL, or fix the provider's frontend URL\n`);
    expect(provider.polls()).toBe(0);
  });

  it('a verification_uri_complete on another origin is refused too', async () => {
    const provider = await deviceProvider((origin) => ({ verification_uri: `${origin}/auth/realms/test/device`, verification_uri_complete: 'http://127.0.0.2:1/device?user_code=ABCD-EFGH', expires_in: 2, interval: 1 }));
    const result = await deviceLogin(provider.url);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^dpgw: the identity provider sends the person to approve the sign-in at http:\/\/127\.0\.0\.2:1 \(its verification_uri_complete\)/);
    expect(result.stderr).not.toContain('to sign in, open');
  });

  it('expires_in 2: the code is shown as 2 s, and polling stops when it expires', async () => {
    const provider = await deviceProvider((origin) => ({ verification_uri: `${origin}/auth/realms/test/device`, expires_in: 2, interval: 1 }));
    const started = Date.now();
    const result = await deviceLogin(provider.url);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('(the code expires in 2 s)');
    expect(result.stderr).toContain('dpgw: the code expired before the sign-in was approved (it was valid for 2 s) — run `dpgw login --grant device` again');
    expect(provider.polls()).toBeGreaterThanOrEqual(1);
    expect(provider.polls()).toBeLessThanOrEqual(2);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
