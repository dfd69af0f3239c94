/**
 * Sign-in beyond the password grant, on the sandbox's identity provider, as a pipeline and
 * a person meet it: a service account (the client credentials grant) that needs no
 * username, password or `login`, and a device code approved in a browser (single sign-on,
 * MFA) by a public client without a secret.
 */
import { describe, expect, it } from 'vitest';
import { DEVICE_CLIENT_ID, SERVICE_ACCOUNT_CLIENT_ID, type Sandbox } from '../../src/sandbox/sandbox.js';
import { cleanEnv, runInProcess } from '../helpers/run-dpgw.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

function identityEnv(sandbox: Sandbox, extra: Record<string, string>): NodeJS.ProcessEnv {
  return cleanEnv({ DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm, ...extra });
}

const tokenRequests = (sandbox: Sandbox) => sandbox.requestLog.of('identity', `/auth/realms/${sandbox.realm}/protocol/openid-connect/token`);

describe('--grant client-credentials: the client\'s service account', () => {
  async function setUp(options: { accessTokenLifetimeSeconds?: number } = {}) {
    const sandbox = await sandboxes.start(options);
    const client = sandbox.clients.find((c) => c.clientId === SERVICE_ACCOUNT_CLIENT_ID)!;
    const env = identityEnv(sandbox, { DPGW_GRANT: 'client-credentials', DPGW_CLIENT_ID: client.clientId, DPGW_CLIENT_SECRET: client.secret });
    return { sandbox, client, env };
  }

  it('login reads and sends no username or password, and auth status names the service account', async () => {
    const { sandbox, client, env } = await setUp();
    const login = await runInProcess(['login'], { ...env, DPGW_USERNAME: 'admin', DPGW_PASSWORD: 'never-sent-9876' });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/✓ signed in to realm \S+ as the service account of client dpgw-ci \(service-account-dpgw-ci\) \(groups: platform-admins\)/);
    const [grant] = tokenRequests(sandbox);
    expect(grant!.body).toMatchObject({ grant_type: 'client_credentials' });
    expect(grant!.formFields).not.toContain('username');
    expect(grant!.formFields).not.toContain('password');
    expect(login.stdout + login.stderr).not.toContain(client.secret);

    const status = await runInProcess(['auth', 'status', '--json'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ signedIn: true, username: 'service-account-dpgw-ci', serviceAccountOf: 'dpgw-ci', grant: 'client-credentials' });
    const human = await runInProcess(['auth', 'status'], env);
    expect(human.stdout).toMatch(/user +service-account-dpgw-ci +\(the service account of client dpgw-ci\)/);
  });

  it('a fresh cache needs no login: any command gets the service account\'s token by itself, and a new one when it ends', async () => {
    const { sandbox, client, env } = await setUp({ accessTokenLifetimeSeconds: 2 });
    const first = await runInProcess(['catalog', 'sources', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).map((s: { name: string }) => s.name)).toContain('mock-data-library');
    expect(tokenRequests(sandbox).map((r) => (r.body as Record<string, string> | undefined)?.grant_type)).toEqual(['client_credentials']);
    // Keycloak gives no refresh token for this grant: when the token ends, a new grant is the refresh.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const later = await runInProcess(['catalog', 'sources', '--json'], env);
    expect(later.code, later.stderr).toBe(0);
    expect(tokenRequests(sandbox).map((r) => (r.body as Record<string, string> | undefined)?.grant_type)).toEqual(['client_credentials', 'client_credentials']);
    expect(first.stdout + first.stderr + later.stdout + later.stderr).not.toContain(client.secret);
  });

  it("a one-off service-account command keeps apart from the person's session of the same profile", async () => {
    const { sandbox, env } = await setUp();
    const admin = sandbox.users.find((u) => u.username === 'admin')!;
    const backend = sandbox.clients.find((c) => c.clientId === sandbox.clientId)!;
    const person = { ...env, DPGW_GRANT: '', DPGW_CLIENT_ID: backend.clientId, DPGW_CLIENT_SECRET: backend.secret, DPGW_USERNAME: 'admin' };
    expect((await runInProcess(['login'], { ...person, DPGW_PASSWORD: admin.password })).code).toBe(0);
    expect((await runInProcess(['catalog', 'sources'], env)).code).toBe(0);
    const after = await runInProcess(['auth', 'status', '--json'], person);
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject({ username: 'admin', grant: 'password' });
    expect((await runInProcess(['catalog', 'sources'], person)).code).toBe(0);
    expect(JSON.parse((await runInProcess(['auth', 'status', '--json'], env)).stdout)).toMatchObject({ username: 'service-account-dpgw-ci' });
  });

  it('a client without a service account: one line that says what to switch on, exit 4, nothing cached', async () => {
    const { sandbox, env } = await setUp();
    const backend = sandbox.clients.find((c) => c.clientId === sandbox.clientId)!;
    const result = await runInProcess(['login'], { ...env, DPGW_CLIENT_ID: backend.clientId, DPGW_CLIENT_SECRET: backend.secret });
    expect(result.code).toBe(4);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/client dpgw-backend cannot sign in as its service account: .* — switch on "Client authentication" and "Service accounts roles"/);
    expect((await runInProcess(['auth', 'status'], env)).code).toBe(4);
  });
});

describe('--grant device: a code approved in a browser', () => {
  async function setUp() {
    const sandbox = await sandboxes.start({ accessTokenLifetimeSeconds: 3 });
    const env = identityEnv(sandbox, { DPGW_GRANT: 'device', DPGW_CLIENT_ID: DEVICE_CLIENT_ID });
    return { sandbox, env };
  }

  /** The user code dpgw printed, once the provider holds it. */
  async function waitForCode(sandbox: Sandbox): Promise<string> {
    for (let i = 0; i < 100; i++) {
      const [code] = sandbox.identity.pendingUserCodes();
      if (code) return code;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('no device code was asked for');
  }

  /** What the person does in the browser: the code, then their password (or deny). */
  const browser = (sandbox: Sandbox, form: Record<string, string>) => fetch(`${sandbox.authUrl}/auth/realms/${sandbox.realm}/device`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });

  it('prints where to go and the code, waits for the approval, signs in as the person who approved (PKCE, no client secret); a later command refreshes', async () => {
    const { sandbox, env } = await setUp();
    const analyst = sandbox.users.find((u) => u.username === 'analyst')!;
    const running = runInProcess(['login', '--json'], env);
    const code = await waitForCode(sandbox);
    expect((await browser(sandbox, { user_code: code, username: 'analyst', password: analyst.password })).status).toBe(200);
    const login = await running;
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`to sign in, open ${sandbox.authUrl}/auth/realms/${sandbox.realm}/device and enter the code ${code}`);
    expect(login.stderr).toContain(`or open ${sandbox.authUrl}/auth/realms/${sandbox.realm}/device?user_code=${code}`);
    expect(JSON.parse(login.stdout)).toMatchObject({ username: 'analyst', grant: 'device' });
    const deviceRequest = sandbox.requestLog.of('identity', `/auth/realms/${sandbox.realm}/protocol/openid-connect/auth/device`)[0]!;
    expect(deviceRequest.formFields).toEqual(expect.arrayContaining(['client_id', 'code_challenge', 'code_challenge_method']));
    expect(deviceRequest.formFields).not.toContain('client_secret');

    await new Promise((resolve) => setTimeout(resolve, 3_100));
    const later = await runInProcess(['catalog', 'sources'], env);
    expect(later.code, later.stderr).toBe(0);
    expect(tokenRequests(sandbox).map((r) => (r.body as Record<string, string> | undefined)?.grant_type).at(-1)).toBe('refresh_token');
  });

  it('--password-stdin under the device grant: refused at once, naming where the grant came from; no device code is asked for', async () => {
    const { sandbox, env } = await setUp();
    const login = await runInProcess(['login', '--password-stdin'], env);
    expect(login.code).toBe(2);
    expect(login.stderr).toBe('dpgw: --password-stdin: it reads a password, but grant device (env DPGW_GRANT) signs in without one — pass --grant password to sign in with the password, or leave out --password-stdin\n');
    expect(sandbox.identity.pendingUserCodes()).toEqual([]);
  });

  it('denied in the browser: one line, exit 4, nothing cached', async () => {
    const { sandbox, env } = await setUp();
    const running = runInProcess(['login'], env);
    const code = await waitForCode(sandbox);
    expect((await browser(sandbox, { user_code: code, deny: 'true' })).status).toBe(200);
    const login = await running;
    expect(login.code).toBe(4);
    expect(login.stderr.split('\n').filter((line) => line.startsWith('dpgw:'))).toEqual([expect.stringContaining('the sign-in was denied in the browser')]);
    expect((await runInProcess(['auth', 'status'], env)).code).toBe(4);
  });

  it('a client without the device grant: one line naming the switch, exit 4', async () => {
    const { sandbox, env } = await setUp();
    const web = sandbox.clients.find((c) => c.clientId === 'dpgw-web')!;
    const result = await runInProcess(['login'], { ...env, DPGW_CLIENT_ID: web.clientId, DPGW_CLIENT_SECRET: web.secret });
    expect(result.code).toBe(4);
    expect(result.stderr.trimEnd().split('\n').filter((line) => line.startsWith('dpgw:'))).toEqual([expect.stringMatching(/client dpgw-web may not use the device grant: .* — switch on "OAuth 2.0 Device Authorization Grant"/)]);
  });
});

describe('--grant', () => {
  it('a grant dpgw does not know: exit 2 naming where it was set', async () => {
    const result = await runInProcess(['auth', 'status'], cleanEnv({ DPGW_GRANT: 'implicit' }));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dpgw: DPGW_GRANT: grant "implicit" is not password, client-credentials or device/);
  });
});
