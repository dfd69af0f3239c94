/** dpgw's sign-in against a real Keycloak: what the sandbox emulates, checked against the original. */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { readClaims } from '../../src/auth/jwt-claims.js';
import { approveDeviceInBrowser } from '../helpers/keycloak-browser.js';
import { cleanEnv, ROOT, spawnDpgw, type RunResult } from '../helpers/run-dpgw.js';

const keycloak = inject('keycloak');

/** The file of the profile's latest sign-in (a file per identity: `default@<key>.json`). */
function sessionFileOf(env: NodeJS.ProcessEnv): string {
  const folder = join(env.XDG_CACHE_HOME!, 'dpgw', 'tokens');
  const files = readdirSync(folder).filter((name) => name.startsWith('default@') && name.endsWith('.json')).map((name) => join(folder, name));
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!;
}

function setUp() {
  const env = cleanEnv({ DPGW_AUTH_URL: keycloak.authUrl, DPGW_REALM: keycloak.realm, DPGW_CLIENT_ID: keycloak.clientId, DPGW_USERNAME: 'admin' });
  const secretFile = join(env.DPGW_CONFIG_DIR!, 'client-secret');
  writeFileSync(secretFile, `${keycloak.clientSecret}\n`, { mode: 0o600 });
  const password = (username: string) => keycloak.users.find((u) => u.username === username)!.password;
  const dpgw = (args: string[], extra: { env?: NodeJS.ProcessEnv; input?: string } = {}) => spawnDpgw(args, { env: { ...env, ...extra.env }, input: extra.input });
  const login = (extra: string[] = [], input = password('admin')) => dpgw(['login', '--password-stdin', '--client-secret', `file:${secretFile}`, ...extra], { input });
  return { env, dpgw, login, password };
}

const oneLine = (result: RunResult, code: number, pattern: RegExp) => {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
};

describe(`dpgw login against Keycloak ${keycloak.version}`, () => {
  it('signs in with the password grant; the token carries the groups', async () => {
    const { login, dpgw, env } = setUp();
    const result = await login();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('signed in to realm data-platform as admin (groups: platform-admins)');
    const token = (await dpgw(['auth', 'token'])).stdout.trim();
    const claims = readClaims(token)!;
    expect(claims.iss).toBe(`${keycloak.authUrl}/auth/realms/${keycloak.realm}`);
    expect(claims.groups).toEqual(['platform-admins']);
    expect(claims.preferred_username).toBe('admin');
    const status = JSON.parse((await dpgw(['auth', 'status', '--json'])).stdout);
    expect(status).toMatchObject({ signedIn: true, username: 'admin', groups: ['platform-admins'] });
    const cache = JSON.parse(readFileSync(sessionFileOf(env), 'utf8'));
    expect(Date.parse(cache.accessTokenExpiresAt) - Date.parse(cache.obtainedAt)).toBeGreaterThan(100_000);
  });

  it('a member of the track group and a user in no group', async () => {
    const { dpgw, password, env } = setUp();
    const secret = join(env.DPGW_CONFIG_DIR!, 'client-secret');
    for (const [user, groups] of [['analyst', ['track-readers']], ['outsider', []]] as const) {
      const result = await dpgw(['login', '--password-stdin', '--username', user, '--client-secret', `file:${secret}`], { input: password(user) });
      expect(result.code, result.stderr).toBe(0);
      // The environment names admin: the session of the user just signed in serves only a command that names that user too.
      const token = await dpgw(['auth', 'token', '--username', user]);
      expect(token.code, token.stderr).toBe(0);
      expect(readClaims(token.stdout.trim())?.groups ?? []).toEqual(groups);
    }
  });

  it("reports Keycloak's refusals in one line with exit 4", async () => {
    const { login, dpgw } = setUp();
    oneLine(await login([], 'wrong-password'), 4, /the identity provider refused the username or password: Invalid user credentials \(invalid_grant\)/);
    const badSecret = await dpgw(['login', '--password-stdin'], { input: 'x', env: { DPGW_CLIENT_SECRET: 'not-the-secret' } });
    oneLine(badSecret, 4, /refused client dpgw-backend: Invalid client or Invalid client credentials \(unauthorized_client\)/);
    const web = await dpgw(['login', '--password-stdin', '--client-id', keycloak.webClientId], { input: 'x', env: { DPGW_CLIENT_SECRET: keycloak.webClientSecret } });
    oneLine(web, 4, /client dpgw-web may not use the password grant: Client not allowed for direct access grants \(unauthorized_client\)/);
    oneLine(await login(['--realm', 'no-such-realm']), 4, /realm "no-such-realm" does not exist at /);
  });

  it('refreshes the session with the refresh token and signs out at Keycloak', async () => {
    const { login, dpgw, env } = setUp();
    await login();
    const file = sessionFileOf(env);
    const cache = JSON.parse(readFileSync(file, 'utf8'));
    // Pretend the access token has expired: the next call must refresh it at Keycloak.
    writeFileSync(file, JSON.stringify({ ...cache, accessTokenExpiresAt: new Date(Date.now() - 1000).toISOString() }), { mode: 0o600 });
    const refreshed = await dpgw(['auth', 'token']);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stdout.trim()).not.toBe(cache.accessToken);
    const out = await dpgw(['logout']);
    expect(out.stderr).toContain('ended the session at the identity provider');
  });
});

describe(`dpgw's other grants against Keycloak ${keycloak.version}`, () => {
  const base = () => cleanEnv({ DPGW_AUTH_URL: keycloak.authUrl, DPGW_REALM: keycloak.realm });

  it('--grant client-credentials: no login, no username or password; the token is the service account\'s, with its groups', async () => {
    const env: NodeJS.ProcessEnv = { ...base(), DPGW_GRANT: 'client-credentials', DPGW_CLIENT_ID: keycloak.ciClientId, DPGW_CLIENT_SECRET: keycloak.ciClientSecret };
    const token = await spawnDpgw(['auth', 'token'], { env });
    expect(token.code, token.stderr).toBe(0);
    const claims = readClaims(token.stdout.trim())!;
    expect(claims.preferred_username).toBe('service-account-dpgw-ci');
    expect(claims.groups).toEqual(['platform-admins']);
    expect(token.stderr).not.toContain(keycloak.ciClientSecret);
    const status = JSON.parse((await spawnDpgw(['auth', 'status', '--json'], { env })).stdout);
    expect(status).toMatchObject({ signedIn: true, serviceAccountOf: 'dpgw-ci', grant: 'client-credentials' });
    // Keycloak gives this grant no refresh token: the cache holds none, and a new grant renews it. The service
    // account's session has a cache slot of its own, beside the profile's person's session.
    const cache = JSON.parse(readFileSync(sessionFileOf(env), 'utf8'));
    expect(cache.refreshToken).toBeUndefined();
  });

  /** `dpgw login --grant device` while a person approves (or denies) in the browser, through Keycloak's own pages. */
  function deviceLogin(decision: 'accept' | 'deny'): Promise<RunResult & { page: string }> {
    const env: NodeJS.ProcessEnv = { ...base(), DPGW_GRANT: 'device', DPGW_CLIENT_ID: keycloak.deviceClientId };
    const analyst = keycloak.users.find((u) => u.username === 'analyst')!;
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [join(ROOT, 'bin/dpgw'), 'login'], { env, cwd: ROOT });
      let stdout = '';
      let stderr = '';
      let page: Promise<string> | undefined;
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        const address = /^or open (\S+)$/m.exec(stderr)?.[1];
        if (address && !page) page = approveDeviceInBrowser(address, analyst.username, analyst.password, decision);
      });
      child.on('error', reject);
      child.on('close', (code) => {
        void (page ?? Promise.resolve('')).catch((error: unknown) => String(error)).then((shown) => resolve({ code: code ?? -1, stdout, stderr, page: shown }));
      });
    });
  }

  it('--grant device: approved on Keycloak\'s pages, the person who approved is signed in (public client, PKCE); a later command uses the session', async () => {
    const result = await deviceLogin('accept');
    expect(result.code, `${result.stderr}\n${result.page.slice(0, 500)}`).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^to sign in, open ${keycloak.authUrl.replace(/[.]/g, '\\.')}/auth/realms/${keycloak.realm}/device and enter the code [A-Z]{4}-[A-Z]{4}$`, 'm'));
    expect(result.stderr).toContain('signed in to realm data-platform as analyst (groups: track-readers)');
  });

  it('--grant device: denied on the consent page, one line and exit 4', async () => {
    const result = await deviceLogin('deny');
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('dpgw:'))).toEqual([expect.stringContaining('the sign-in was denied in the browser')]);
  });
});
