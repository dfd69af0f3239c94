/**
 * The session's token supplier against the sandbox's real identity provider: the
 * expiry it trusts is the token's own, and a token refused after it was replaced
 * costs no second refresh.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { login, sessionTokenSupplier, tokenCacheFor, type SessionContext } from '../../src/auth/session.js';
import { readClaims } from '../../src/auth/jwt-claims.js';
import { resolveSettings } from '../../src/settings/resolve-settings.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function signedIn(accessTokenLifetimeSeconds: number) {
  sandbox = await startSandbox({ accessTokenLifetimeSeconds });
  const home = mkdtempSync(join(tmpdir(), 'dpgw-session-'));
  const env = { DPGW_CONFIG_DIR: join(home, 'config'), XDG_CACHE_HOME: join(home, 'cache'), DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm, DPGW_CLIENT_ID: sandbox.clientId, DPGW_CLIENT_SECRET: sandbox.clientSecret };
  const context: SessionContext = { settings: await resolveSettings({ flags: {}, env }), env, warn: () => undefined };
  const admin = sandbox.users.find((u) => u.username === 'admin')!;
  await login(context, admin.username, admin.password);
  const grants = () => sandbox!.requestLog.of('identity').filter((e) => e.path.endsWith('/token')).map((e) => (e.body as { grant_type?: string }).grant_type);
  return { context, grants };
}

describe('the session token supplier', () => {
  it("never takes an expiry later than the token's own exp, nor than expires_in counted from the request", async () => {
    const before = Date.now();
    const { context } = await signedIn(60);
    const session = await tokenCacheFor(context).read();
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
});
