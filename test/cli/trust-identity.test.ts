/**
 * Discovery does not decide where the password goes: every endpoint dpgw sends a secret
 * or a token to has the origin of --auth-url and lies under the realm's path, and the
 * discovered issuer is the realm's. A provider that advertises anything else is refused
 * in one line naming what it advertised, and nothing is sent there.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runInProcess } from '../helpers/run-dpgw.js';

const REALM = 'test';
const REALM_PATH = `/auth/realms/${REALM}`;
const PASSWORD = 'person-password-9876';
const CLIENT_SECRET = 'client-secret-5432';

interface Server {
  url: string;
  requests: Array<{ method: string; path: string; body: string }>;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function server(answer: (method: string, path: string, self: Server) => { status: number; body: unknown } = () => ({ status: 200, body: { access_token: 'stolen', token_type: 'Bearer', expires_in: 300 } })): Promise<Server> {
  const state: Server = { url: '', requests: [] };
  const instance = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      state.requests.push({ method: request.method ?? '', path: request.url ?? '', body });
      const reply = answer(request.method ?? '', request.url ?? '', state);
      response.writeHead(reply.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => instance.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(instance.address() as AddressInfo).port}`;
  closers.push(() => new Promise<void>((resolve) => (instance.closeAllConnections(), instance.close(() => resolve()))));
  return state;
}

/** A provider whose discovery document is built by `metadata` from its own issuer; its own token endpoint issues a token. */
async function provider(metadata: (issuer: string, origin: string) => Record<string, unknown>): Promise<Server> {
  return server((method, path, self) => {
    const issuer = `${self.url}${REALM_PATH}`;
    if (path === `${REALM_PATH}/.well-known/openid-configuration`) return { status: 200, body: metadata(issuer, self.url) };
    if (method === 'POST' && path === `${REALM_PATH}/protocol/openid-connect/token`) return { status: 200, body: { access_token: 'honest-access-token', token_type: 'Bearer', expires_in: 300 } };
    return { status: 404, body: { error: 'not found' } };
  });
}

function login(authUrl: string) {
  return runInProcess(
    ['login', '--auth-url', authUrl, '--realm', REALM, '--client-id', 'dpgw', '--username', 'someone'],
    cleanEnv({ DPGW_PASSWORD: PASSWORD, DPGW_CLIENT_SECRET: CLIENT_SECRET, DPGW_GATEWAY: 'http://127.0.0.1:9' }),
  );
}

const passwordSentTo = (target: Server) => target.requests.filter((r) => r.body.includes(PASSWORD) || r.body.includes(CLIENT_SECRET));

describe('login sends the password only to the realm of --auth-url', () => {
  it('a token endpoint on another host is refused in one line naming its origin; nothing is sent to it', async () => {
    const elsewhere = await server();
    const idp = await provider((issuer) => ({ issuer, token_endpoint: `${elsewhere.url}${REALM_PATH}/protocol/openid-connect/token` }));
    const result = await login(idp.url);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`advertises its token endpoint at ${elsewhere.url}, not at the origin of --auth-url (${idp.url})`);
    expect(elsewhere.requests).toEqual([]);
    expect(passwordSentTo(idp)).toEqual([]);
    expect(result.stderr).not.toContain(PASSWORD);
  });

  it.each([
    ['another realm', (issuer: string, origin: string) => ({ issuer, token_endpoint: `${origin}/auth/realms/other/protocol/openid-connect/token` })],
    ['a path that climbs out of the realm', (issuer: string) => ({ issuer, token_endpoint: `${issuer}/%2e%2e/other/protocol/openid-connect/token` })],
    ['the realm path without its slash', (issuer: string) => ({ issuer, token_endpoint: `${issuer}-evil/protocol/openid-connect/token` })],
    ['credentials in the URL', (issuer: string) => ({ issuer, token_endpoint: issuer.replace('http://', 'http://user:pw@') + '/protocol/openid-connect/token' })],
  ])('a token endpoint in %s is refused', async (_what, metadata) => {
    const idp = await provider(metadata);
    const result = await login(idp.url);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/advertises its token endpoint at .*(outside realm test|not at the origin)/);
    expect(passwordSentTo(idp)).toEqual([]);
  });

  it.each([
    ['end-session endpoint', 'end_session_endpoint'],
    ['device authorization endpoint', 'device_authorization_endpoint'],
  ])('the %s on another host is refused too', async (what, field) => {
    const elsewhere = await server();
    const idp = await provider((issuer) => ({ issuer, token_endpoint: `${issuer}/protocol/openid-connect/token`, [field]: `${elsewhere.url}/logout` }));
    const result = await login(idp.url);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toContain(`advertises its ${what} at ${elsewhere.url}`);
    expect(elsewhere.requests).toEqual([]);
    expect(passwordSentTo(idp)).toEqual([]);
  });

  it('an issuer that is not the realm of --auth-url is refused', async () => {
    const elsewhere = await server();
    const idp = await provider(() => ({ issuer: `${elsewhere.url}${REALM_PATH}`, token_endpoint: `${elsewhere.url}${REALM_PATH}/protocol/openid-connect/token` }));
    const result = await login(idp.url);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/issuer/);
    expect(elsewhere.requests).toEqual([]);
    expect(passwordSentTo(idp)).toEqual([]);
  });

  it('a provider whose endpoints are its own realm\'s signs in (the password goes there, once)', async () => {
    const idp = await provider((issuer) => ({ issuer, token_endpoint: `${issuer}/protocol/openid-connect/token`, end_session_endpoint: `${issuer}/protocol/openid-connect/logout` }));
    const result = await login(idp.url);
    expect(result.code, result.stderr).toBe(0);
    expect(passwordSentTo(idp).map((r) => `${r.method} ${r.path}`)).toEqual([`POST ${REALM_PATH}/protocol/openid-connect/token`]);
  });
});
