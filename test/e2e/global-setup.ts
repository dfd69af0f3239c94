/**
 * The end-to-end tier's platform: the real components, started once for the
 * whole tier: Keycloak, Kafka, Pinot and OPA side by side, then Trino (it reads
 * Keycloak's keys and Pinot's tables at start) from the access-control.properties
 * that `dpgw access-control render` wrote. A component that cannot be had fails the tier.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
// @ts-expect-error -- a plain ESM script of the project (scripts/), typed at its use
import { KEYCLOAK_VERSION, keycloakDistribution, startKeycloak } from '../../scripts/platform/keycloak.mjs';
// @ts-expect-error -- likewise
import { kafkaLibraries, startKafka } from '../../scripts/platform/kafka.mjs';
// @ts-expect-error -- likewise
import { pinotLibraries, startPinot } from '../../scripts/platform/pinot.mjs';
// @ts-expect-error -- likewise
import { opaBinary, startOpa } from '../../scripts/platform/opa.mjs';
// @ts-expect-error -- likewise
import { startTrino, trinoServer } from '../../scripts/platform/trino.mjs';
// @ts-expect-error -- likewise
import { chromiumExecutable } from '../../scripts/platform/chromium.mjs';
// @ts-expect-error -- likewise
import { createQueryEngineConnection, startSuperset, supersetInstallation } from '../../scripts/platform/superset.mjs';

export interface KeycloakSettings {
  authUrl: string;
  realm: string;
  clientId: string;
  clientSecret: string;
  webClientId: string;
  webClientSecret: string;
  serviceClientId: string;
  serviceClientSecret: string;
  /** A service account in platform-admins (dpgw --grant client-credentials). */
  ciClientId: string;
  ciClientSecret: string;
  /** A public client with the device grant (dpgw login --grant device). */
  deviceClientId: string;
  users: Array<{ username: string; password: string; groups: string[] }>;
  version: string;
  startSeconds: number;
}

export interface KafkaSettings {
  brokerList: string;
  streamUser: string;
  streamPassword: string;
  version: string;
  startSeconds: number;
}

export interface PinotSettings {
  controller: string;
  broker: string;
  version: string;
  startSeconds: number;
}

export interface OpaSettings {
  url: string;
  policyUri: string;
  batchedPolicyUri: string;
  version: string;
  startSeconds: number;
}

export interface TrinoSettings {
  url: string;
  caFile: string;
  catalog: string;
  /** The file dpgw rendered, and what the launcher made of it. */
  renderedFile: string;
  accessControl: { enabled: boolean; configFile?: string; engine?: string };
  version: string;
  startSeconds: number;
}

export interface SupersetSettings {
  url: string;
  /** Dashboard users (Alpha) named as the realm's users, with passwords of their own. */
  users: Array<{ username: string; password: string }>;
  /** The admin-made connection to Trino that impersonates each user. */
  database: string;
  version: string;
  startSeconds: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    keycloak: KeycloakSettings;
    kafka: KafkaSettings;
    pinot: PinotSettings;
    opa: OpaSettings;
    trino: TrinoSettings;
    superset: SupersetSettings;
    /** Debian's Chromium, for the tests that drive a real browser (scripts/platform/chromium.mjs). */
    chromium: { executable: string; version: string };
  }
}

/** The dashboard tool's service account at the query engine (Keycloak's name for client `superset`'s account). */
const DASHBOARD_SERVICE_USER = 'service-account-superset';

interface Running {
  stop: () => Promise<void>;
  startSeconds: number;
  log?: string;
}

async function clientCredentialsToken(keycloak: Omit<KeycloakSettings, 'version'>): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: keycloak.serviceClientId, client_secret: keycloak.serviceClientSecret });
  const response = await fetch(`${keycloak.authUrl}/auth/realms/${keycloak.realm}/protocol/openid-connect/token`, { method: 'POST', body: form });
  if (!response.ok) throw new Error(`no service token for the dashboard tool: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** A port on 127.0.0.1 that nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  console.log('[e2e] to start the parts by hand: npm run platform:keycloak | platform:kafka | platform:pinot | platform:opa | platform:trino (docs/e2e.md)');
  const started: Running[] = [];
  const stopAll = async () => {
    await Promise.all(started.map((c) => c.stop()));
  };
  const keep = async <T extends Running>(name: string, starting: Promise<T>): Promise<T> => {
    const component = await starting;
    started.push(component);
    console.log(`[e2e] ${name} started in ${component.startSeconds.toFixed(1)} s${component.log ? ` (log ${component.log})` : ''}`);
    return component;
  };
  // Downloads and builds first (a no-op on a warm cache), so no component's start-up
  // timeout counts another one's installation. The two Maven resolutions share ~/.m2,
  // which Maven does not lock: one after the other.
  const dashboardUsers = ['analyst', 'outsider'].map((username) => ({ username, password: randomBytes(12).toString('base64url'), role: 'Alpha' }));
  const installing = Date.now();
  await Promise.all([
    keycloakDistribution(),
    (async () => {
      await kafkaLibraries();
      await pinotLibraries();
    })(),
    opaBinary(),
    trinoServer(),
    supersetInstallation(),
    (async () => project.provide('chromium', (await chromiumExecutable()) as { executable: string; version: string }))(),
  ]);
  console.log(`[e2e] components installed (or found in ~/.cache/dpgw) in ${((Date.now() - installing) / 1000).toFixed(1)} s`);
  try {
    const keycloakPort = Number(process.env.DPGW_KEYCLOAK_PORT ?? (await freePort()));
    // Side by side; when one fails, the others are still stopped once they are up.
    const settled = await Promise.allSettled([
      keep(`Keycloak ${KEYCLOAK_VERSION}`, startKeycloak({ port: keycloakPort }) as Promise<Running & Omit<KeycloakSettings, 'version'>>),
      keep('Kafka', startKafka({ port: await freePort(), controllerPort: await freePort() }) as Promise<Running & KafkaSettings>),
      keep('Pinot', startPinot() as Promise<Running & PinotSettings>),
      keep('OPA', startOpa({ port: await freePort(), settings: { catalog: 'pinot', impersonators: [DASHBOARD_SERVICE_USER] } }) as Promise<Running & OpaSettings>),
      keep('Superset', startSuperset({ port: await freePort(), users: dashboardUsers }) as Promise<Running & { url: string; admin: { username: string; password: string }; version: string }>),
    ] as const);
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    const [keycloak, kafka, pinot, opa, superset] = settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as [
      Running & Omit<KeycloakSettings, 'version'>,
      Running & KafkaSettings,
      Running & PinotSettings,
      Running & OpaSettings,
      Running & { url: string; admin: { username: string; password: string }; version: string },
    ];
    const { stop: _k, ...keycloakSettings } = keycloak;
    project.provide('keycloak', { ...keycloakSettings, version: KEYCLOAK_VERSION });
    const { stop: _ka, ...kafkaSettings } = kafka;
    project.provide('kafka', kafkaSettings);
    const { stop: _p, ...pinotSettings } = pinot;
    project.provide('pinot', pinotSettings);
    const { stop: _o, ...opaSettings } = opa;
    project.provide('opa', opaSettings);

    // Contract step 1, as an operator does it: dpgw renders the coordinator file, the platform loads it.
    const renderedFile = join(mkdtempSync(join(tmpdir(), 'dpgw-e2e-access-')), 'access-control.properties');
    const render = spawnSync(process.execPath, [fileURLToPath(new URL('../../bin/dpgw', import.meta.url)), 'access-control', 'render', '--policy-uri', opa.policyUri, '--policy-batched-uri', opa.batchedPolicyUri, '-o', renderedFile], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DPGW_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'dpgw-e2e-config-')) },
    });
    if (render.status !== 0) throw new Error(`dpgw access-control render failed (${render.status}): ${render.stderr}`);
    const issuer = `${keycloak.authUrl}/auth/realms/${keycloak.realm}`;
    const groups: Record<string, string[]> = {};
    for (const user of keycloak.users) for (const group of user.groups) (groups[group] ??= []).push(user.username);
    const trino = await keep(
      'Trino',
      startTrino({ httpPort: await freePort(), httpsPort: await freePort(), jwt: { jwksUrl: `${issuer}/protocol/openid-connect/certs`, issuer }, accessControlFile: renderedFile, groups, pinot }) as Promise<Running & Omit<TrinoSettings, 'renderedFile'>>,
    );
    const { stop: _t, ...trinoSettings } = trino;
    project.provide('trino', { ...trinoSettings, renderedFile });

    // Contract step 9's tool: its connection to Trino, made by the admin, runs every query as the dashboard user.
    const serviceToken = await clientCredentialsToken(keycloak);
    const database = await createQueryEngineConnection({ url: superset.url, admin: superset.admin, engineUrl: trino.url, catalog: trino.catalog, caFile: trino.caFile, serviceToken, serviceUser: DASHBOARD_SERVICE_USER });
    project.provide('superset', { url: superset.url, users: dashboardUsers, database: database.name, version: superset.version, startSeconds: superset.startSeconds });
  } catch (error) {
    await stopAll();
    throw error;
  }
  return stopAll;
}
