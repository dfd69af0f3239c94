/**
 * What the end-to-end test files share: the gateway (the sandbox in backed mode) in
 * front of the real components, and the environment of the admin who provisions on it.
 */
import { inject } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/sandbox.js';
// @ts-expect-error -- a plain ESM script of the project (scripts/), typed by its JSDoc
import { kafkaStream, opaGrants, pinotStore } from '../../scripts/platform/backing.mjs';
import { cleanEnv } from '../helpers/run-dpgw.js';

/** The backed gateway: Keycloak's tokens, Kafka's topics, Pinot's controller and broker, and (with `grants`) OPA's data for the platform's permissions. */
export async function startBackedGateway({ grants = false, ...options }: Omit<SandboxOptions, 'backing'> & { grants?: boolean } = {}): Promise<Sandbox> {
  const [keycloak, kafka, pinot, opa] = [inject('keycloak'), inject('kafka'), inject('pinot'), inject('opa')];
  const issuer = `${keycloak.authUrl}/auth/realms/${keycloak.realm}`;
  return startSandbox({
    topicDelayMs: 0,
    ...options,
    backing: {
      identity: { issuer, jwksUri: `${issuer}/protocol/openid-connect/certs` },
      stream: await kafkaStream(kafka),
      store: pinotStore(pinot.controller, pinot.broker),
      ...(grants ? { onGranted: opaGrants(opa.url) } : {}),
    },
  });
}

/** The environment of the admin who provisions, as a pipeline sets it: settings as DPGW_*, the password in DPGW_PASSWORD. */
export function adminEnv(gatewayUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const [keycloak, kafka] = [inject('keycloak'), inject('kafka')];
  return cleanEnv({
    DPGW_GATEWAY: gatewayUrl,
    DPGW_AUTH_URL: keycloak.authUrl,
    DPGW_REALM: keycloak.realm,
    DPGW_CLIENT_ID: keycloak.clientId,
    DPGW_CLIENT_SECRET: keycloak.clientSecret,
    DPGW_USERNAME: 'admin',
    DPGW_PASSWORD: keycloak.users.find((u) => u.username === 'admin')!.password,
    DPGW_STREAM_TYPE: 'kafka',
    DPGW_BROKER_LIST: kafka.brokerList,
    DPGW_REGISTRY_URL: 'http://127.0.0.1:8081',
    DPGW_STREAM_USER: kafka.streamUser,
    ...extra,
  });
}

/** What Pinot's controller itself holds for a table (`{}` when none). */
export async function pinotTable(name: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${inject('pinot').controller}/tables/${name}`)).json()) as Record<string, unknown>;
}

/** The status Pinot's controller answers for a schema: 200 when it holds it. */
export async function pinotSchemaStatus(name: string): Promise<number> {
  return (await fetch(`${inject('pinot').controller}/schemas/${name}`)).status;
}
