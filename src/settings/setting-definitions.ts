/**
 * Every setting dpgw reads, with its flag, environment variable and profile key.
 * Precedence: flag > environment > profile > default (README "Settings").
 */
import { DEFAULT_OLAP_SEGMENT, DEFAULT_STREAM_TYPE, TABLE_DEFAULTS } from '../contract/constants.js';
import { STREAM_PLUGIN_CLASSES } from '../contract/olap-vocabulary.js';
import { DpgwError } from '../errors/dpgw-error.js';

export type SettingKey =
  | 'gateway'
  | 'authUrl'
  | 'realm'
  | 'clientId'
  | 'clientSecret'
  | 'username'
  | 'platformVersion'
  | 'streamType'
  | 'olapSegment'
  | 'timeout'
  | 'caFile'
  | 'clientAuth'
  | 'brokerList'
  | 'registryUrl'
  | 'streamUser'
  | 'streamPassword'
  | 'streamCheck'
  | 'retentionDays'
  | 'brokerTenant'
  | 'serverTenant'
  | 'decoderClass'
  | 'consumerFactoryClass'
  | 'policyEngine'
  | 'policyUri'
  | 'policyBatchedUri'
  | 'queryEngine'
  | 'queryCatalog'
  | 'dashboardUrl'
  | 'dashboardUser'
  | 'dashboardPassword'
  | 'dashboardDatabase'
  | 'token'
  | 'grant';

export type SettingScope = 'table' | 'create' | 'access' | 'query' | 'dashboard';

/** The policy engine `access-control render` names by default (Trino's OPA access control). */
export const DEFAULT_POLICY_ENGINE = 'opa';
/** The dashboard tool's database connection to the query engine, by default. */
export const DEFAULT_DASHBOARD_DATABASE = 'Trino';
/** The query engine's catalog of the analytics store, by default. */
export const DEFAULT_QUERY_CATALOG = 'pinot';

export interface SettingDefinition {
  key: SettingKey;
  /** Commander flag spelling, e.g. `--gateway <url>`; absent when there is none. */
  flag?: string;
  env?: string;
  /** Key in a profile of config.yaml; absent when profiles may not hold it. */
  profileKey?: string;
  default?: string;
  description: string;
  /** How the value may be shown: 'secret' is always masked. */
  display: 'plain' | 'secret' | 'reference';
  /** A value from the environment is the secret itself, from elsewhere a secret reference. */
  envIsSecret?: boolean;
  /**
   * The value names where dpgw or the platform connects, or a file dpgw reads: a manifest
   * (which may come from a pull request) sets it only with --allow-manifest-endpoints.
   */
  endpoint?: true;
  /**
   * The value names who the run's secrets sign in as (realm, client, user): a manifest sets it only with
   * --allow-manifest-endpoints too, or else a pull request could have the run's password or client secret
   * sent for another identity.
   */
  identity?: true;
  /** The value a `--no-…` flag of the same name gives (`--no-stream-check` is `--stream-check off`). */
  negatedValue?: string;
  /**
   * Which commands take the flag (every setting is also a profile key): 'table' the table
   * commands and provision, 'create' the commands that create tables (table create, provision), 'access' the access-control commands, 'query' verify and
   * provision, 'dashboard' the dashboard command; undefined: a global flag.
   */
  scope?: SettingScope;
}

export const SETTING_DEFINITIONS: readonly SettingDefinition[] = [
  { key: 'gateway', flag: '--gateway <url>', env: 'DPGW_GATEWAY', profileKey: 'gateway', display: 'plain', endpoint: true, description: 'base URL of the gateway' },
  { key: 'authUrl', flag: '--auth-url <url>', env: 'DPGW_AUTH_URL', profileKey: 'authUrl', display: 'plain', endpoint: true, description: 'base URL of the identity provider (before /auth/realms)' },
  { key: 'realm', flag: '--realm <name>', env: 'DPGW_REALM', profileKey: 'realm', display: 'plain', identity: true, description: 'identity realm' },
  { key: 'clientId', flag: '--client-id <id>', env: 'DPGW_CLIENT_ID', profileKey: 'clientId', display: 'plain', identity: true, description: 'id of the backend client' },
  {
    key: 'clientSecret',
    flag: '--client-secret <ref>',
    env: 'DPGW_CLIENT_SECRET',
    profileKey: 'clientSecret',
    display: 'reference',
    envIsSecret: true,
    description: 'secret reference of the backend client (env:NAME, file:PATH, exec:CMD); DPGW_CLIENT_SECRET holds the secret itself',
  },
  { key: 'username', flag: '--username <name>', env: 'DPGW_USERNAME', profileKey: 'username', display: 'plain', identity: true, description: 'user to sign in as' },
  { key: 'platformVersion', flag: '--platform-version <version>', env: 'DPGW_PLATFORM_VERSION', profileKey: 'platformVersion', display: 'plain', description: 'platform version (decides whether storage touch is needed)' },
  { key: 'streamType', flag: '--stream-type <type>', env: 'DPGW_STREAM_TYPE', profileKey: 'streamType', default: DEFAULT_STREAM_TYPE, display: 'plain', description: 'stream product word in stream config keys (kafka for a real Pinot over Kafka)' },
  { key: 'olapSegment', flag: '--olap-segment <word>', env: 'DPGW_OLAP_SEGMENT', profileKey: 'olapSegment', default: DEFAULT_OLAP_SEGMENT, display: 'plain', description: 'analytics-store word in gateway paths (/api/internal/<word>/…)' },
  { key: 'timeout', flag: '--timeout <seconds>', env: 'DPGW_TIMEOUT', profileKey: 'timeout', default: '30', display: 'plain', description: 'seconds one call to a server may take in all, its retries and the waits between them included (a query of the query engine: all its pages)' },
  { key: 'caFile', flag: '--ca-file <path>', env: 'DPGW_CA_FILE', profileKey: 'caFile', display: 'plain', endpoint: true, description: 'extra certificate authorities (PEM) for the gateway, the identity provider and the query engine' },
  { key: 'clientAuth', flag: '--client-auth <method>', env: 'DPGW_CLIENT_AUTH', profileKey: 'clientAuth', default: 'post', display: 'plain', description: 'how the client secret is sent: post (in the form, as the contract shows) or basic' },
  { key: 'brokerList', flag: '--broker-list <host:port>', env: 'DPGW_BROKER_LIST', profileKey: 'brokerList', display: 'plain', endpoint: true, scope: 'table', description: 'stream bootstrap address(es) for the table' },
  { key: 'registryUrl', flag: '--registry-url <url>', env: 'DPGW_REGISTRY_URL', profileKey: 'registryUrl', display: 'plain', endpoint: true, scope: 'table', description: 'schema registry address for the table' },
  { key: 'streamUser', flag: '--stream-user <name>', env: 'DPGW_STREAM_USER', profileKey: 'streamUser', display: 'plain', identity: true, scope: 'table', description: 'internal stream user (SCRAM)' },
  {
    key: 'streamPassword',
    flag: '--stream-password <ref>',
    env: 'DPGW_STREAM_PASSWORD',
    profileKey: 'streamPassword',
    display: 'reference',
    envIsSecret: true,
    scope: 'table',
    description: 'secret reference of the stream password (env:, file:, exec:); DPGW_STREAM_PASSWORD holds the password itself',
  },
  {
    key: 'streamCheck',
    flag: '--stream-check <mode>',
    env: 'DPGW_STREAM_CHECK',
    profileKey: 'streamCheck',
    default: 'auto',
    negatedValue: 'off',
    display: 'plain',
    scope: 'create',
    description: 'the stream pre-flight before a table is sent: auto (skipped with a warning when the brokers cannot be reached from here), require, or off (--no-stream-check)',
  },
  { key: 'retentionDays', flag: '--retention-days <days>', env: 'DPGW_RETENTION_DAYS', profileKey: 'retentionDays', default: '7', display: 'plain', scope: 'table', description: 'segment retention in days' },
  { key: 'brokerTenant', flag: '--broker-tenant <name>', env: 'DPGW_BROKER_TENANT', profileKey: 'brokerTenant', default: TABLE_DEFAULTS.tenant, display: 'plain', scope: 'table', description: 'broker tenant of the table' },
  { key: 'serverTenant', flag: '--server-tenant <name>', env: 'DPGW_SERVER_TENANT', profileKey: 'serverTenant', default: TABLE_DEFAULTS.tenant, display: 'plain', scope: 'table', description: 'server tenant of the table' },
  { key: 'decoderClass', flag: '--decoder-class <class>', env: 'DPGW_DECODER_CLASS', profileKey: 'decoderClass', default: STREAM_PLUGIN_CLASSES.decoder, display: 'plain', scope: 'table', description: "the store's JSON message decoder class" },
  {
    key: 'consumerFactoryClass',
    flag: '--consumer-factory-class <class>',
    env: 'DPGW_CONSUMER_FACTORY_CLASS',
    profileKey: 'consumerFactoryClass',
    default: STREAM_PLUGIN_CLASSES.consumerFactory,
    display: 'plain',
    scope: 'table',
    description: "the stream plugin's consumer factory class (Kafka 2.0 client)",
  },
  { key: 'policyEngine', flag: '--policy-engine <id>', env: 'DPGW_POLICY_ENGINE', profileKey: 'policyEngine', default: DEFAULT_POLICY_ENGINE, display: 'plain', scope: 'access', description: 'external policy engine the query engine delegates access decisions to (access-control.name)' },
  { key: 'policyUri', flag: '--policy-uri <url>', env: 'DPGW_POLICY_URI', profileKey: 'policyUri', display: 'plain', endpoint: true, scope: 'access', description: 'policy engine decision URL (opa.policy.uri)' },
  { key: 'policyBatchedUri', flag: '--policy-batched-uri <url>', env: 'DPGW_POLICY_BATCHED_URI', profileKey: 'policyBatchedUri', display: 'plain', endpoint: true, scope: 'access', description: 'policy engine batch decision URL, for filtering (opa.policy.batched-uri)' },
  { key: 'queryEngine', flag: '--query-engine <url>', env: 'DPGW_QUERY_ENGINE', profileKey: 'queryEngine', display: 'plain', endpoint: true, scope: 'query', description: 'base URL of the SQL query engine (https:// for a token to be accepted)' },
  { key: 'queryCatalog', flag: '--query-catalog <name>', env: 'DPGW_QUERY_CATALOG', profileKey: 'queryCatalog', default: DEFAULT_QUERY_CATALOG, display: 'plain', scope: 'query', description: "analytics store's catalog in the query engine" },
  { key: 'dashboardUrl', flag: '--dashboard-url <url>', env: 'DPGW_DASHBOARD_URL', profileKey: 'dashboardUrl', display: 'plain', endpoint: true, scope: 'dashboard', description: 'base URL of the dashboard tool (Superset)' },
  { key: 'dashboardUser', flag: '--dashboard-user <name>', env: 'DPGW_DASHBOARD_USER', profileKey: 'dashboardUser', display: 'plain', identity: true, scope: 'dashboard', description: 'user to sign in to the dashboard tool as' },
  {
    key: 'dashboardPassword',
    flag: '--dashboard-password <ref>',
    env: 'DPGW_DASHBOARD_PASSWORD',
    profileKey: 'dashboardPassword',
    display: 'reference',
    envIsSecret: true,
    scope: 'dashboard',
    description: 'secret reference of the dashboard user\'s password (env:, file:, exec:); DPGW_DASHBOARD_PASSWORD holds the password itself',
  },
  { key: 'dashboardDatabase', flag: '--dashboard-database <name>', env: 'DPGW_DASHBOARD_DATABASE', profileKey: 'dashboardDatabase', default: DEFAULT_DASHBOARD_DATABASE, display: 'plain', scope: 'dashboard', description: "the dashboard tool's database connection to the query engine" },
  {
    key: 'grant',
    flag: '--grant <grant>',
    env: 'DPGW_GRANT',
    profileKey: 'grant',
    default: 'password',
    display: 'plain',
    identity: true,
    description: 'how to sign in: password (the default), client-credentials (the client\'s service account, no password), or device (approve in a browser: single sign-on, MFA)',
  },
  { key: 'token', env: 'DPGW_TOKEN', display: 'secret', description: 'a bearer token to use as is (pipelines); beats the login cache' },
];

/** The settings that say whose a session is: a cached session serves only a run that names the same (auth/session.ts). */
export const SESSION_IDENTITY_KEYS = ['authUrl', 'realm', 'clientId', 'grant', 'username'] as const;
/** Who signs in: those, and the secret of the client (a reference), which goes with the client. */
export const SIGN_IN_KEYS: readonly SettingKey[] = [...SESSION_IDENTITY_KEYS, 'clientSecret'];

export const PROFILE_KEYS: readonly string[] = SETTING_DEFINITIONS.flatMap((d) => (d.profileKey ? [d.profileKey] : []));

export function definitionOf(key: SettingKey): SettingDefinition {
  const found = SETTING_DEFINITIONS.find((d) => d.key === key);
  if (!found) throw new Error(`unknown setting ${key}`);
  return found;
}

/** The commander attribute name of a flag: `--auth-url <url>` → `authUrl`. */
export function flagAttribute(flag: string): string {
  const long = flag.split(/\s+/)[0]!.replace(/^--/, '');
  return long.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

export function flagName(flag: string): string {
  return flag.split(/\s+/)[0]!;
}

/** A required setting nobody set: its description, and every way to set it. */
export function missingSetting(key: SettingKey): DpgwError {
  const definition = definitionOf(key);
  const ways = [definition.flag ? flagName(definition.flag) : undefined, definition.env, definition.profileKey ? `\`dpgw config set ${definition.profileKey} …\`` : undefined].filter(Boolean);
  return new DpgwError('SETTING_MISSING', `no ${definition.description} is set`, { where: key, hint: `set it with ${ways.join(', or ')}` });
}

/**
 * Every required setting nobody set, in one error: a command that needs several names them all at once, each with
 * its flag, variable and profile key, so a person fixes them in one go instead of meeting one per run. One alone is
 * missingSetting's error.
 */
export function missingSettings(keys: readonly SettingKey[], hint?: string): DpgwError {
  if (keys.length === 1 && hint === undefined) return missingSetting(keys[0]!);
  const listed = keys.map((key) => {
    const definition = definitionOf(key);
    const ways = [definition.flag ? flagName(definition.flag) : undefined, definition.env, definition.profileKey ? `profile key ${definition.profileKey}` : undefined].filter(Boolean);
    return `${key} (${ways.join(', ')})`;
  });
  return new DpgwError('SETTING_MISSING', `${keys.length === 1 ? 'a setting is' : `${keys.length} settings are`} not set: ${listed.join('; ')}`, {
    details: { settings: [...keys] },
    hint: hint ?? `set ${keys.length === 1 ? 'it' : 'each'} with its flag, its variable, or \`dpgw config set <key> <value>\``,
  });
}

/** How to set a setting, for a hint: `pass --broker-list <host:port>, set DPGW_BROKER_LIST, or \`dpgw config set brokerList …\``. */
export function howToSet(key: SettingKey): string {
  // Asked for several settings of every table a run builds (build-table.ts): each sentence is made once.
  let how = howToSetSentences.get(key);
  if (how === undefined) {
    const definition = definitionOf(key);
    how = `pass ${flagName(definition.flag!)}, set ${definition.env}, or \`dpgw config set ${definition.profileKey} …\``;
    howToSetSentences.set(key, how);
  }
  return how;
}

const howToSetSentences = new Map<SettingKey, string>();
