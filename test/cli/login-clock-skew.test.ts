/**
 * Issue #30: an identity provider whose clock disagrees with this machine's. A minimal
 * OIDC provider on 127.0.0.1 issues unsigned JWT-shaped access tokens whose iat and exp
 * are on its own (wrong) clock; `dpgw login` must show the token's real expiry on this
 * machine's clock, say once that the clocks disagree, and the next command must use the
 * cached token instead of refreshing it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runInProcess, type RunResult } from '../helpers/run-dpgw.js';

interface Provider {
  url: string;
  /** grant_type of each token request, in order. */
  grants: string[];
  issued: string[];
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * `offsetMs`: how far the provider's clock is from this machine's (negative: behind).
 * `claims`: which of iat and exp the token carries.
 */
async function startProvider(offsetMs: number, { claims = ['iat', 'exp'] as Array<'iat' | 'exp'>, expiresIn = 300, idToken = false } = {}): Promise<Provider> {
  const grants: string[] = [];
  const issued: string[] = [];
  let url = '';
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const issuer = `${url}/auth/realms/test`;
      const json = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        response.end(JSON.stringify(value));
      };
      if (request.method === 'GET' && request.url === '/auth/realms/test/.well-known/openid-configuration') {
        return json(200, { issuer, token_endpoint: `${issuer}/protocol/openid-connect/token`, response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'] });
      }
      if (request.method === 'POST' && request.url === '/auth/realms/test/protocol/openid-connect/token') {
        const form = new URLSearchParams(body);
        grants.push(form.get('grant_type') ?? '');
        const now = Math.floor((Date.now() + offsetMs) / 1000);
        const payload: Record<string, unknown> = { iss: issuer, sub: 'someone-id', preferred_username: 'someone', groups: ['analysts'], jti: `t${grants.length}` };
        if (claims.includes('iat')) payload.iat = now;
        if (claims.includes('exp')) payload.exp = now + expiresIn;
        const accessToken = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(payload)}.c2ln`;
        issued.push(accessToken);
        // Keycloak answers scope openid with an id token on its own clock too (signed; its signature is not what is tested).
        const id = idToken ? { id_token: `${base64url({ alg: 'RS256', typ: 'JWT' })}.${base64url({ ...payload, aud: 'dpgw', azp: 'dpgw' })}.c2ln` } : {};
        return json(200, { access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn, refresh_token: `refresh-${grants.length}`, refresh_expires_in: 1800, scope: 'openid', ...id });
      }
      json(404, { error: 'not_found' });
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, grants, issued, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function env(): NodeJS.ProcessEnv {
  return cleanEnv({ DPGW_PASSWORD: 'pw-1234', DPGW_CLIENT_SECRET: 'cs-1234', DPGW_GATEWAY: 'http://127.0.0.1:9' });
}

function login(provider: Provider, environment: NodeJS.ProcessEnv, extra: string[] = []): Promise<RunResult> {
  return runInProcess(['login', '--auth-url', provider.url, '--realm', 'test', '--client-id', 'dpgw', '--username', 'someone', ...extra], environment);
}

/** The time the success line says the token is valid until, as the user reads it. */
function validUntil(result: RunResult): number {
  const match = /token valid until (\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ)/.exec(result.stderr);
  expect(match, result.stderr).not.toBeNull();
  return Date.parse(match![1]!.replace(' ', 'T'));
}

const warnings = (result: RunResult) => result.stderr.split('\n').filter((line) => line.startsWith('warning:'));

describe('dpgw login against an identity provider with another clock (issue #30)', () => {
  it('provider 10 minutes behind: the expiry shown is in the future, one warning says so, and `auth token` uses the cached token', async () => {
    const provider = await startProvider(-600_000);
    const environment = env();
    const before = Date.now();
    const result = await login(provider, environment);
    expect(result.code, result.stderr).toBe(0);
    const until = validUntil(result);
    // On this machine's clock: about expires_in from now, not 5 minutes ago.
    expect(until).toBeGreaterThan(before + 290_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 300_000);
    expect(warnings(result)).toEqual([expect.stringMatching(/^warning: the identity provider's clock is (9 min 5\d s|10 min( \d s)?) behind this machine's; token times are shown on this machine's clock$/)]);

    const token = await runInProcess(['auth', 'token'], environment);
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout).toBe(`${provider.issued[0]}\n`);
    // The cached token served: no refresh, no second sign-in.
    expect(provider.grants).toEqual(['password']);

    const status = await runInProcess(['auth', 'status', '--json'], environment);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ signedIn: true, accessTokenExpired: false });
  });

  it.each([-600_000, 600_000])('with an id token on the provider\'s clock (%i ms off) login still succeeds: dpgw relies on none of its time claims', async (offset) => {
    const provider = await startProvider(offset, { idToken: true });
    const result = await login(provider, env());
    expect(result.code, result.stderr).toBe(0);
    expect(validUntil(result)).toBeGreaterThan(Date.now());
    expect(warnings(result)).toHaveLength(1);
  });

  it('provider 10 minutes ahead: the expiry shown is expires_in from now, and one warning says the clocks disagree', async () => {
    const provider = await startProvider(600_000);
    const before = Date.now();
    const result = await login(provider, env(), ['--json']);
    expect(result.code, result.stderr).toBe(0);
    const data = JSON.parse(result.stdout) as { accessTokenExpiresAt: string; clockSkewMs?: number };
    const until = Date.parse(data.accessTokenExpiresAt);
    expect(until).toBeGreaterThan(before + 290_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 300_000);
    expect(data.clockSkewMs).toBeGreaterThan(595_000);
    expect(data.clockSkewMs).toBeLessThan(605_000);
    expect(warnings(result)).toEqual([expect.stringMatching(/^warning: the identity provider's clock is (9 min 5\d s|10 min( \d s)?) ahead of this machine's; token times are shown on this machine's clock$/)]);
  });

  it('a token without iat whose exp has passed on this machine\'s clock: expires_in is trusted, and the warning says the provider is behind', async () => {
    const provider = await startProvider(-600_000, { claims: ['exp'] });
    const environment = env();
    const before = Date.now();
    const result = await login(provider, environment);
    expect(result.code, result.stderr).toBe(0);
    const until = validUntil(result);
    expect(until).toBeGreaterThan(before + 290_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 300_000);
    expect(warnings(result)).toEqual([expect.stringMatching(/^warning: the identity provider's clock is behind this machine's .*; token times are shown on this machine's clock$/)]);
    const token = await runInProcess(['auth', 'token'], environment);
    expect(token.code, token.stderr).toBe(0);
    expect(provider.grants).toEqual(['password']);
  });

  it('clocks that agree: no warning, and the earlier of exp and expires_in', async () => {
    // Passes on the code before issue #30 too: the guard that the fix changes nothing here.
    const provider = await startProvider(0);
    const before = Date.now();
    const result = await login(provider, env(), ['--json']);
    expect(result.code, result.stderr).toBe(0);
    const data = JSON.parse(result.stdout) as { accessTokenExpiresAt: string; clockSkewMs?: number };
    expect(data.clockSkewMs).toBeUndefined();
    const exp = (JSON.parse(Buffer.from(provider.issued[0]!.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp;
    expect(Date.parse(data.accessTokenExpiresAt)).toBeLessThanOrEqual(exp * 1000);
    expect(Date.parse(data.accessTokenExpiresAt)).toBeGreaterThan(before + 298_000 - 1000);
    expect(warnings(result)).toEqual([]);
  });
});
