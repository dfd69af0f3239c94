/** Talking to a sandbox over plain HTTP (fetch), independent of dpgw's own client. */
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { cleanEnv } from './run-dpgw.js';

export interface Json {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary JSON
  headers: Headers;
}

export async function passwordGrant(sandbox: Sandbox, username: string, overrides: Record<string, string> = {}): Promise<Json> {
  const user = sandbox.users.find((u) => u.username === username);
  const form = new URLSearchParams({
    username,
    password: user?.password ?? 'no-such-user',
    client_secret: sandbox.clientSecret,
    client_id: sandbox.clientId,
    scope: 'openid',
    grant_type: 'password',
    ...overrides,
  });
  return call('POST', sandbox.tokenEndpoint, { form });
}

export async function tokenFor(sandbox: Sandbox, username: string): Promise<string> {
  const answer = await passwordGrant(sandbox, username);
  if (answer.status !== 200) throw new Error(`no token for ${username}: ${JSON.stringify(answer.body)}`);
  return answer.body.access_token as string;
}

/** The sandbox's sign-in settings as DPGW_* variables (gateway, identity provider, realm, backend client), as a person's shell or a pipeline sets them, in a clean environment. */
export function signInEnv(sandbox: Sandbox, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv({
    DPGW_GATEWAY: sandbox.gatewayUrl,
    DPGW_AUTH_URL: sandbox.authUrl,
    DPGW_REALM: sandbox.realm,
    DPGW_CLIENT_ID: sandbox.clientId,
    DPGW_CLIENT_SECRET: sandbox.clientSecret,
    ...extra,
  });
}

/** The environment of an admin pipeline on the sandbox: gateway, a token, and the table's stream settings, in a clean environment. */
export async function adminPipelineEnv(sandbox: Sandbox): Promise<NodeJS.ProcessEnv> {
  return cleanEnv({
    DPGW_GATEWAY: sandbox.gatewayUrl,
    DPGW_TOKEN: await tokenFor(sandbox, 'admin'),
    DPGW_BROKER_LIST: sandbox.stream.brokerList,
    DPGW_REGISTRY_URL: sandbox.stream.registryUrl,
    DPGW_STREAM_USER: sandbox.stream.user,
    DPGW_STREAM_PASSWORD: sandbox.stream.password,
  });
}

export async function call(method: string, url: string, options: { token?: string; json?: unknown; form?: URLSearchParams; headers?: Record<string, string> } = {}): Promise<Json> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = options.form.toString();
  }
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** A request that may change the platform: any but a read (GET) and the store's read-only validate calls, which a plan sends (issue #47 §3). */
export const changesThePlatform = (entry: { method: string; path: string }): boolean => entry.method !== 'GET' && !/\/(tableConfigs|schemas|tables)\/validate$/.test(entry.path);
