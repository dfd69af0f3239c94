/**
 * The gateway contract's own words, in one place. Every other module refers to
 * these names instead of repeating a literal from the contract.
 */

/** Platform versions from this one on create storage permissions by themselves (contract step 6). */
export const STORAGE_TOUCH_NOT_NEEDED_FROM = '1.15.165';

/** The storage of a catalog data set that the workflow uses. */
export const DEFAULT_STORAGE_NAME = 'default';

/** A catalog data set's label whose key ends with this suffix carries its topic name. */
export const TOPIC_LABEL_KEY_SUFFIX = '/dataset';

/** Path segment selecting every data source / every enablement in catalog listings. */
export const CATALOG_ALL = 'all';

/** The link relation whose href locates a data set in the catalog. */
export const SELF_LINK_REL = 'self';

/** The contract's neutral word for the message-stream product; a real Pinot over Kafka wants `kafka`. */
export const DEFAULT_STREAM_TYPE = 'mq';

/** The contract's neutral word for the analytics store in gateway paths. */
export const DEFAULT_OLAP_SEGMENT = 'olap';

/** The schema of the query engine in which registered tables appear. */
export const QUERY_ENGINE_SCHEMA = 'default';

/**
 * The query-engine coordinator's access-control file (contract step 1): its name, and
 * the keys that switch on fine-grained access control and name the external policy engine.
 */
export const ACCESS_CONTROL_FILE_NAME = 'access-control.properties';
export const ACCESS_CONTROL_KEYS = {
  fineGrained: 'fine-grained-access-control-enabled',
  policyEngine: 'access-control.name',
} as const;
/** The value `fine-grained-access-control-enabled` must have. */
export const FINE_GRAINED_ENABLED = 'true';

/** Health status meaning healthy. Other values are not shown by the contract. */
export const HEALTH_STATUS_UP = 'UP';

/** Groups reported at the top level of every health response. */
export const HEALTH_GROUPS = ['api', 'liveness', 'readiness'] as const;

/** Components and their sub-components in the full health response. */
export const HEALTH_COMPONENTS: Readonly<Record<string, readonly string[]>> = {
  gateway: ['auth', 'hello', 'openapi'],
  mq: ['connection'],
  objectstore: ['connection'],
  dashboarding: ['database'],
  v1graphdb: ['openapi', 'ready'],
  v1audit: ['eventcount', 'openapi'],
  v1courier: ['listinboxes', 'openapi'],
  v1mq: ['config', 'openapi'],
  v1lakehouse: ['openapi', 'schemas'],
  v1registry: ['openapi', 'schemas', 'version'],
  v1objects: ['countbuckets', 'openapi'],
  v2catalog: ['datasources', 'openapi'],
};

/** dataType values the contract's schemas use. */
export const CONTRACT_DATA_TYPES = ['STRING', 'INT', 'DOUBLE', 'JSON', 'LONG'] as const;

/** Identity provider: form values of the resource-owner password grant. */
export const PASSWORD_GRANT = { grant_type: 'password', scope: 'openid' } as const;

/** Table definition values fixed by the contract's example. */
export const TABLE_DEFAULTS = {
  tableType: 'REALTIME',
  timeType: 'MILLISECONDS',
  retentionTimeUnit: 'DAYS',
  replication: 1,
  replicasPerPartition: 1,
  loadMode: 'MMAP',
  tenant: 'DefaultTenant',
  consumerType: 'lowLevel',
  autoOffsetReset: 'smallest',
  securityProtocol: 'SASL_PLAINTEXT',
  saslMechanism: 'SCRAM-SHA-512',
  decoderFormat: 'JSON',
} as const;

/** Date-time field values the contract uses. */
export const DATE_TIME_DEFAULTS = {
  dataType: 'LONG',
  notNull: false,
  format: '1:MILLISECONDS:EPOCH',
  granularity: '1:MILLISECONDS',
} as const;
