/**
 * The sandbox store's validate calls (issue #47 §3), as a Pinot controller answers them:
 * `POST /tableConfigs/validate` (a schema with its table), `POST /schemas/validate` and
 * `POST /tables/validate` (the schema read from what the store holds). Read-only: each is
 * judged by the store's own rules (OlapStore.addSchema, addTable) on a scratch store that is
 * dropped after, plus rules the sandbox's store has that dpgw cannot check locally (tenants it
 * has no servers for, transform functions it cannot parse); what it does not recognise is
 * answered in `unrecognizedProperties`, keyed as Pinot keys it (JsonUtils#flatten: `/`-joined
 * paths of the body).
 */
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';

export type ValidateCall = 'tableConfigs' | 'schema' | 'table';

/** A store's answer: its status and body (olap-store.ts's StoreAnswer, which imports this module). */
interface StoreAnswer {
  status: number;
  body: unknown;
}

/**
 * What the validate calls read of the sandbox's store (olap-store.ts's OlapStore, which
 * imports this module): what it holds, and a new empty store of its rules to judge on.
 */
export interface JudgingStore {
  readonly schemas: Map<string, AnalyticsSchema>;
  readonly tables: ReadonlyMap<string, { definition: RealtimeTableDefinition }>;
  addSchema(body: unknown): StoreAnswer;
  addTable(body: unknown, topicExists: (topic: string) => boolean): StoreAnswer;
  /** A new store with the same rules and nothing in it (a scratch store, dropped after). */
  empty(): JudgingStore;
}

/** The tenant every store has (TagNameUtils.DEFAULT_TENANT_NAME). */
const DEFAULT_TENANT = 'DefaultTenant';

export function validateInStore(store: JudgingStore, call: ValidateCall, body: unknown): StoreAnswer {
  if (!isObject(body)) return bad(call === 'tableConfigs' ? 'Invalid TableConfigs json string: the body is not a JSON object' : `Invalid ${call === 'schema' ? 'schema' : 'table config'} json string`);
  if (call === 'schema') {
    const refusal = schemaRefusal(store, body);
    return refusal ?? valid(body, unrecognized(body, SCHEMA_KEYS));
  }
  if (call === 'table') {
    const name = String(body.tableName ?? '');
    const schemaName = String((isObject(body.segmentsConfig) ? body.segmentsConfig.schemaName : undefined) ?? name);
    const schema = store.schemas.get(schemaName);
    // PinotTableRestletResource#checkTableConfig reads the schema the store holds (0.11: "Got empty schema").
    if (!schema) return bad(`Invalid table config: ${name}_REALTIME. Got empty schema`);
    const refusal = tableRefusal(store, body, schema, (reason) => bad(`Invalid table config: ${name}_REALTIME. ${reason}`));
    return refusal ?? { status: 200, body: { REALTIME: body, unrecognizedProperties: unrecognized(body, TABLE_KEYS) } };
  }
  // TableConfigsRestletResource#validateConfig: the schema, then the table with it.
  const name = String(body.tableName ?? '');
  const invalid = (reason: string) => bad(`Invalid TableConfigs: ${name}. ${reason}`);
  if (!isObject(body.schema)) return invalid(`Must provide 'schema' for adding TableConfigs: ${name}`);
  if (!isObject(body.realtime)) return invalid(`Must provide at least one of 'realtime' or 'offline' table configs for adding TableConfigs: ${name}`);
  if (body.schema.schemaName !== name) return invalid(`'tableName': ${name} must be equal to 'schemaName' from 'schema': ${String(body.schema.schemaName)}`);
  const schemaRefused = schemaRefusal(store, body.schema);
  if (schemaRefused) return invalid(errorOf(schemaRefused));
  const tableRefused = tableRefusal(store, body.realtime, body.schema as unknown as AnalyticsSchema, invalid);
  if (tableRefused) return tableRefused;
  const found = { ...prefixed('/schema', unrecognized(body.schema, SCHEMA_KEYS)), ...prefixed('/realtime', unrecognized(body.realtime, TABLE_KEYS)) };
  return valid(body, found);
}

/** The store's own schema rules, on a scratch store: no schema it holds is compared (a validate call does not). */
function schemaRefusal(store: JudgingStore, schema: Record<string, unknown>): StoreAnswer | undefined {
  const answer = store.empty().addSchema(schema);
  return answer.status === 200 ? undefined : answer;
}

function tableRefusal(store: JudgingStore, table: Record<string, unknown>, schema: AnalyticsSchema, invalid: (reason: string) => StoreAnswer): StoreAnswer | undefined {
  // A scratch store without a stream: a validate call reads no topic and connects to no broker.
  const scratch = store.empty();
  scratch.schemas.set(String(table.tableName ?? ''), schema);
  const named = isObject(table.segmentsConfig) && typeof table.segmentsConfig.schemaName === 'string' ? table.segmentsConfig.schemaName : undefined;
  if (named !== undefined) scratch.schemas.set(named, schema);
  const answer = scratch.addTable(table, () => true);
  if (answer.status !== 200) return invalid(errorOf(answer).replace(/^Invalid table config for table: [^.]*\. Reason: /, ''));
  // TableConfigUtils#validateIngestionConfig: a function the store's parser refuses.
  const transforms = isObject(table.ingestionConfig) && Array.isArray(table.ingestionConfig.transformConfigs) ? (table.ingestionConfig.transformConfigs as unknown[]) : [];
  for (const transform of transforms) {
    if (isObject(transform) && typeof transform.transformFunction === 'string' && !parses(transform.transformFunction)) {
      return invalid(`Invalid transform function '${transform.transformFunction}' for column '${String(transform.columnName)}'`);
    }
  }
  const noServers = tenantWithoutServers(store, table);
  return noServers === undefined ? undefined : invalid(noServers);
}

/**
 * PinotHelixResourceManager#validateTableTenantConfig (1.5.0's validate call; every version's
 * POST and PUT /tables, which the sandbox's store does not hold to it): a tenant the store has
 * no servers (or brokers) for, in its words.
 */
function tenantWithoutServers(store: JudgingStore, table: Record<string, unknown>): string | undefined {
  const tenants = isObject(table.tenants) ? table.tenants : {};
  const known = knownTenants(store);
  for (const [key, suffix] of [['server', 'REALTIME'], ['broker', 'BROKER']] as const) {
    const tenant = typeof tenants[key] === 'string' && tenants[key] !== '' ? tenants[key] : DEFAULT_TENANT;
    if (!known.has(tenant)) return `Failed to find instances with tag: ${tenant}_${suffix} for table: ${String(table.tableName)}_REALTIME`;
  }
  return undefined;
}

/** The tenants the sandbox's store has servers for: its default, and any a table it holds uses. */
function knownTenants(store: JudgingStore): Set<string> {
  const known = new Set([DEFAULT_TENANT]);
  for (const { definition } of store.tables.values()) {
    const tenants = (definition as unknown as Record<string, unknown>).tenants;
    if (isObject(tenants)) for (const value of [tenants.broker, tenants.server]) if (typeof value === 'string') known.add(value);
  }
  return known;
}

/** Parentheses and quotes that close: what the sandbox's parser asks of an expression (Pinot's is a SQL parser). */
function parses(expression: string): boolean {
  let depth = 0;
  let quote: string | undefined;
  for (const char of expression) {
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === '(') depth++;
    else if (char === ')' && --depth < 0) return false;
  }
  return depth === 0 && quote === undefined && expression.trim() !== '';
}

/**
 * The keys the store's config classes read (Pinot's Schema and FieldSpec; TableConfig,
 * SegmentsValidationAndRetentionConfig, IndexingConfig, TenantConfig): `*` is a map of any
 * keys (the stream config), a nested set is the keys of each element of a list or mapping.
 */
type KnownKeys = { readonly [key: string]: KnownKeys | '*' | true };

const FIELD_SPEC_KEYS: KnownKeys = Object.fromEntries(
  ['name', 'dataType', 'singleValueField', 'defaultNullValue', 'maxLength', 'transformFunction', 'virtualColumnProvider', 'format', 'granularity', 'notNull', 'sampleValue', 'derivedMetricType', 'fieldSize', 'incomingGranularitySpec', 'outgoingGranularitySpec', 'fieldType'].map((key) => [key, true]),
);

const SCHEMA_KEYS: KnownKeys = {
  schemaName: true,
  dimensionFieldSpecs: FIELD_SPEC_KEYS,
  metricFieldSpecs: FIELD_SPEC_KEYS,
  dateTimeFieldSpecs: FIELD_SPEC_KEYS,
  timeFieldSpec: FIELD_SPEC_KEYS,
  complexFieldSpecs: '*',
  primaryKeyColumns: true,
  enableColumnBasedNullHandling: true,
};

const keys = (...names: string[]): KnownKeys => Object.fromEntries(names.map((name) => [name, true]));

const TABLE_KEYS: KnownKeys = {
  ...keys('tableName', 'tableType', 'isDimTable', 'quota', 'task', 'routing', 'query', 'instanceAssignmentConfigMap', 'instancePartitionsMap', 'fieldConfigList', 'upsertConfig', 'dedupConfig', 'ingestionConfig', 'tierConfigs', 'tunerConfigs', 'metadata'),
  segmentsConfig: keys(
    'retentionTimeUnit',
    'retentionTimeValue',
    'deletedSegmentsRetentionPeriod',
    'segmentPushFrequency',
    'segmentPushType',
    'replication',
    'schemaName',
    'timeColumnName',
    'timeType',
    'segmentAssignmentStrategy',
    'replicaGroupStrategyConfig',
    'completionConfig',
    'crypterClassName',
    'minimizeDataMovement',
    'peerSegmentDownloadScheme',
    'replicasPerPartition',
  ),
  tableIndexConfig: {
    ...keys(
      'invertedIndexColumns',
      'rangeIndexColumns',
      'rangeIndexVersion',
      'jsonIndexColumns',
      'jsonIndexConfigs',
      'h3IndexConfigs',
      'sortedColumn',
      'bloomFilterColumns',
      'bloomFilterConfigs',
      'loadMode',
      'segmentFormatVersion',
      'fstTypeForFSTIndex',
      'columnMinMaxValueGeneratorMode',
      'noDictionaryColumns',
      'noDictionaryConfig',
      'onHeapDictionaryColumns',
      'enableDefaultStarTree',
      'starTreeIndexConfigs',
      'enableDynamicStarTreeCreation',
      'segmentPartitionConfig',
      'aggregateMetrics',
      'nullHandlingEnabled',
      'optimizeDictionaryForMetrics',
      'noDictionarySizeRatioThreshold',
      'autoGeneratedInvertedIndex',
      'createInvertedIndexDuringSegmentGeneration',
      'segmentNameGeneratorType',
      'varLengthDictionaryColumns',
      'streamConfigMaps',
    ),
    streamConfigs: '*',
  },
  tenants: keys('broker', 'server', 'tagOverrideConfig'),
};

/** The body's keys the known keys lack, as Pinot keys them: `/`-joined paths, list places as numbers, with their values. */
function unrecognized(value: Record<string, unknown>, known: KnownKeys, at = ''): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const rule = known[key];
    const path = `${at}/${key}`;
    if (rule === undefined) Object.assign(found, flatten(child, path));
    else if (rule !== true && rule !== '*') {
      const items = Array.isArray(child) ? child.map((item, index) => [`${path}/${index}`, item] as const) : [[path, child] as const];
      for (const [itemPath, item] of items) if (isObject(item)) Object.assign(found, unrecognized(item, rule, itemPath));
    }
  }
  return found;
}

/** A value as JsonUtils#flatten keys it: each leaf under its path. */
function flatten(value: unknown, path: string): Record<string, unknown> {
  if (Array.isArray(value)) return Object.assign({}, ...value.map((item, index) => flatten(item, `${path}/${index}`)));
  if (isObject(value)) return Object.assign({}, ...Object.entries(value).map(([key, item]) => flatten(item, `${path}/${key}`)));
  return { [path]: value };
}

function prefixed(prefix: string, found: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(found).map(([path, value]) => [`${prefix}${path}`, value]));
}

/** The store echoes what it read, with what it did not recognise. */
function valid(body: Record<string, unknown>, found: Record<string, unknown>): StoreAnswer {
  return { status: 200, body: { ...body, unrecognizedProperties: found } };
}

function errorOf(answer: StoreAnswer): string {
  return isObject(answer.body) && typeof answer.body.error === 'string' ? answer.body.error : JSON.stringify(answer.body);
}

const bad = (error: string): StoreAnswer => ({ status: 400, body: { code: 400, error } });

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
