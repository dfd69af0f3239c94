/**
 * `dpgw login --grant device` on the sandbox, finished by a person in a real browser: Debian's
 * Chromium, headless, driven by puppeteer-core (scripts/platform/chromium.mjs installs it; the
 * tier's global setup hands its path here). The browser opens the address dpgw printed, the
 * code is there, it signs in as a sandbox user and approves (or denies without a password);
 * the waiting built dpgw then succeeds and `dpgw auth status` names the approving user.
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEVICE_CLIENT_ID, startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { cleanEnv, spawnDpgw } from '../helpers/run-dpgw.js';
import { startDpgw } from '../helpers/waiting-dpgw.js';

const chromium = inject('chromium');

let browser: Browser;
let sandbox: Sandbox;

beforeAll(async () => {
  browser = await puppeteer.launch({
    executablePath: chromium.executable,
    headless: true,
    // Chromium refuses to start its sandbox as root (this tier runs as root in CI); its own sandbox is not what is tested here.
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  sandbox = await startSandbox({ topicDelayMs: 0 });
});

afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

/** Each test's page, with what the browser said in its console (a blocked style or script would be there) and any dialog a script opened. */
let opened: { page: Page; console: string[]; dialogs: string[] } | undefined;
afterEach(async () => {
  await opened?.page.close();
  opened = undefined;
});

async function openPage(address: string) {
  const page = await browser.newPage();
  opened = { page, console: [], dialogs: [] };
  const { console: said, dialogs } = opened;
  page.on('console', (message) => said.push(`${message.type()}: ${message.text()}`));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const response = await page.goto(address, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  return opened;
}

/** The built dpgw waiting for a person, and the address it printed. */
async function waitingLogin() {
  const env = cleanEnv({ DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm });
  const login = startDpgw(['login', '--grant', 'device', '--client-id', DEVICE_CLIENT_ID], env);
  const [, address, code] = await login.stderrMatch(/or open (\S+\?user_code=(\S+))/);
  return { login, env, address: address!, code: code! };
}

describe(`the sandbox's device sign-in in ${chromium.version}`, () => {
  it('opens the address dpgw printed, signs in as a sandbox user, approves: the waiting dpgw login exits 0 and auth status names the user', async () => {
    const analyst = sandbox.users.find((u) => u.username === 'analyst')!;
    const { login, env, address, code } = await waitingLogin();
    const { page, console: said } = await openPage(address);
    expect(await page.title()).toContain('Sign in a device');
    expect(await page.$eval('#user_code', (input) => (input as unknown as { value: string }).value)).toBe(code);

    await page.type('#username', analyst.username);
    await page.type('#password', analyst.password);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#approve')]);
    expect(await page.$eval('#outcome', (p) => p.textContent)).toMatch(/^Approved as analyst: the waiting dpgw login finishes signed in as this user/);

    const result = await login.done;
    expect(result.code, result.stderr).toBe(0);
    const status = await spawnDpgw(['auth', 'status'], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/user +analyst\b/);
    // The page's one style passed its Content-Security-Policy (allowed by its hash): applied, and nothing refused.
    expect(await page.evaluate('getComputedStyle(document.body).maxWidth')).toBe('448px');
    expect(said.filter((line) => /Refused|Content Security Policy/i.test(line))).toEqual([]);
  });

  it('Deny needs no password (the required fields do not stop it): the page says so and the waiting dpgw login exits 4', async () => {
    const { login, address } = await waitingLogin();
    const { page } = await openPage(address);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#deny')]);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Sign-in denied');
    const result = await login.done;
    expect(result.code, result.stderr).toBe(4);
  });

  it('a code in the address that is markup stays text: shown in the field as typed, no script runs', async () => {
    const hostile = `"><img src=x onerror="alert('img')"><script>alert('script')</script>`;
    const { page, dialogs } = await openPage(`${sandbox.authUrl}/auth/realms/${sandbox.realm}/device?user_code=${encodeURIComponent(hostile)}`);
    expect(await page.$eval('#user_code', (input) => (input as unknown as { value: string }).value)).toBe(hostile);
    expect(await page.$$('img, script')).toHaveLength(0);
    expect(await page.$eval('[role=alert]', (p) => p.textContent)).toContain('No sign-in waits for code');
    expect(dialogs).toEqual([]);
  });
});
