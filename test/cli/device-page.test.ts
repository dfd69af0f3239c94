/**
 * The sandbox's device sign-in page, over real HTTP as a browser reads it (its Accept names
 * text/html): the form with the code from the address (escaped), the answers to Approve, Deny,
 * a wrong password and an unknown code, and the built `dpgw login --grant device` that waits
 * for it. Scripts keep the JSON answers (test/cli/grants.test.ts posts as curl does).
 * The same page in a real browser: test/e2e/device-sign-in-browser.test.ts.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEVICE_CLIENT_ID, type Sandbox } from '../../src/sandbox/sandbox.js';
import { BIN, cleanEnv, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { startDpgw } from '../helpers/waiting-dpgw.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

/** What Chromium sends for a page it navigates to. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

const pageOf = (sandbox: Sandbox) => `${sandbox.authUrl}/auth/realms/${sandbox.realm}/device`;

function post(sandbox: Sandbox, form: Record<string, string>, accept = BROWSER_ACCEPT) {
  return fetch(pageOf(sandbox), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept }, body: new URLSearchParams(form) });
}

/** The built dpgw waiting for a person, and the address and code it printed. */
async function waitingLogin(sandbox: Sandbox) {
  const env = cleanEnv({ DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm });
  const login = startDpgw(['login', '--grant', 'device', '--client-id', DEVICE_CLIENT_ID], env);
  const [, address, code] = await login.stderrMatch(/or open (\S+\?user_code=(\S+))/);
  return { login, env, address: address!, code: code! };
}

describe('the device page a person opens', () => {
  it('GET shows the form with the code from the address, escaped, under headers that forbid framing and scripts', async () => {
    const sandbox = await sandboxes.start();
    const hostile = `"><script>alert(1)</script><img src=x onerror=alert(2)>'&`;
    const response = await fetch(`${pageOf(sandbox)}?user_code=${encodeURIComponent(hostile)}`, { headers: { accept: BROWSER_ACCEPT } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; form-action 'self'; frame-ancestors 'self'/);
    const html = await response.text();
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain('value="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#60;img src=x onerror=alert(2)&#62;&#39;&#38;"');
    // A code no device waits for is said at once, before anyone types a password.
    expect(html).toMatch(/No sign-in waits for code <code>&#34;&#62;&#60;script.*<\/code>: it is unknown, expired or already decided/);
    expect(html).toMatch(/<form method="post">/);
    expect(html).toMatch(/<button type="submit" name="approve" value="true" id="approve">Approve<\/button>/);
    expect(html).toMatch(/<button type="submit" name="deny" value="true" id="deny" formnovalidate>Deny<\/button>/);
  });

  it('the address dpgw printed names the client that asked and warns against approving a code someone sent (RFC 8628 §5.4); an unknown code names none', async () => {
    const sandbox = await sandboxes.start();
    const { login, address, code } = await waitingLogin(sandbox);
    const form = await (await fetch(address, { headers: { accept: BROWSER_ACCEPT } })).text();
    expect(form).toContain(`<p class="info">Client <code>${DEVICE_CLIENT_ID}</code> asks to sign in. Approve only a code your own <code>dpgw login --grant device</code> printed: approving a code someone sent you signs them in as you.</p>`);
    const unknown = await (await fetch(`${pageOf(sandbox)}?user_code=BCDF-GHJK`, { headers: { accept: BROWSER_ACCEPT } })).text();
    expect(unknown).not.toContain('asks to sign in');
    expect(unknown).toContain('<p class="error" role="alert">No sign-in waits for code');
    // Denied, so the waiting dpgw ends.
    expect((await post(sandbox, { user_code: code, deny: 'true' })).status).toBe(200);
    expect((await login.done).code).toBe(4);
  });

  it('the address dpgw printed: the code prefilled; a wrong password says so and keeps the code; Approve signs the waiting built dpgw in (exit 0)', async () => {
    const sandbox = await sandboxes.start();
    const analyst = sandbox.users.find((u) => u.username === 'analyst')!;
    const { login, env, address, code } = await waitingLogin(sandbox);
    expect(address).toBe(`${pageOf(sandbox)}?user_code=${code}`);
    const form = await (await fetch(address, { headers: { accept: BROWSER_ACCEPT } })).text();
    expect(form).toContain(`name="user_code" value="${code}"`);
    expect(form).not.toContain('No sign-in waits');

    const wrong = await post(sandbox, { user_code: code, username: 'analyst', password: 'not-the-password', approve: 'true' });
    expect(wrong.status).toBe(401);
    const wrongPage = await wrong.text();
    expect(wrongPage).toContain('Wrong username or password');
    expect(wrongPage).toContain(`name="user_code" value="${code}"`);
    expect(wrongPage).toContain('name="username" value="analyst"');
    expect(wrongPage).not.toContain('not-the-password');

    const approved = await post(sandbox, { user_code: code, username: 'analyst', password: analyst.password, approve: 'true' });
    expect(approved.status).toBe(200);
    expect(await approved.text()).toMatch(/<p id="outcome">Approved as <strong>analyst<\/strong>/);
    const result = await login.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/signed in .* as analyst/);
    // Decided once: the page says the code waits no more.
    const again = await post(sandbox, { user_code: code, username: 'analyst', password: analyst.password, approve: 'true' });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('No sign-in waits for code');
    const status = await spawnDpgw(['auth', 'status', '--json'], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ signedIn: true, username: 'analyst', grant: 'device' });
  });

  it('Deny (no password needed) says so, and the waiting built dpgw exits 4', async () => {
    const sandbox = await sandboxes.start();
    const { login, code } = await waitingLogin(sandbox);
    const denied = await post(sandbox, { user_code: code, username: '', password: '', deny: 'true' });
    expect(denied.status).toBe(200);
    expect(await denied.text()).toMatch(/<h1>Sign-in denied<\/h1>/);
    const result = await login.done;
    expect(result.code, result.stderr).toBe(4);
  });

  it('an unknown code: the form again, saying so; a script (Accept */*) still gets the JSON answers', async () => {
    const sandbox = await sandboxes.start();
    const admin = sandbox.users.find((u) => u.username === 'admin')!;
    const unknown = await post(sandbox, { user_code: 'BCDF-GHJK', username: 'admin', password: admin.password, approve: 'true' });
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await unknown.text()).toMatch(/No sign-in waits for code <code>BCDF-GHJK<\/code>[^]*name="user_code" value="BCDF-GHJK"/);

    const script = await post(sandbox, { user_code: 'BCDF-GHJK', username: 'admin', password: admin.password }, '*/*');
    expect([script.status, script.headers.get('content-type'), await script.json()]).toEqual([400, 'application/json', { error: 'invalid_code' }]);
    const wrong = await post(sandbox, { user_code: 'BCDF-GHJK', username: 'admin', password: 'nope' }, '*/*');
    expect([wrong.status, await wrong.json()]).toEqual([401, { error: 'invalid_grant', error_description: 'Invalid user credentials' }]);
  });
});

describe("dpgw sandbox's banner", () => {
  /** The built `dpgw sandbox` on free ports, read up to the end of its banner, then stopped as Ctrl-C does. */
  async function banner(args: string[], env = cleanEnv(), whileRunning?: (text: string) => Promise<void>): Promise<string> {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--auth-port', '0', '--query-port', '0', '--dashboard-port', '0', '--stream-port', '0', ...args], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const shown = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          if (/made current|export DPGW_DASHBOARD_PASSWORD\n/.test(text)) resolve(text);
        });
        void exited.then((code) => reject(new Error(`sandbox exited ${code}: ${text}`)));
      });
      await whileRunning?.(shown);
      return shown;
    } finally {
      child.kill('SIGINT');
      await exited;
    }
  }

  it('says how to approve a device sign-in and that its state is gone when it stops; the device profile it names signs in, and profile sbx still signs in by its password', async () => {
    const env = cleanEnv();
    const text = await banner(['--write-profile', 'sbx'], env, async (shown) => {
      const command = /device sign-in: `dpgw (--profile sbx-device login)`/.exec(shown)![1]!.split(' ');
      const login = startDpgw(command, env);
      const [, address] = await login.stderrMatch(/or open (\S+\?user_code=\S+)/);
      const password = /^ {2}admin +(\S+)/m.exec(shown)![1]!;
      const code = new URL(address!).searchParams.get('user_code')!;
      const approved = await fetch(address!.split('?')[0]!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT }, body: new URLSearchParams({ user_code: code, username: 'admin', password, approve: 'true' }) });
      expect(approved.status).toBe(200);
      const result = await login.done;
      expect(result.code, result.stderr).toBe(0);
      // The main profile was not touched: no device grant saved to it.
      const main = await spawnDpgw(['config', 'show', '--profile', 'sbx', '--json'], { env });
      expect(JSON.parse(main.stdout)).not.toMatchObject({ grant: expect.anything() });
      expect(main.stdout).not.toContain('"device"');
    });
    const identity = /^ {2}identity +(\S+)$/m.exec(text)![1]!;
    // A profile of its own: trying the device grant leaves profile sbx signing in by its password.
    expect(text).toContain(`device sign-in: \`dpgw --profile sbx-device login\` prints an address (${identity}/device?user_code=…);\n`);
    expect(text).toContain('  open it in a browser, sign in there as admin (the profile\'s user) with their password, and Approve (or Deny)\n');
    expect(text).toContain('in memory only: sessions, schemas, tables, topics and their messages are gone when the sandbox stops;\n  the next start begins empty, with new passwords, so sign in again after it\n');
  });
});
