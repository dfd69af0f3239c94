/**
 * The dpgw sandbox: a local emulator of the platform (identity provider and
 * gateway) on 127.0.0.1, faithful to the gateway contract. `dpgw sandbox` runs
 * it in the foreground; tests import startSandbox and drive it over HTTP.
 */
import { randomBytes } from 'node:crypto';
import { Catalog, DEFAULT_SEED, type Permission, type SeedDataSource } from './catalog.js';
export type { Permission } from './catalog.js';
export type { StoreAnswer, StoreBackend } from './olap-store.js';
import { Faults, type FaultSettings } from './faults.js';
import { GatewayEmulator } from './gateway-emulator.js';
import { HealthChecks } from './health.js';
import { IdentityProvider, type SandboxClient, type SandboxUser } from './identity-provider.js';
import { memoryStoreBackend, OlapStore, type StoreBackend } from './olap-store.js';
import { decodedRows } from './consumption-emulation.js';
import { FEED_BACKLOG, FEED_PARTITIONS, feedMessages } from './stream/feed-messages.js';
import { StreamBroker } from './stream/stream-broker.js';
import { DashboardToolEmulator } from './dashboard-tool.js';
import { QueryAccessPolicy } from './query-access-policy.js';
import { QueryEngineEmulator, SANDBOX_POLICY_PATHS } from './query-engine.js';
import { RequestLog } from './request-log.js';

export type { SandboxClient, SandboxUser } from './identity-provider.js';

/** Older than 1.15.165 by default, so the storage touch of the workflow is exercised. */
export const DEFAULT_SANDBOX_PLATFORM_VERSION = '1.15.164';
export const DEFAULT_REALM = 'data-platform';
/** The analytics store's catalog in the sandbox's query engine (as a Trino with a Pinot catalog names it). */
export const DEFAULT_QUERY_CATALOG = 'pinot';
/** The dashboard tool's connection to the query engine (as an admin names it on a platform). */
export const DEFAULT_DASHBOARD_DATABASE = 'Trino';
export const DEFAULT_CLIENT_ID = 'dpgw-backend';
export const DEFAULT_AUDIENCE = 'data-platform-gateway';
export const ADMIN_GROUP = 'platform-admins';
export const TRACK_GROUP = 'track-readers';
/** A client with direct access grants switched off, for the error Keycloak gives then. */
export const NO_DIRECT_GRANTS_CLIENT_ID = 'dpgw-web';
/** A client with a service account (the client credentials grant), as a CI pipeline signs in; its account is an admin. */
export const SERVICE_ACCOUNT_CLIENT_ID = 'dpgw-ci';
/** A public client (no secret) with the device grant, as a person signs in through a browser. */
export const DEVICE_CLIENT_ID = 'dpgw-cli';
/** A client whose tokens are meant for another service: the gateway must refuse them. */
export const OTHER_AUDIENCE_CLIENT_ID = 'reporting';

/** The sandbox broker's in-cluster name: `.invalid` never resolves (RFC 6761), so only the sandbox's store reaches it. */
export const SANDBOX_IN_CLUSTER_BROKER = 'mq-bootstrap.sandbox.invalid:9092';

export interface SandboxOptions {
  port?: number;
  authPort?: number;
  realm?: string;
  platformVersion?: string;
  /** Users and clients; passwords and secrets are generated where not given. */
  users?: SandboxUser[];
  clients?: SandboxClient[];
  accessTokenLifetimeSeconds?: number;
  refreshTokenLifetimeSeconds?: number;
  /** Delay before an enabled data set's topic exists. */
  topicDelayMs?: number;
  olapSegment?: string;
  seed?: SeedDataSource[];
  faults?: Partial<FaultSettings>;
  /** Write the request log to this file as JSON lines. */
  logFile?: string;
  /** Health targets (`mq` or `mq.connection`) reported DOWN from the start. */
  down?: string[];
  /** The internal stream user's password; generated where not given. */
  streamPassword?: string;
  /** A platform variant whose catalog data sets carry no topic label. */
  omitTopicLabels?: boolean;
  /** A platform variant whose catalog data sets list no storage (none provisioned for them). */
  omitStorages?: boolean;
  /** A platform variant without /api/version (its version is then unknown to clients). */
  versionEndpoint?: boolean;
  /** A platform variant whose gateway does not pass the store's validate calls on (false); default on. */
  storeValidateCalls?: boolean;
  /** How long the store takes to drop a deleted table (default 300 ms): reads find it, and its name is taken, until then. */
  tableDeletionDelayMs?: number;
  /** The query engine's port (0: any free port). */
  queryPort?: number;
  /** The analytics store's catalog name in the query engine. */
  queryCatalog?: string;
  /** Rows each table holds in the query engine (generated from its schema). */
  rowsPerTable?: number;
  /** The dashboard tool's port (0: any free port). */
  dashboardPort?: number;
  /** The message stream's (Kafka protocol) port (0: any free port). */
  streamPort?: number;
  /** Messages a topic holds when its data set is enabled. */
  streamBacklog?: number;
  /** How the stream's batches are compressed (default none). */
  streamCompression?: 'none' | 'gzip' | 'snappy' | 'lz4';
  /**
   * Backed mode (the end-to-end tier): real systems behind the contract, through these
   * hooks; scripts/platform/backing.mjs has the real ones (Kafka, Pinot, OPA), so the
   * product holds no client of theirs.
   */
  backing?: {
    /** Tokens are checked against this identity provider's keys instead of the sandbox's own. */
    identity?: { issuer: string; jwksUri: string; audience?: string };
    /** A real message stream: the settings a table carries, and how an enabled data set's topic is made there (instead of the sandbox's own broker). */
    stream?: BackingStream;
    /** A real analytics store behind the OLAP endpoints (instead of the sandbox's own); it gets the sandbox's store to record the tables it creates. */
    store?: (own: OlapStore) => StoreBackend;
    /** Told of the permissions the platform grants, before the call that granted them answers (a real policy engine's data). */
    onGranted?: (permissions: Permission[], catalog: Catalog) => Promise<void>;
  };
}

export interface BackingStream {
  brokerList: string;
  user: string;
  password: string;
  createTopic(topic: string): Promise<void>;
  close(): Promise<void>;
}

export interface Sandbox {
  gatewayUrl: string;
  /** The identity provider's base URL: the `auth_url` before `/auth/realms/…`. */
  authUrl: string;
  realm: string;
  issuer: string;
  tokenEndpoint: string;
  /** The SQL query engine (Trino's statement protocol) and its analytics catalog. */
  queryEngineUrl: string;
  queryCatalog: string;
  /** The sandbox's policy engine decisions, at OPA's paths (for access-control.properties). */
  policyUri: string;
  policyBatchedUri: string;
  /** The dashboard tool (Superset's REST API, with the same users) and its connection to the query engine. */
  dashboardUrl: string;
  dashboardDatabase: string;
  dashboard: DashboardToolEmulator;
  clientId: string;
  clientSecret: string;
  users: SandboxUser[];
  clients: SandboxClient[];
  platformVersion: string;
  /** The stream settings a table uses on this platform: the sandbox's own broker (or, backed, the real Kafka). */
  stream: { brokerList: string; registryUrl: string; user: string; password: string };
  /**
   * The broker as the store's servers name it inside the platform's network, and nothing outside resolves
   * (SANDBOX_IN_CLUSTER_BROKER): a table naming it consumes, while dpgw cannot reach it — a laptop's view of a real
   * platform (`--stream-check auto`). Undefined when backed by a real Kafka.
   */
  inClusterBrokerList?: string;
  /** The sandbox's message stream (undefined when backed by a real Kafka). */
  broker?: StreamBroker;
  requestLog: RequestLog;
  faults: Faults;
  health: HealthChecks;
  catalog: Catalog;
  store: OlapStore;
  identity: IdentityProvider;
  /** TCP connections accepted so far, per server. */
  connections(): { gateway: number; identity: number };
  /** The most TCP connections open at one time, per server. */
  connectionsAtOnce(): { gateway: number; identity: number };
  setPlatformVersion(version: string): void;
  close(): Promise<void>;
}

export function generatedSecret(): string {
  return randomBytes(18).toString('base64url');
}

export function defaultUsers(): SandboxUser[] {
  return [
    { username: 'admin', password: generatedSecret(), groups: [ADMIN_GROUP], firstName: 'Ada', lastName: 'Admin', email: 'admin@sandbox.local' },
    { username: 'analyst', password: generatedSecret(), groups: [TRACK_GROUP], firstName: 'Ana', lastName: 'Lyst', email: 'analyst@sandbox.local' },
    { username: 'outsider', password: generatedSecret(), groups: [], firstName: 'Otto', lastName: 'Sider', email: 'outsider@sandbox.local' },
  ];
}

export function defaultClients(): SandboxClient[] {
  return [
    { clientId: DEFAULT_CLIENT_ID, secret: generatedSecret(), directAccessGrants: true, deviceGrant: true },
    { clientId: NO_DIRECT_GRANTS_CLIENT_ID, secret: generatedSecret(), directAccessGrants: false },
    { clientId: SERVICE_ACCOUNT_CLIENT_ID, secret: generatedSecret(), directAccessGrants: false, serviceAccountGroups: [ADMIN_GROUP] },
    { clientId: DEVICE_CLIENT_ID, secret: '', publicClient: true, directAccessGrants: false, deviceGrant: true },
    { clientId: OTHER_AUDIENCE_CLIENT_ID, secret: generatedSecret(), directAccessGrants: true, audience: 'reporting-api' },
  ];
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const realm = options.realm ?? DEFAULT_REALM;
  const users = options.users ?? defaultUsers();
  const clients = options.clients ?? defaultClients();
  let platformVersion = options.platformVersion ?? DEFAULT_SANDBOX_PLATFORM_VERSION;
  const requestLog = new RequestLog(options.logFile);
  const faults = new Faults(options.faults);
  const health = new HealthChecks();
  for (const target of options.down ?? []) health.set(target, 'DOWN');
  const catalog = new Catalog(options.seed ?? DEFAULT_SEED, () => options.topicDelayMs ?? 0, options.omitTopicLabels === true, options.omitStorages === true);
  const store = new OlapStore();
  store.tableDeletionDelayMs = options.tableDeletionDelayMs ?? 300;

  const identity = new IdentityProvider({
    realm,
    users,
    clients,
    audience: DEFAULT_AUDIENCE,
    accessTokenLifetimeSeconds: options.accessTokenLifetimeSeconds ?? 300,
    refreshTokenLifetimeSeconds: options.refreshTokenLifetimeSeconds ?? 1800,
    port: options.authPort ?? 0,
    log: requestLog,
    faults,
  });
  await identity.start();
  const backedIdentity = options.backing?.identity;
  const topics = options.backing?.stream;
  const streamUser = { user: 'dpgw-stream', password: options.streamPassword ?? generatedSecret() };
  // The platform's own message stream: each enabled data set's topic, fed with messages of its shape.
  const broker = topics ? undefined : new StreamBroker({ port: options.streamPort ?? 0, users: { [streamUser.user]: streamUser.password }, compression: options.streamCompression });
  if (topics) catalog.topicCreator = (topic) => topics.createTopic(topic);
  else if (broker) {
    await broker.start();
    const backlog = options.streamBacklog ?? FEED_BACKLOG;
    catalog.topicCreator = async (topic, dataSet, messages) => {
      if (broker.topics.has(topic)) return;
      broker.createTopic(topic, FEED_PARTITIONS);
      broker.produce(topic, feedMessages(dataSet, backlog, { shape: messages }));
    };
  }
  store.stream = broker
    ? {
        address: broker.address,
        inClusterAddress: SANDBOX_IN_CLUSTER_BROKER,
        accepts: (user, password) => broker.accepts(user, password),
        partitions: (topic) => broker.topics.get(topic)?.partitions.map((records) => records.length),
        messages: (topic) => broker.topics.get(topic)?.partitions.map((records) => records.map((record) => record.value?.toString() ?? '')),
        rowsUpTo: (topic, partition, offset) => decodedRows(broker.topics.get(topic)?.partitions[partition] ?? [], offset),
      }
    : undefined;
  const queryCatalog = options.queryCatalog ?? DEFAULT_QUERY_CATALOG;
  const queryEngine = new QueryEngineEmulator({
    port: options.queryPort ?? 0,
    issuer: identity.issuer,
    jwksUri: identity.jwksUri,
    policy: new QueryAccessPolicy(catalog, queryCatalog),
    store,
    log: requestLog,
    rowsPerTable: options.rowsPerTable ?? 100,
  });
  const dashboard = new DashboardToolEmulator({ port: options.dashboardPort ?? 0, users, engine: queryEngine, catalog: queryCatalog, databaseName: DEFAULT_DASHBOARD_DATABASE, log: requestLog });
  const onGranted = options.backing?.onGranted;
  const gateway = new GatewayEmulator({
    port: options.port ?? 0,
    issuer: backedIdentity?.issuer ?? identity.issuer,
    jwksUri: backedIdentity?.jwksUri ?? identity.jwksUri,
    audience: backedIdentity ? backedIdentity.audience : DEFAULT_AUDIENCE,
    adminGroup: ADMIN_GROUP,
    platformVersion: () => platformVersion,
    olapSegment: options.olapSegment ?? 'olap',
    versionEndpoint: options.versionEndpoint !== false,
    storeValidateCalls: options.storeValidateCalls !== false,
    catalog,
    store,
    backend: options.backing?.store ? options.backing.store(store) : memoryStoreBackend(store, (topic) => catalog.topics.has(topic)),
    health,
    faults,
    log: requestLog,
    onGranted: onGranted ? (permissions) => onGranted(permissions, catalog) : undefined,
  });
  try {
    await gateway.start();
    await queryEngine.start();
    await dashboard.start();
  } catch (error) {
    await Promise.all([gateway.stop(), queryEngine.stop(), identity.stop(), topics?.close(), broker?.stop()]);
    throw error;
  }
  const primary = clients.find((c) => c.directAccessGrants) ?? clients[0]!;
  return {
    gatewayUrl: gateway.baseUrl,
    authUrl: identity.baseUrl,
    realm,
    issuer: identity.issuer,
    tokenEndpoint: identity.tokenEndpoint,
    queryEngineUrl: queryEngine.baseUrl,
    queryCatalog,
    policyUri: `${queryEngine.baseUrl}${SANDBOX_POLICY_PATHS.allow}`,
    policyBatchedUri: `${queryEngine.baseUrl}${SANDBOX_POLICY_PATHS.batch}`,
    dashboardUrl: dashboard.baseUrl,
    dashboardDatabase: DEFAULT_DASHBOARD_DATABASE,
    dashboard,
    clientId: primary.clientId,
    clientSecret: primary.secret,
    users,
    clients,
    get platformVersion() {
      return platformVersion;
    },
    inClusterBrokerList: broker ? SANDBOX_IN_CLUSTER_BROKER : undefined,
    stream: topics ? { brokerList: topics.brokerList, registryUrl: 'http://127.0.0.1:8081', user: topics.user, password: topics.password } : { brokerList: broker!.address, registryUrl: 'http://127.0.0.1:8081', ...streamUser },
    broker,
    requestLog,
    faults,
    health,
    catalog,
    store,
    identity,
    connections: () => ({ gateway: gateway.connections, identity: identity.connections }),
    connectionsAtOnce: () => ({ gateway: gateway.mostOpenAtOnce, identity: identity.mostOpenAtOnce }),
    setPlatformVersion: (version) => {
      platformVersion = version;
    },
    close: async () => {
      catalog.close();
      await Promise.all([gateway.stop(), queryEngine.stop(), dashboard.stop(), identity.stop(), topics?.close(), broker?.stop()]);
    },
  };
}
