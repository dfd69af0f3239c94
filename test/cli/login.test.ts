/**
 * dpgw login, auth and logout as a user runs them: the built binary against the
 * sandbox's real OIDC provider on 127.0.0.1.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { closedPort } from '../helpers/recording-server.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_DIRECT_GRANTS_CLIENT_ID, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { cleanEnv, spawnDpgw, type RunResult } from '../helpers/run-dpgw.js';
import { startForwardProxy } from '../helpers/forward-proxy.js';
import { call } from '../helpers/sandbox-http.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const TOKEN_PATH = '/auth/realms/data-platform/protocol/openid-connect/token';

/** A sandbox and an environment pointing dpgw at it: settings from DPGW_* variables, the client secret from a file reference. */
async function setUp(options: SandboxOptions = {}) {
  sandbox = await startSandbox(options);
  const env = cleanEnv();
  const secretFile = join(env.DPGW_CONFIG_DIR!, 'client-secret');
  writeFileSync(secretFile, `${sandbox.clientSecret}\n`, { mode: 0o600 });
  Object.assign(env, {
    DPGW_GATEWAY: sandbox.gatewayUrl,
    DPGW_AUTH_URL: sandbox.authUrl,
    DPGW_REALM: sandbox.realm,
    DPGW_CLIENT_ID: sandbox.clientId,
    DPGW_USERNAME: 'admin',
  });
  const admin = sandbox.users.find((u) => u.username === 'admin')!;
  const dpgw = (args: string[], extra: { env?: NodeJS.ProcessEnv; input?: string } = {}) => spawnDpgw(args, { env: { ...env, ...extra.env }, input: extra.input });
  const login = (extra: string[] = [], password = admin.password, envExtra: NodeJS.ProcessEnv = {}) => dpgw(['login', '--password-stdin', '--client-secret', `file:${secretFile}`, ...extra], { input: `${password}\n`, env: envExtra });
  const tokenRequests = () => sandbox!.requestLog.of('identity', TOKEN_PATH);
  return { sandbox, env, secretFile, admin, dpgw, login, tokenRequests };
}

/** The profile's one cached session (a file per identity: `<profile>@<key>.json`). */
function cacheFileOf(env: NodeJS.ProcessEnv, profile = 'default'): string {
  const folder = join(env.XDG_CACHE_HOME!, 'dpgw', 'tokens');
  const files = readdirSync(folder).filter((name) => name.startsWith(`${profile}@`) && name.endsWith('.json'));
  if (files.length !== 1) throw new Error(`expected one session of profile ${profile} in ${folder}, found ${files.join(', ') || 'none'}`);
  return join(folder, files[0]!);
}

/**
 * Moves the clock rather than waiting for it: the cached session says its access token
 * (and, with `refresh`, its refresh token) expired a second ago, as it would once its
 * lifetime had passed.
 */
function expireCachedSession(env: NodeJS.ProcessEnv, { refresh = false } = {}): void {
  const file = cacheFileOf(env);
  const cache = JSON.parse(readFileSync(file, 'utf8'));
  const past = new Date(Date.now() - 1000).toISOString();
  writeFileSync(file, JSON.stringify({ ...cache, accessTokenExpiresAt: past, ...(refresh ? { refreshTokenExpiresAt: past } : {}) }), { mode: 0o600 });
}

describe('dpgw login', () => {
  it('signs in with the password grant, sending exactly the contract form fields', async () => {
    const { login, tokenRequests, env, sandbox } = await setUp();
    const result = await login();
    expect(result.stderr).toMatch(/^✓ signed in to realm data-platform as admin \(groups: platform-admins\); token valid until /);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    const [request] = tokenRequests();
    expect([...request!.formFields!].sort()).toEqual(['client_id', 'client_secret', 'grant_type', 'password', 'scope', 'username']);
    expect(request!.body).toEqual({ username: 'admin', password: '***', client_secret: '***', client_id: sandbox.clientId, scope: 'openid', grant_type: 'password' });
    expect(request!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded(;|$)/);
    expect(request!.status).toBe(200);
    // Discovery at {auth_url}/auth/realms/{realm}.
    expect(sandbox.requestLog.of('identity').map((e) => e.path)[0]).toBe('/auth/realms/data-platform/.well-known/openid-configuration');
    const cache = cacheFileOf(env);
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.XDG_CACHE_HOME!, 'dpgw', 'tokens')).mode & 0o777).toBe(0o700);
    const cached = JSON.parse(readFileSync(cache, 'utf8'));
    expect(cached).toMatchObject({ profile: 'default', username: 'admin', realm: 'data-platform', gateway: sandbox.gatewayUrl });
    // Tokens only: how to get the client secret is the settings' to say (the flag given is saved to the profile).
    expect(cached).not.toHaveProperty('clientSecretReference');
    expect(Date.parse(cached.accessTokenExpiresAt) - Date.parse(cached.obtainedAt)).toBeGreaterThan(295_000);
  });

  it('sends the client secret by HTTP Basic with --client-auth basic', async () => {
    const { login, tokenRequests } = await setUp();
    expect((await login(['--client-auth', 'basic'])).code).toBe(0);
    const [request] = tokenRequests();
    expect(request!.formFields).not.toContain('client_secret');
    expect(request!.headers.authorization).toBe('Basic ***');
  });

  it('takes the password from DPGW_PASSWORD, and refuses to guess without a terminal', async () => {
    const { dpgw, secretFile, admin } = await setUp();
    const fromEnv = await dpgw(['login', '--client-secret', `file:${secretFile}`], { env: { DPGW_PASSWORD: admin.password } });
    expect(fromEnv.code).toBe(0);
    const none = await dpgw(['login', '--client-secret', `file:${secretFile}`]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('dpgw: password: no password and no terminal to ask for one — pass --password-stdin (and pipe it in), or set DPGW_PASSWORD\n');
  });

  it('in a pipeline with DPGW_USERNAME and DPGW_PASSWORD, any command signs in by itself, once, and caches the session', async () => {
    const { dpgw, secretFile, admin, tokenRequests } = await setUp();
    const env = { DPGW_PASSWORD: admin.password, DPGW_CLIENT_SECRET: readFileSync(secretFile, 'utf8').trim() };
    const enabled = await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', 'track-readers'], { env });
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stderr).toContain('signed in as admin');
    const again = await dpgw(['storage', 'touch', '--dataset', 'track'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('signed in');
    expect(tokenRequests().map((r) => (r.body as { grant_type: string }).grant_type)).toEqual(['password']);
    expect(enabled.stderr + enabled.stdout + again.stderr + again.stdout).not.toContain(admin.password);
    // Without the password it is still the one-line "not signed in" of exit 4.
    const fresh = cleanEnv();
    const none = await spawnDpgw(['storage', 'touch', '--dataset', 'track', '--gateway', sandbox!.gatewayUrl], { env: fresh });
    expect([none.code, none.stderr]).toEqual([4, expect.stringMatching(/^dpgw: not signed in \(profile "default"\)/)]);
  });

  it('reuses the cached token: one call of the token endpoint across several commands', async () => {
    const { login, dpgw, tokenRequests } = await setUp();
    await login();
    const first = await dpgw(['auth', 'token']);
    const second = await dpgw(['auth', 'token']);
    const status = await dpgw(['auth', 'status', '--json']);
    expect([first.code, second.code, status.code]).toEqual([0, 0, 0]);
    expect(first.stdout).toBe(second.stdout);
    expect(JSON.parse(status.stdout)).toMatchObject({ signedIn: true, username: 'admin', realm: 'data-platform', groups: ['platform-admins'], source: 'cache' });
    expect(tokenRequests()).toHaveLength(1);
    // The printed token is one the gateway accepts.
    expect((await call('GET', `${sandbox!.gatewayUrl}/api/version`, { token: first.stdout.trim() })).status).toBe(200);
  });

  it('refreshes an expired access token before using it', async () => {
    const { login, dpgw, tokenRequests, env } = await setUp();
    await login();
    const before = (await dpgw(['auth', 'token'])).stdout.trim();
    expireCachedSession(env);
    const after = await dpgw(['auth', 'token']);
    expect(after.code).toBe(0);
    expect(after.stdout.trim()).not.toBe(before);
    expect(tokenRequests().map((r) => (r.body as { grant_type: string }).grant_type)).toEqual(['password', 'refresh_token']);
    expect((await call('GET', `${sandbox!.gatewayUrl}/api/version`, { token: after.stdout.trim() })).status).toBe(200);
  });

  it('two dpgw processes refreshing at once share one refresh and both keep the session', async () => {
    const { login, dpgw, tokenRequests, env } = await setUp();
    await login();
    expireCachedSession(env);
    const [a, b] = await Promise.all([dpgw(['auth', 'token']), dpgw(['auth', 'token'])]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    expect(a.stdout).toBe(b.stdout);
    expect(tokenRequests().filter((r) => (r.body as { grant_type: string }).grant_type === 'refresh_token')).toHaveLength(1);
    expect(JSON.parse(readFileSync(cacheFileOf(env), 'utf8')).accessToken).toBe(a.stdout.trim());
    const status = await dpgw(['auth', 'status']);
    expect(status.code).toBe(0);
    // It reports the cache; it does not claim the identity provider still takes the session.
    expect(status.stdout.split('\n')[0]).toBe('signed in (profile "default", as the token cache says; the identity provider was not asked)');
  });

  it("a profile chosen by flag that is not signed in: the hint is the login of that profile, runnable as written", async () => {
    const { dpgw, env } = await setUp();
    writeFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), 'profiles:\n  other:\n    gateway: http://127.0.0.1:1\n', { mode: 0o600 });
    const token = await dpgw(['auth', 'token', '--profile', 'other']);
    expect(token.code).toBe(4);
    expect(token.stderr).toBe('dpgw: not signed in (profile "other") — run `dpgw login --profile other`, or set DPGW_TOKEN (or DPGW_USERNAME and DPGW_PASSWORD) in a pipeline\n');
    const status = await dpgw(['auth', 'status', '--profile', 'other']);
    expect(status.stderr).toContain('run `dpgw login --profile other`, or set DPGW_TOKEN in a pipeline');
  });

  it('DPGW_TOKEN beats the cache', async () => {
    const { login, dpgw } = await setUp();
    await login();
    const result = await dpgw(['auth', 'token'], { env: { DPGW_TOKEN: 'pipeline-bearer-token' } });
    expect(result.stdout).toBe('pipeline-bearer-token\n');
    const status = await dpgw(['auth', 'status', '--json'], { env: { DPGW_TOKEN: 'pipeline-bearer-token' } });
    expect(JSON.parse(status.stdout).source).toBe('env');
  });

  it('logout forgets the token and ends the session at the provider', async () => {
    const { login, dpgw, env } = await setUp();
    await login();
    const refreshToken = JSON.parse(readFileSync(cacheFileOf(env), 'utf8')).refreshToken as string;
    const out = await dpgw(['logout']);
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/signed out of profile "default" as admin@\S+ via client \S+ \(password grant\) and ended the session at the identity provider/);
    const status = await dpgw(['auth', 'status']);
    expect(status.code).toBe(4);
    expect(status.stderr).toBe('dpgw: not signed in (profile "default") — run `dpgw login`, or set DPGW_TOKEN in a pipeline\n');
    const reuse = await call('POST', sandbox!.tokenEndpoint, { form: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: sandbox!.clientId, client_secret: sandbox!.clientSecret }) });
    expect(reuse.body.error_description).toBe('Token is not active');
    expect((await dpgw(['logout'])).stderr).toContain('not signed in');
  });

  it("logout ends the session of the identity the settings name, and says whose sessions of the profile stay", async () => {
    const { login, dpgw } = await setUp();
    await login();
    const analyst = sandbox!.users.find((u) => u.username === 'analyst')!;
    expect((await login([], analyst.password, { DPGW_USERNAME: 'analyst' })).code).toBe(0);
    const out = await dpgw(['logout'], { env: { DPGW_USERNAME: 'analyst' } });
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/signed out of profile "default" as analyst@/);
    expect(out.stderr).toMatch(/still cached for profile "default": admin@\S+ via client \S+ \(password grant\) — each ends with `dpgw logout` under its own settings/);
    expect((await dpgw(['auth', 'status'])).code).toBe(0);
  });

  it('refuses a token cache others can read', async () => {
    const { login, dpgw, env } = await setUp();
    await login();
    chmodSync(cacheFileOf(env), 0o644);
    const status = await dpgw(['auth', 'status']);
    expect(status.code).toBe(4);
    expect(status.stderr).toContain('warning: ignoring the token cache');
    expect(status.stderr).toContain('others can read it (mode 644)');
  });
});

describe('login errors: one line, the fix, exit 4 or 5', () => {
  const expectOneLine = (result: RunResult, code: number, pattern: RegExp) => {
    expect(result.code, result.stderr).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(pattern);
  };

  it('a wrong password', async () => {
    const { login } = await setUp();
    expectOneLine(await login([], 'not-the-password'), 4, /^dpgw: the identity provider refused the username or password: Invalid user credentials \(invalid_grant\) — check the username \(admin\) and the password, then try again; `dpgw config` shows whether the username came from --username, DPGW_USERNAME or the profile$/m);
  });

  it('a bad client secret', async () => {
    const { login, secretFile } = await setUp();
    writeFileSync(secretFile, 'wrong-client-secret\n');
    expectOneLine(await login(), 4, /refused client dpgw-backend: Invalid client or Invalid client credentials \(unauthorized_client\) — check --client-id and the client secret from the clientSecret reference \(--client-secret\)/);
    // A secret from the environment is blamed on the environment, not on a reference nobody wrote.
    expectOneLine(await login(['--client-secret', ''], undefined, { DPGW_CLIENT_SECRET: 'wrong-client-secret' }), 4, /— check --client-id and the client secret from DPGW_CLIENT_SECRET/);
  });

  it('direct access grants disabled', async () => {
    const { dpgw, admin } = await setUp();
    const web = sandbox!.clients.find((c) => c.clientId === NO_DIRECT_GRANTS_CLIENT_ID)!;
    const result = await dpgw(['login', '--password-stdin', '--client-id', web.clientId], { input: admin.password, env: { DPGW_CLIENT_SECRET: web.secret } });
    expectOneLine(result, 4, /client dpgw-web may not use the password grant: Client not allowed for direct access grants \(unauthorized_client\) — switch on "Direct access grants"/);
  });

  it('an unknown realm', async () => {
    const { login } = await setUp();
    expectOneLine(await login(['--realm', 'data-platfrom']), 4, /realm "data-platfrom" does not exist at http:\/\/127\.0\.0\.1:\d+ \(404 from .*\) — check --realm and --auth-url/);
  });

  it('an expired refresh token', async () => {
    const { login, dpgw, env } = await setUp();
    await login();
    expireCachedSession(env, { refresh: true });
    expectOneLine(await dpgw(['auth', 'token']), 4, /^dpgw: the session of profile "default" has expired — run `dpgw login` again/);
  });

  it('a refresh token the provider no longer accepts', async () => {
    const { login, dpgw, env } = await setUp();
    await login();
    sandbox!.identity.endSessions('admin');
    expireCachedSession(env);
    expectOneLine(await dpgw(['auth', 'token']), 4, /^dpgw: the session has ended: Token is not active \(invalid_grant\) — run `dpgw login` again/);
  });

  it('an unreachable identity provider: exit 5', async () => {
    const { login } = await setUp();
    const port = await closedPort();
    expectOneLine(await login(['--auth-url', `http://127.0.0.1:${port}`]), 5, new RegExp(`cannot reach the identity provider at 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`));
  });

  it('an identity provider that does not answer in time: exit 5', async () => {
    const { login } = await setUp({ faults: { tokenDelayMs: 5_000 } });
    expectOneLine(await login(['--timeout', '1']), 5, /gave no answer within 1 s — check that it is up, or allow longer with --timeout/);
  });
});

describe('through a proxy', () => {
  it('login honours HTTP_PROXY, and NO_PROXY bypasses it', async () => {
    const { login } = await setUp();
    const proxy = await startForwardProxy();
    try {
      expect((await login([], undefined, { HTTP_PROXY: proxy.url })).code).toBe(0);
      expect(proxy.seen.join('\n')).toMatch(new RegExp(`${new URL(sandbox!.authUrl).host}`));
      const seenBefore = proxy.seen.length;
      expect((await login([], undefined, { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' })).code).toBe(0);
      expect(proxy.seen.length).toBe(seenBefore);
    } finally {
      await proxy.close();
    }
  });
});

describe('one proxy rule for every server', () => {
  it('HTTP_PROXY alone carries the gateway as it carries the sign-in; NO_PROXY bypasses both', async () => {
    sandbox = await startSandbox({});
    const proxy = await startForwardProxy();
    try {
      const env = cleanEnv({ DPGW_GATEWAY: sandbox.gatewayUrl, HTTP_PROXY: proxy.url });
      const health = await spawnDpgw(['health', '--json'], { env });
      expect(health.code, health.stderr).toBe(0);
      expect(proxy.seen).toContain(`GET ${sandbox.gatewayUrl}/api/health`);
      const seenBefore = proxy.seen.length;
      expect((await spawnDpgw(['health', '--json'], { env: { ...env, NO_PROXY: '127.0.0.1' } })).code).toBe(0);
      expect(proxy.seen.length).toBe(seenBefore);
    } finally {
      await proxy.close();
    }
  });
});

describe('secrets stay secret', () => {
  it('no password, client secret or token appears in any output, trace or child argv', async () => {
    const { dpgw, env, admin } = await setUp();
    // The client secret comes from a command (exec:) that records the argv it was given.
    const argvLog = join(mkdtempSync(join(tmpdir(), 'dpgw-argv-')), 'argv.log');
    const script = join(env.DPGW_CONFIG_DIR!, 'print-secret.mjs');
    writeFileSync(script, `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(argvLog)}, JSON.stringify(process.argv) + '\\n');\nprocess.stdout.write(${JSON.stringify(sandbox!.clientSecret)});\n`);
    const reference = `exec:${process.execPath} ${script}`;
    const outputs: RunResult[] = [];
    outputs.push(await dpgw(['login', '--password-stdin', '--verbose', '--client-secret', reference], { input: admin.password }));
    outputs.push(await dpgw(['auth', 'status', '--verbose']));
    outputs.push(await dpgw(['auth', 'status', '--json']));
    outputs.push(await dpgw(['config', '--json', '--client-secret', reference]));
    const cache = JSON.parse(readFileSync(cacheFileOf(env), 'utf8'));
    expireCachedSession(env);
    // A refresh, traced: it runs the exec: reference again for the client secret.
    const refreshed = await dpgw(['auth', 'token', '--verbose']);
    expect(refreshed.code).toBe(0);
    outputs.push({ ...refreshed, stdout: '' }); // stdout is the token, printed on purpose
    outputs.push(await dpgw(['login', '--password-stdin', '--client-secret', reference], { input: 'wrong-password' }));
    outputs.push(await dpgw(['logout', '--verbose', '--client-secret', reference]));

    const secrets = [admin.password, sandbox!.clientSecret, cache.accessToken, cache.refreshToken, refreshed.stdout.trim()];
    const everything = outputs.map((o) => o.stdout + o.stderr).join('\n') + readFileSync(argvLog, 'utf8');
    expect(outputs[0]!.stderr).toContain('→ POST');
    expect(outputs[0]!.stderr).toContain('"password":"***"');
    expect(outputs[0]!.stderr).toContain('"client_secret":"***"');
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(readFileSync(argvLog, 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(2);
  });
});

describe('the token reaches the gateway', () => {
  it('a 401 from the gateway makes dpgw refresh once and retry', async () => {
    const { login, env, dpgw } = await setUp();
    await login();
    // A token the gateway refuses although it has not expired (as after a key rotation).
    const file = cacheFileOf(env);
    const cache = JSON.parse(readFileSync(file, 'utf8'));
    const [h, p] = (cache.accessToken as string).split('.');
    writeFileSync(file, JSON.stringify({ ...cache, accessToken: `${h}.${p}.c2lnbmF0dXJl` }), { mode: 0o600 });
    const result = await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', 'g', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    const gateway = sandbox!.requestLog.of('gateway');
    expect(gateway.slice(0, 2).map((e) => `${e.status} ${e.path}`)).toEqual(['401 /api/v2/catalog/datasources', '200 /api/v2/catalog/datasources']);
    expect(gateway.every((e, i) => i === 0 || e.status === 200)).toBe(true);
    expect(sandbox!.requestLog.of('identity', TOKEN_PATH).map((r) => (r.body as { grant_type: string }).grant_type)).toEqual(['password', 'refresh_token']);
    expect(JSON.parse(readFileSync(file, 'utf8')).accessToken).not.toBe(`${h}.${p}.c2lnbmF0dXJl`);
  });
});
