/**
 * The session's token supplier against the sandbox's real identity provider: the
 * expiry it trusts is the token's own, and a token refused after it was replaced
 * costs no second refresh.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionOptionsOf } from '../../src/settings/core-options.js';
import { login, sessionTokenSupplier, tokenCacheFor, type SessionContext } from '../../src/auth/session.js';
import { readClaims } from '../../src/auth/jwt-claims.js';
import { resolveSettings } from '../../src/settings/resolve-settings.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function signedIn(accessTokenLifetimeSeconds: number, extraEnv: Record<string, string> = {}) {
  sandbox = await startSandbox({ accessTokenLifetimeSeconds });
  const home = mkdtempSync(join(tmpdir(), 'dpgw-session-'));
  const env = { DPGW_CONFIG_DIR: join(home, 'config'), XDG_CACHE_HOME: join(home, 'cache'), DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm, DPGW_CLIENT_ID: sandbox.clientId, DPGW_CLIENT_SECRET: sandbox.clientSecret, ...extraEnv };
  const warnings: string[] = [];
  const context: SessionContext = { session: sessionOptionsOf(await resolveSettings({ flags: {}, env }), env), env, warn: (message) => warnings.push(message) };
  const password = (username: string) => sandbox!.users.find((u) => u.username === username)!.password;
  await login(context, 'admin', password('admin'));
  const grants = () => sandbox!.requestLog.of('identity').filter((e) => e.path.endsWith('/token')).map((e) => (e.body as { grant_type?: string }).grant_type);
  /** Moves the cached session's clock: its token nears its expiry (or is past it) without waiting for it. */
  const expiringIn = async (ms: number) => {
    const file = (await latestSession(context))!.file;
    const session = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...session, obtainedAt: new Date(Date.now() - 3_600_000).toISOString(), accessTokenExpiresAt: new Date(Date.now() + ms).toISOString() }), { mode: 0o600 });
  };
  return { context, grants, warnings, password, expiringIn };
}

const userOf = (token: string | undefined) => readClaims(token!)?.preferred_username;

/** The profile's latest sign-in, as the cache holds it. */
async function latestSession(context: SessionContext) {
  const sessions = await tokenCacheFor(context).sessions();
  return sessions.sort((a, b) => Date.parse(b.session.signedInAt!) - Date.parse(a.session.signedInAt!))[0];
}

describe('the session token supplier', () => {
  it("never takes an expiry later than the token's own exp, nor than expires_in counted from the request", async () => {
    const before = Date.now();
    const { context } = await signedIn(60);
    const session = (await latestSession(context))?.session;
    expect(session).toBeDefined();
    const exp = readClaims(session!.accessToken)!.exp! * 1000;
    const expiry = Date.parse(session!.accessTokenExpiresAt);
    expect(expiry).toBeLessThanOrEqual(exp);
    // exp has whole seconds: within one second of it, unless expires_in from the request's start was earlier still.
    expect(expiry).toBeGreaterThanOrEqual(Math.min(exp - 1000, before + 60_000));
  });

  it('refreshes once for a refused token, and hands the replacement to requests refused the old one', async () => {
    const { context, grants } = await signedIn(60);
    const supply = sessionTokenSupplier(context);
    const first = (await supply({ forceRefresh: false }))!;
    expect(grants()).toEqual(['password']);

    // The gateway refused `first`: one refresh.
    const second = (await supply({ forceRefresh: true, refused: first }))!;
    expect(second).not.toBe(first);
    expect(grants()).toEqual(['password', 'refresh_token']);

    // Other requests sent with `first` come back refused too: they get `second`, no new grant.
    const late = await Promise.all([supply({ forceRefresh: true, refused: first }), supply({ forceRefresh: true, refused: first })]);
    expect(late).toEqual([second, second]);
    expect(grants()).toEqual(['password', 'refresh_token']);

    // `second` itself refused: a new refresh.
    expect(await supply({ forceRefresh: true, refused: second })).not.toBe(second);
    expect(grants()).toEqual(['password', 'refresh_token', 'refresh_token']);
  });

  it('keeps its own identity: a `dpgw login` as someone else during the run is neither adopted nor overwritten', async () => {
    const { context, password } = await signedIn(60);
    const run = sessionTokenSupplier(context);
    const first = await run({ forceRefresh: false });
    expect(userOf(first)).toBe('admin');
    await login(context, 'analyst', password('analyst'));
    const refreshed = await run({ forceRefresh: true, refused: first });
    expect(refreshed).not.toBe(first);
    expect(userOf(refreshed)).toBe('admin');
    expect((await latestSession(context))!.session.username).toBe('analyst');
    // The first identity's session is still cached beside it: signing in as another replaced nothing.
    expect((await tokenCacheFor(context).sessions()).map((s) => s.session.username).sort()).toEqual(['admin', 'analyst']);
  });

  it('the identity provider down during a refresh: tries again, goes on with a token that is still valid, else exit 5 (not 4)', async () => {
    const { context, grants, warnings, expiringIn } = await signedIn(600);
    const current = await sessionTokenSupplier(context)({ forceRefresh: false });
    await expiringIn(10_000);
    sandbox!.faults.update({ tokenFailures: 100 });
    expect(await sessionTokenSupplier(context)({ forceRefresh: false })).toBe(current);
    expect(grants()).toEqual(['password', 'refresh_token', 'refresh_token', 'refresh_token']);
    expect(warnings).toEqual([expect.stringMatching(/^cannot refresh the token \(the identity provider answered 503 to the refresh at .*\); going on with the current one until it expires at /)]);
    // Refused by the gateway, or past its expiry: nothing to go on with.
    await expect(sessionTokenSupplier(context)({ forceRefresh: true, refused: current })).rejects.toMatchObject({ kind: 'network', exitCode: 5 });
    sandbox!.faults.update({ tokenFailures: 1 });
    await expiringIn(10_000);
    // Down for one attempt only: the second attempt refreshes.
    expect(await sessionTokenSupplier(context)({ forceRefresh: false })).not.toBe(current);
  });

  it('the identity provider restarted with new keys: a pipeline with DPGW_PASSWORD signs in again, others are told to log in', async () => {
    const { context, grants } = await signedIn(600, {});
    const stale = await sessionTokenSupplier(context)({ forceRefresh: false });
    await sandbox!.identity.forgetKeysAndSessions();
    await expect(sessionTokenSupplier(context)({ forceRefresh: true, refused: stale })).rejects.toMatchObject({ kind: 'auth', message: expect.stringContaining('the session has ended') });
    const admin = sandbox!.users.find((u) => u.username === 'admin')!;
    const env = { ...context.env, DPGW_USERNAME: 'admin', DPGW_PASSWORD: admin.password };
    const pipeline: SessionContext = { ...context, env, session: sessionOptionsOf(await resolveSettings({ flags: {}, env }), env) };
    const fresh = await sessionTokenSupplier(pipeline)({ forceRefresh: true, refused: stale });
    expect(userOf(fresh)).toBe('admin');
    expect(grants().slice(-1)).toEqual(['password']);
  });

  it("a token lock left by a killed dpgw is taken over at once: its process is gone", async () => {
    const { context, grants, expiringIn } = await signedIn(600);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(tokenCacheFor(context).lock, dead);
    await expiringIn(10_000);
    await sessionTokenSupplier(context)({ forceRefresh: false });
    expect(grants()).toEqual(['password', 'refresh_token']);
  });
});
