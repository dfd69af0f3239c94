/** The sandbox identity provider over HTTP: discovery, JWKS, the password and refresh grants, Keycloak's errors. */
import { setTimeout as sleep } from 'node:timers/promises';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_DIRECT_GRANTS_CLIENT_ID, startSandbox, TRACK_GROUP, type Sandbox } from '../../src/sandbox/sandbox.js';
import { call, passwordGrant } from '../helpers/sandbox-http.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ accessTokenLifetimeSeconds: 120, refreshTokenLifetimeSeconds: 600 });
});
afterAll(() => sandbox.close());

describe('discovery and keys', () => {
  it('publishes the realm, its token endpoint and an RS256 key', async () => {
    const discovery = await call('GET', `${sandbox.issuer}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(discovery.body.issuer).toBe(`${sandbox.authUrl}/auth/realms/data-platform`);
    expect(discovery.body.token_endpoint).toBe(`${sandbox.authUrl}/auth/realms/data-platform/protocol/openid-connect/token`);
    expect(discovery.body.grant_types_supported).toEqual(expect.arrayContaining(['password', 'refresh_token']));
    const jwks = await call('GET', discovery.body.jwks_uri);
    expect(jwks.body.keys).toHaveLength(1);
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.body.keys[0].d).toBeUndefined();
  });
});

describe('the password grant', () => {
  it('issues a signed access token with groups, issuer, audience and expiry', async () => {
    const before = Math.floor(Date.now() / 1000);
    const answer = await passwordGrant(sandbox, 'analyst');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ token_type: 'Bearer', expires_in: 120, refresh_expires_in: 600, scope: expect.stringContaining('openid') });
    expect(typeof answer.body.refresh_token).toBe('string');
    expect(typeof answer.body.id_token).toBe('string');

    const jwks = createLocalJWKSet((await call('GET', `${sandbox.issuer}/protocol/openid-connect/certs`)).body);
    const { payload, protectedHeader } = await jwtVerify(answer.body.access_token, jwks, { issuer: sandbox.issuer, audience: 'data-platform-gateway' });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.groups).toEqual([TRACK_GROUP]);
    expect(payload.preferred_username).toBe('analyst');
    expect(payload.azp).toBe(sandbox.clientId);
    expect(payload.exp! - payload.iat!).toBe(120);
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    // A token signed by anyone else fails verification.
    const [header, body] = (answer.body.access_token as string).split('.');
    await expect(jwtVerify(`${header}.${body}.${Buffer.from('forged').toString('base64url')}`, jwks)).rejects.toThrow();
    expect(decodeProtectedHeader(answer.body.refresh_token).typ).toBe('Refresh');
  });

  it('receives the contract form fields and logs them with secrets masked', async () => {
    sandbox.requestLog.clear();
    await passwordGrant(sandbox, 'admin');
    const [entry] = sandbox.requestLog.of('identity', '/auth/realms/data-platform/protocol/openid-connect/token');
    expect(entry!.formFields).toEqual(['username', 'password', 'client_secret', 'client_id', 'scope', 'grant_type']);
    expect(entry!.body).toEqual({ username: 'admin', password: '***', client_secret: '***', client_id: sandbox.clientId, scope: 'openid', grant_type: 'password' });
    expect(JSON.stringify(sandbox.requestLog.entries)).not.toContain(sandbox.users[0]!.password);
  });

  it('accepts the client secret by HTTP Basic as well', async () => {
    const admin = sandbox.users[0]!;
    const form = new URLSearchParams({ username: admin.username, password: admin.password, scope: 'openid', grant_type: 'password' });
    const basic = Buffer.from(`${sandbox.clientId}:${sandbox.clientSecret}`).toString('base64');
    expect((await call('POST', sandbox.tokenEndpoint, { form, headers: { authorization: `Basic ${basic}` } })).status).toBe(200);
  });
});

describe("Keycloak's error answers", () => {
  it('wrong password: 401 invalid_grant', async () => {
    const answer = await passwordGrant(sandbox, 'admin', { password: 'wrong-password' });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
    expect((await passwordGrant(sandbox, 'nobody')).body.error_description).toBe('Invalid user credentials');
  });

  it('bad client secret: 401 unauthorized_client; unknown client: 401 invalid_client', async () => {
    const badSecret = await passwordGrant(sandbox, 'admin', { client_secret: 'not-the-secret' });
    expect(badSecret.status).toBe(401);
    expect(badSecret.body).toEqual({ error: 'unauthorized_client', error_description: 'Invalid client or Invalid client credentials' });
    const unknown = await passwordGrant(sandbox, 'admin', { client_id: 'who' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
  });

  it('direct access grants disabled: 400 unauthorized_client', async () => {
    const web = sandbox.clients.find((c) => c.clientId === NO_DIRECT_GRANTS_CLIENT_ID)!;
    const answer = await passwordGrant(sandbox, 'admin', { client_id: web.clientId, client_secret: web.secret });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'unauthorized_client', error_description: 'Client not allowed for direct access grants' });
  });

  it('unknown realm: 404 Realm does not exist', async () => {
    const answer = await call('POST', `${sandbox.authUrl}/auth/realms/nope/protocol/openid-connect/token`, { form: new URLSearchParams({ grant_type: 'password' }) });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'Realm does not exist' });
    expect((await call('GET', `${sandbox.authUrl}/auth/realms/nope/.well-known/openid-configuration`)).status).toBe(404);
  });

  it('unsupported or missing grant type', async () => {
    expect((await passwordGrant(sandbox, 'admin', { grant_type: 'urn:example:no-such-grant' })).body).toEqual({ error: 'unsupported_grant_type', error_description: 'Unsupported grant_type' });
    // A client without a service account, as Keycloak answers it.
    expect((await passwordGrant(sandbox, 'admin', { grant_type: 'client_credentials' })).body).toEqual({ error: 'unauthorized_client', error_description: 'Client not enabled to retrieve service account' });
    const missing = await call('POST', sandbox.tokenEndpoint, { form: new URLSearchParams({ client_id: sandbox.clientId }) });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
  });
});

describe('the refresh_token grant', () => {
  const refresh = (token: string) =>
    call('POST', sandbox.tokenEndpoint, { form: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: sandbox.clientId, client_secret: sandbox.clientSecret }) });

  it('issues new tokens once; a spent refresh token is "not active"', async () => {
    const first = await passwordGrant(sandbox, 'analyst');
    const second = await refresh(first.body.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.access_token).not.toBe(first.body.access_token);
    const spent = await refresh(first.body.refresh_token);
    expect(spent.status).toBe(400);
    expect(spent.body).toEqual({ error: 'invalid_grant', error_description: 'Token is not active' });
    expect((await refresh(second.body.refresh_token)).status).toBe(200);
  });

  it('an expired refresh token or an ended session is "not active"', async () => {
    const shortLived = await startSandbox({ refreshTokenLifetimeSeconds: 1 });
    try {
      const grant = await passwordGrant(shortLived, 'admin');
      await sleep(2_100);
      const answer = await call('POST', shortLived.tokenEndpoint, {
        form: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: grant.body.refresh_token, client_id: shortLived.clientId, client_secret: shortLived.clientSecret }),
      });
      expect(answer.body).toEqual({ error: 'invalid_grant', error_description: 'Token is not active' });
    } finally {
      await shortLived.close();
    }
    const grant = await passwordGrant(sandbox, 'outsider');
    sandbox.identity.endSessions('outsider');
    expect((await refresh(grant.body.refresh_token)).body.error_description).toBe('Token is not active');
  });
});

describe('a slow token endpoint', () => {
  it('answers after the injected delay', async () => {
    sandbox.faults.update({ tokenDelayMs: 300 });
    try {
      const started = Date.now();
      expect((await passwordGrant(sandbox, 'admin')).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      sandbox.faults.reset();
    }
  });
});
