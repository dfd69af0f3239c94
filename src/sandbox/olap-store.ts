/**
 * The analytics store behind the gateway's OLAP endpoints, validating schemas and
 * REALTIME tables as Pinot's controller does (TableConfigUtils, Schema
 * validation) and answering in Pinot's error shape `{ code, error }`, which the
 * gateway passes through. Messages name the offending field.
 */
import { isDateTimeFormat, isGranularity, METRIC_DATA_TYPES, STORE_DATA_TYPES, TIME_UNITS } from '../contract/olap-vocabulary.js';
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';
import { parseJaasOptions } from '../olap/jaas-config.js';
import { streamConfigPlace } from '../olap/stream-config-place.js';
import { fieldPath } from '../olap/schema-validation.js';
import { SegmentReloads } from './segment-reloads.js';
import { ConsumptionEmulation, UNREACHABLE_BROKERS_ERROR } from './consumption-emulation.js';
import { validateInStore, type ValidateCall } from './store-validate-calls.js';

export interface StoreAnswer {
  status: number;
  body: unknown;
}

interface StoredTable {
  definition: RealtimeTableDefinition;
  topic: string;
  created: Date;
  /** The consuming segments' sequence number: how many times they committed (a force commit, segment-reloads.ts). */
  sequence?: number;
}

export interface PartitionTrouble {
  behind?: number;
  error?: string;
  /** The exception behind the error, as the server records it (its first line says why: Pinot's "Exception while in work"). */
  stackTrace?: string;
}

/** The server every table of the sandbox's store lives on, as Pinot names its instances. */
const SANDBOX_SERVER = 'Server_127.0.0.1_7000';

const bad = (error: string): StoreAnswer => ({ status: 400, body: { code: 400, error } });

/** The message stream the store's consumers reach: the sandbox's broker. */
export interface StoreStream {
  /** host:port of the broker. */
  address: string;
  /** The broker's name inside the platform's network, which the store's servers reach too. */
  inClusterAddress?: string;
  accepts(user: string, password: string): boolean;
  /** Records held by each partition of a topic; undefined when there is no such topic. */
  partitions(topic: string): number[] | undefined;
  /** The messages of each partition of a topic, as text (the queries of segment-reloads.ts). */
  messages?(topic: string): string[][] | undefined;
  /** The rows the store's decoder makes of a partition's records before an offset (consumption-emulation.ts); without it, one a record. */
  rowsUpTo?(topic: string, partition: number, offset: number): number;
}

/** Pinot 0.11's answer to a table whose stream user the brokers refuse (measured on the end-to-end tier). */
export const STORE_SCRAM_REFUSAL = 'org.apache.kafka.common.errors.SaslAuthenticationException: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512';

export class OlapStore {
  readonly schemas = new Map<string, AnalyticsSchema>();
  readonly tables = new Map<string, StoredTable>();
  /** Set when the sandbox runs its own message stream: tables are checked against it and consume from it. */
  stream: StoreStream | undefined;
  /**
   * How long a deleted table takes to go: the store drops it in the background, and until
   * then reads still find it and a table of the same name is refused as existing.
   */
  tableDeletionDelayMs = 0;
  /** Tables deleted, not dropped yet. */
  private readonly dropping = new Set<string>();
  /** Reloads and force commits of the tables' segments, and the defaults a query sees of added columns. */
  readonly reloads = new SegmentReloads(this);

  /** The names of a table's consuming segments (none when there is no such table). */
  consumingSegmentNames(bare: string): string[] {
    return (segmentsOf(this, bare) ?? []).map((segment) => segment.name);
  }
  /** Paused and resumed consumption (`dpgw table pause|resume`). */
  readonly consumption = new ConsumptionEmulation();

  /** A new store with the same rules and nothing in it: the validate calls judge on one (store-validate-calls.ts). */
  empty(): OlapStore {
    return new OlapStore();
  }

  /** The store controller's GET /tables: names without the type suffix. */
  listTables(): StoreAnswer {
    return { status: 200, body: { tables: [...this.tables.keys()] } };
  }

  /** The store controller's GET /schemas: a bare array of names. */
  listSchemas(): StoreAnswer {
    return { status: 200, body: [...this.schemas.keys()] };
  }

  /** The store controller's DELETE /tables/{name}?type=…: answered at once, the table dropped after tableDeletionDelayMs. */
  deleteTable(name: string, type: string | undefined): StoreAnswer {
    const bare = name.replace(/_REALTIME$/, '');
    const wanted = type?.toUpperCase();
    // Pinot 0.11's words; the type as given, "null" when none.
    if ((wanted !== undefined && wanted !== 'REALTIME') || !this.tables.has(bare)) return { status: 404, body: { code: 404, error: `Table '${bare}' with type ${wanted ?? 'null'} does not exist` } };
    if (!this.dropping.has(bare)) {
      this.dropping.add(bare);
      const drop = () => {
        this.tables.delete(bare);
        this.dropping.delete(bare);
      };
      if (this.tableDeletionDelayMs <= 0) drop();
      else setTimeout(drop, this.tableDeletionDelayMs).unref();
    }
    return { status: 200, body: { status: `Tables: [${bare}_REALTIME] deleted` } };
  }

  /** The store controller's DELETE /schemas/{name}: refused (409) while a table uses the schema, as Pinot 0.11 refuses it. */
  deleteSchema(name: string): StoreAnswer {
    if (!this.schemas.has(name)) return { status: 404, body: { code: 404, error: 'Schema not found' } };
    const user = [...this.tables.entries()].find(([table, stored]) => table === name || stored.definition.segmentsConfig?.schemaName === name);
    if (user) return { status: 409, body: { code: 409, error: `Cannot delete schema ${name}, as it is associated with table ${user[0]}_REALTIME` } };
    this.schemas.delete(name);
    return { status: 200, body: { status: `Schema ${name} deleted` } };
  }

  /**
   * Trouble of a table's partitions, for tests and demonstrations of `dpgw table status`: a
   * partition `behind` that many messages (its consumer lags), or its segment in ERROR with the
   * server's reason (as a Pinot server reports a segment it failed to set up).
   */
  readonly partitionTrouble = new Map<string, Map<number, PartitionTrouble>>();

  addSchema(body: unknown): StoreAnswer {
    if (!isObject(body)) return bad('Invalid schema. Reason: the request body must be a JSON object');
    const schema = body as Partial<AnalyticsSchema>;
    if (typeof schema.schemaName !== 'string' || schema.schemaName.trim() === '') return bad("Invalid schema. Reason: 'schemaName' is missing or empty");
    if (/\s/.test(schema.schemaName) || schema.schemaName.includes('__')) return bad(`Invalid schema: ${schema.schemaName}. Reason: 'schemaName' must not contain spaces or '__'`);
    const seen = new Set<string>();
    let columns = 0;
    for (const group of ['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs'] as const) {
      const specs = schema[group];
      if (specs === undefined) continue;
      if (!Array.isArray(specs)) return bad(`Invalid schema: ${schema.schemaName}. Reason: '${group}' must be an array`);
      for (const [index, spec] of (specs as unknown[]).entries()) {
        const where = `${group}[${index}]`;
        if (!isObject(spec) || typeof spec.name !== 'string' || spec.name === '') return bad(`Invalid schema: ${schema.schemaName}. Reason: ${where}.name is missing`);
        if (seen.has(spec.name)) return bad(`Invalid schema: ${schema.schemaName}. Reason: Duplicate column name: ${spec.name}`);
        seen.add(spec.name);
        columns++;
        if (typeof spec.dataType !== 'string' || !(STORE_DATA_TYPES as readonly string[]).includes(spec.dataType)) {
          return bad(`Invalid schema: ${schema.schemaName}. Reason: ${where}.dataType '${String(spec.dataType)}' of column '${spec.name}' is not one of ${STORE_DATA_TYPES.join(', ')}`);
        }
        if (group === 'metricFieldSpecs' && !METRIC_DATA_TYPES.has(spec.dataType)) return bad(`Invalid schema: ${schema.schemaName}. Reason: metric column '${spec.name}' must be numeric or BYTES, not ${spec.dataType}`);
        if (group === 'dateTimeFieldSpecs') {
          if (typeof spec.format !== 'string' || !isDateTimeFormat(spec.format)) return bad(`Invalid schema: ${schema.schemaName}. Reason: ${where}.format '${String(spec.format)}' of column '${spec.name}' is invalid`);
          if (typeof spec.granularity !== 'string' || !isGranularity(spec.granularity)) return bad(`Invalid schema: ${schema.schemaName}. Reason: ${where}.granularity '${String(spec.granularity)}' of column '${spec.name}' is invalid`);
          if (spec.notNull !== undefined && typeof spec.notNull !== 'boolean') return bad(`Invalid schema: ${schema.schemaName}. Reason: ${where}.notNull must be a boolean`);
        }
      }
    }
    if (columns === 0) return bad(`Invalid schema: ${schema.schemaName}. Reason: the schema has no columns`);
    // As the store's controller: a schema taken again under its name may only add columns.
    const before = this.schemas.get(schema.schemaName);
    // Pinot 0.11's words, measured on the end-to-end tier.
    if (before && !onlyAddsColumns(before, schema as AnalyticsSchema)) return bad(`New schema: ${schema.schemaName} is not backward-compatible with the existing schema`);
    this.schemas.set(schema.schemaName, structuredClone(schema as AnalyticsSchema));
    // Pinot 0.11 says "added" for a schema taken again as well (measured).
    return { status: 200, body: { unrecognizedProperties: {}, status: `${schema.schemaName} successfully added` } };
  }

  /** Validates and stores a REALTIME table; `topicExists` asks the stream whether the topic is there. */
  /** `update`: PUT /tables/{name} of the store's controller — the table must exist and is replaced (after the same checks). */
  addTable(body: unknown, topicExists: (topic: string) => boolean, update?: { name: string }): StoreAnswer & { table?: string; topic?: string } {
    if (!isObject(body)) return bad('Invalid table config: the request body must be a JSON object');
    const table = body as Record<string, unknown>;
    const name = table.tableName;
    if (typeof name !== 'string' || name === '') return bad("Invalid table config. Reason: 'tableName' is missing");
    const invalid = (reason: string) => bad(`Invalid table config for table: ${name}. Reason: ${reason}`);
    if (/\s/.test(name)) return invalid(`Table name: '${name}' containing space is not allowed`);
    if (name.includes('.')) return invalid(`Table name: '${name}' containing '.' is not allowed`);
    if (table.tableType !== 'REALTIME') return invalid(`'tableType' must be REALTIME, got '${String(table.tableType)}'`);

    const segments = table.segmentsConfig;
    if (!isObject(segments)) return invalid('"segmentsConfig" field is missing in table config');
    // Current stores deprecate segmentsConfig.schemaName: the schema is the one named as the table.
    const schemaName = segments.schemaName ?? name;
    if (typeof schemaName !== 'string' || schemaName === '') return invalid("'segmentsConfig.schemaName' must name a schema");
    const schema = this.schemas.get(schemaName);
    if (!schema) return invalid(`'segmentsConfig.schemaName': schema '${schemaName}' does not exist; POST the schema first`);
    const timeColumn = segments.timeColumnName;
    if (typeof timeColumn !== 'string' || timeColumn === '') return invalid("'segmentsConfig.timeColumnName' cannot be null in REALTIME table config");
    if (!(schema.dateTimeFieldSpecs ?? []).some((f) => f.name === timeColumn)) {
      return invalid(`'segmentsConfig.timeColumnName': Cannot find valid fieldSpec for timeColumn: ${timeColumn} from the table config: ${name}, in the schema: ${schemaName}`);
    }
    if (segments.timeType !== undefined && !(TIME_UNITS as readonly unknown[]).includes(segments.timeType)) return invalid(`'segmentsConfig.timeType': invalid time unit: ${String(segments.timeType)}`);
    // Retention is optional (without it the store keeps every segment); given, the unit must be a TimeUnit.
    if (segments.retentionTimeUnit !== undefined && !(TIME_UNITS as readonly unknown[]).includes(String(segments.retentionTimeUnit).toUpperCase())) return invalid(`'segmentsConfig.retentionTimeUnit': invalid time unit: ${String(segments.retentionTimeUnit)}`);
    if (segments.retentionTimeValue !== undefined && !isPositiveInteger(segments.retentionTimeValue)) return invalid(`'segmentsConfig.retentionTimeValue' must be a positive integer, got ${JSON.stringify(segments.retentionTimeValue)}`);
    for (const key of ['replication', 'replicasPerPartition'] as const) {
      if (segments[key] !== undefined && !isPositiveInteger(segments[key])) return invalid(`'segmentsConfig.${key}' must be a positive integer, got ${JSON.stringify(segments[key])}`);
    }
    if (segments.replication === undefined && segments.replicasPerPartition === undefined) return invalid("'segmentsConfig.replication': Cannot parse null string");

    // Where a current store reads the stream config: the one map of streamConfigMaps, else tableIndexConfig.streamConfigs.
    const place = streamConfigPlace(table);
    if (place.kind === 'problem') return invalid(`'${fieldPath(place.path)}': ${place.message}`);
    const at = fieldPath(place.path);
    const stream = place.map;
    // A map of strings, as Jackson reads it: numbers and booleans read as their text.
    for (const [key, value] of Object.entries(stream)) if (typeof value === 'object' && value !== null) return invalid(`'${at}.${key}' must be a string`);
    const streamType = stream.streamType;
    if (typeof streamType !== 'string' || streamType === '') return invalid(`'${at}.streamType': Stream type cannot be null`);
    const topicKey = `stream.${streamType}.topic.name`;
    const topic = stream[topicKey];
    if (typeof topic !== 'string' || topic === '') return invalid(`'${at}.${topicKey}': Stream topic name cannot be null`);
    // A current store's StreamConfig: the decoder is required; the consumer factory defaults to Kafka 2.0's;
    // the consumer type is optional, and only the removed highlevel consumer is refused.
    const decoderKey = `stream.${streamType}.decoder.class.name`;
    if (typeof stream[decoderKey] !== 'string' || stream[decoderKey] === '') return invalid(`'${at}.${decoderKey}': Must specify decoder class name ${decoderKey}`);
    const consumerType = stream[`stream.${streamType}.consumer.type`];
    if (consumerType !== undefined && String(consumerType).split(',').some((type) => type.trim().toLowerCase() === 'highlevel')) {
      return invalid('Realtime tables with HLC consumer (consumer.type=highlevel) is no longer supported in Apache Pinot');
    }
    if (!topicExists(topic)) return invalid(`'${at}.${topicKey}': topic '${topic}' does not exist on the stream`);
    // As Pinot's controller, which asks the stream for the topic's partitions with the table's own stream user.
    if (this.reachesStream(stream) && !this.streamAccepts(stream)) return { status: 500, body: { code: 500, error: STORE_SCRAM_REFUSAL } };

    const ingestion = table.ingestionConfig;
    if (ingestion !== undefined) {
      if (!isObject(ingestion)) return invalid("'ingestionConfig' must be an object");
      const transforms = ingestion.transformConfigs ?? [];
      if (!Array.isArray(transforms)) return invalid("'ingestionConfig.transformConfigs' must be an array");
      const columns = new Set([...(schema.dimensionFieldSpecs ?? []), ...(schema.metricFieldSpecs ?? []), ...(schema.dateTimeFieldSpecs ?? [])].map((f) => f.name));
      for (const [index, transform] of (transforms as unknown[]).entries()) {
        if (!isObject(transform) || typeof transform.columnName !== 'string' || typeof transform.transformFunction !== 'string') {
          return invalid(`'ingestionConfig.transformConfigs[${index}]': columnName/transformFunction cannot be null in TransformConfig`);
        }
        if (!columns.has(transform.columnName)) return invalid(`'ingestionConfig.transformConfigs[${index}].columnName': the destination column '${transform.columnName}' of the transform function must be present in the schema`);
      }
    }
    // TableConfig requires the key; broker and server left out take DefaultTenant (TagNameUtils).
    const tenants = table.tenants;
    if (!isObject(tenants)) return bad("Invalid table config: Missing required creator property 'tenants'");
    for (const key of ['broker', 'server'] as const) if (tenants[key] !== undefined && typeof tenants[key] !== 'string') return invalid(`'tenants.${key}' must be a tenant name`);

    if (update) {
      if (update.name.replace(/_REALTIME$/, '') !== name) return bad(`Request table ${update.name} does not match table name in the body ${name}`);
      if (!this.tables.has(name)) return { status: 404, body: { code: 404, error: `Table ${name}_REALTIME does not exist` } };
      this.tables.set(name, { definition: structuredClone(table) as unknown as RealtimeTableDefinition, topic, created: this.tables.get(name)!.created });
      return { status: 200, body: { status: `Table config updated for ${name}` }, table: name, topic };
    }
    if (this.tables.has(name)) return { status: 409, body: { code: 409, error: `Table config for ${name}_REALTIME already exists. If this is unexpected, try deleting the table to remove all metadata associated with it.` } };
    this.tables.set(name, { definition: structuredClone(table) as unknown as RealtimeTableDefinition, topic, created: new Date() });
    return { status: 200, body: { unrecognizedProperties: {}, status: `Table ${name}_REALTIME successfully added` }, table: name, topic };
  }

  /** Whether a table's broker list names the sandbox's stream. */
  reachesStream(streams: Record<string, unknown>): boolean {
    if (!this.stream) return false;
    const brokers = streams[`stream.${String(streams.streamType)}.broker.list`];
    return typeof brokers === 'string' && brokers.split(',').some((b) => b.trim() === this.stream!.address || b.trim() === this.stream!.inClusterAddress);
  }

  /** The table's stream user and password, as its JAAS line names them, are the stream's. */
  streamAccepts(streams: Record<string, unknown>): boolean {
    const jaas = streams['sasl.jaas.config'];
    if (typeof jaas !== 'string') return false;
    const { username, password } = parseJaasOptions(jaas);
    return username !== undefined && password !== undefined && this.stream!.accepts(username, password);
  }
}

/**
 * The analytics store behind the gateway's OLAP endpoints, as the gateway asks it: the
 * sandbox's own (memoryStoreBackend) or, in the end-to-end tier, a real store's
 * controller (scripts/platform/backing.mjs). A table it created says its name and topic,
 * for the permissions the platform grants on it.
 */
export interface StoreBackend {
  addSchema(body: unknown): Promise<StoreAnswer>;
  addTable(body: unknown): Promise<StoreAnswer & { table?: string; topic?: string }>;
  updateTable(name: string, body: unknown): Promise<StoreAnswer>;
  readSchema(name: string): Promise<StoreAnswer>;
  readTable(name: string): Promise<StoreAnswer>;
  consumingSegments(name: string): Promise<StoreAnswer>;
  listTables(): Promise<StoreAnswer>;
  listSchemas(): Promise<StoreAnswer>;
  /** `type`: the query's `type` (realtime), passed on as given. */
  deleteTable(name: string, type: string | undefined): Promise<StoreAnswer>;
  deleteSchema(name: string): Promise<StoreAnswer>;
  /** GET /tables/{name}/externalview and /debug/tables/{name} of the store's controller, POST /query/sql of its broker (`dpgw table status`). */
  externalView(name: string): Promise<StoreAnswer>;
  tableDebug(name: string): Promise<StoreAnswer>;
  query(body: unknown): Promise<StoreAnswer>;
  /** POST /segments/{name}/reload?type=REALTIME, GET /segments/segmentReloadStatus/{jobId}, POST /tables/{name}/forceCommit, GET /tables/forceCommitStatus/{jobId} of the store's controller (issue #47's reload step). */
  reloadSegments(name: string): Promise<StoreAnswer>;
  reloadStatus(jobId: string): Promise<StoreAnswer>;
  forceCommit(name: string): Promise<StoreAnswer>;
  forceCommitStatus(jobId: string): Promise<StoreAnswer>;
  /** GET /tables/{name}/pauseStatus, POST /tables/{name}/pauseConsumption | resumeConsumption of the store's controller (`dpgw table status|pause|resume`). */
  pauseStatus(name: string): Promise<StoreAnswer>;
  changeConsumption(name: string, change: 'pause' | 'resume', consumeFrom: string | undefined): Promise<StoreAnswer>;
  /** POST /tableConfigs/validate, /schemas/validate, /tables/validate of the store's controller: read-only (store-validate-calls.ts). */
  validate(call: ValidateCall, body: unknown): Promise<StoreAnswer>;
}

/** The sandbox's own store; `topicExists` asks the catalog whether a topic is there. */
export function memoryStoreBackend(store: OlapStore, topicExists: (topic: string) => boolean): StoreBackend {
  return {
    addSchema: async (body) => {
      const before = isObject(body) && typeof body.schemaName === 'string' ? store.schemas.get(body.schemaName) : undefined;
      const answer = store.addSchema(body);
      if (answer.status === 200) store.reloads.schemaTaken(before, store.schemas.get((body as AnalyticsSchema).schemaName)!);
      return answer;
    },
    addTable: async (body) => store.addTable(body, topicExists),
    updateTable: async (name, body) => store.addTable(body, topicExists, { name }),
    readSchema: async (name) => readSchema(store, name),
    readTable: async (name) => readTable(store, name),
    consumingSegments: async (name) => consumingSegments(store, name),
    listTables: async () => store.listTables(),
    listSchemas: async () => store.listSchemas(),
    deleteTable: async (name, type) => store.deleteTable(name, type),
    deleteSchema: async (name) => store.deleteSchema(name),
    externalView: async (name) => externalView(store, name),
    query: async (body) => (isObject(body) && typeof body.sql === 'string' ? store.reloads.query(body.sql) : undefined) ?? query(store, body),
    reloadSegments: async (name) => store.reloads.reload(name),
    reloadStatus: async (jobId) => store.reloads.reloadStatus(jobId),
    forceCommit: async (name) => store.reloads.forceCommit(name),
    forceCommitStatus: async (jobId) => store.reloads.forceCommitStatus(jobId),
    tableDebug: async (name) => tableDebug(store, name),
    pauseStatus: async (name) => pauseStatus(store, name),
    changeConsumption: async (name, change, consumeFrom) => changeConsumption(store, name, change, consumeFrom),
    validate: async (call, body) => validateInStore(store, call, body),
  };
}

/** The store controller's pauseStatus, as Pinot 0.11 answers it (consumption-emulation.ts). */
function pauseStatus(store: OlapStore, name: string): StoreAnswer {
  const bare = name.replace(/_REALTIME$/, '');
  const segments = segmentsOf(store, bare);
  return store.consumption.pauseStatus(bare, segments !== undefined, (segments ?? []).filter((s) => s.consuming).map((s) => s.name));
}

/** The store controller's pauseConsumption and resumeConsumption; a resume from smallest or largest leaves no partition behind. */
function changeConsumption(store: OlapStore, name: string, change: 'pause' | 'resume', consumeFrom: string | undefined): StoreAnswer {
  const bare = name.replace(/_REALTIME$/, '');
  const consuming = () => (segmentsOf(store, bare) ?? []).filter((s) => s.consuming).map((s) => s.name);
  const exists = store.tables.has(bare);
  if (change === 'pause') return store.consumption.pause(bare, exists, consuming());
  const answer = store.consumption.resume(bare, exists, consumeFrom, consuming);
  if (answer.status === 200 && consumeFrom !== undefined) for (const trouble of store.partitionTrouble.get(bare)?.values() ?? []) delete trouble.behind;
  return answer;
}

/**
 * The consuming segments of a table, in the shape of Pinot 0.11's
 * `GET /tables/{name}/consumingSegmentsInfo` (measured on the end-to-end tier): one
 * segment per partition, named `{table}__{partition}__{sequence}__{time}`, with the
 * server's consumer state and the offset it has reached. A table whose brokers are
 * not the sandbox's stream is "NOT_CONSUMING": its consumers cannot connect.
 */
export function consumingSegments(store: OlapStore, name: string): StoreAnswer {
  const bare = name.replace(/_REALTIME$/, '');
  const segments = segmentsOf(store, bare);
  if (!segments) return { status: 500, body: { code: 500, error: `Failed to get consuming segments info for table ${bare}. Ideal state does not exist for table: ${bare}_REALTIME` } };
  // A segment in ERROR has no consumer on its server, so no server reports it (Pinot 0.11).
  const reported = segments.filter((s) => !s.error);
  return {
    status: 200,
    body: {
      // A paused table's segments are committed: none is listed (Pinot: an empty or shrinking map).
      _segmentToConsumingInfoMap: Object.fromEntries(
        reported.filter((s) => !s.paused).map((s) => [s.name, [{ serverName: SANDBOX_SERVER, consumerState: s.consuming ? 'CONSUMING' : 'NOT_CONSUMING', lastConsumedTimestamp: s.consuming ? Date.now() : 0, partitionToOffsetMap: { [String(s.partition)]: String(s.offset) } }]]),
      ),
    },
  };
}

interface SandboxSegment {
  name: string;
  partition: number;
  /** Its consumer reaches the stream and is accepted. */
  consuming: boolean;
  /** The offset reached: what the partition holds, less what it is behind; 0 when not consuming. */
  offset: number;
  /** The rows its decoder made of the records before the offset. */
  rows: number;
  /** Its table's consumption is paused: the segment is committed (ONLINE), nothing consumes it. */
  paused: boolean;
  /** Its table's brokers are not the stream the store reaches. */
  unreachable: boolean;
  error?: string;
  stackTrace?: string;
}

/** The one consuming segment of each partition of a table's topic, with the trouble set for it; undefined when there is no such table. */
function segmentsOf(store: OlapStore, bare: string): SandboxSegment[] | undefined {
  const stored = store.tables.get(bare);
  if (!stored) return undefined;
  const place = streamConfigPlace(stored.definition);
  const streams = place.kind === 'found' ? place.map : {};
  const counts = store.stream?.partitions(stored.topic) ?? [];
  const reached = store.reachesStream(streams);
  const consuming = reached && store.streamAccepts(streams);
  const created = stored.created.toISOString().replace(/[-:]/g, '').slice(0, 13) + 'Z';
  const trouble = store.partitionTrouble.get(bare);
  const paused = store.consumption.isPaused(bare);
  return counts.map((count, partition) => {
    const { behind = 0, error, stackTrace } = trouble?.get(partition) ?? {};
    const offset = consuming ? Math.max(0, count - behind) : 0;
    const rows = store.stream?.rowsUpTo?.(stored.topic, partition, offset) ?? offset;
    return { name: `${bare}__${partition}__${stored.sequence ?? 0}__${created}`, partition, consuming: consuming && !paused, offset, rows, paused, unreachable: !reached, ...(error !== undefined ? { error } : {}), ...(stackTrace !== undefined ? { stackTrace } : {}) };
  });
}

/** Pinot 0.11's `GET /tables/{name}/externalview`: each segment's state on each server, by table type. */
export function externalView(store: OlapStore, name: string): StoreAnswer {
  const bare = name.replace(/_REALTIME$/, '');
  const segments = segmentsOf(store, bare);
  if (!segments) return { status: 404, body: { code: 404, error: `Table ${bare} not found` } };
  return { status: 200, body: { OFFLINE: null, REALTIME: Object.fromEntries(segments.map((s) => [s.name, { [SANDBOX_SERVER]: s.error ? 'ERROR' : s.paused ? 'ONLINE' : 'CONSUMING' }])) } };
}

/**
 * Pinot's broker `POST /query/sql`, for the one query `dpgw table status` sends: the rows of
 * each segment of a table (`SELECT $segmentName, COUNT(*) FROM "t" GROUP BY $segmentName …`),
 * in the broker's answer shape; a segment holds what its partition's consumer has reached. Any
 * other statement is answered as the broker answers one it cannot run.
 */
export function query(store: OlapStore, body: unknown): StoreAnswer {
  const sql = isObject(body) && typeof body.sql === 'string' ? body.sql : '';
  const counted = /^SELECT \$segmentName, COUNT\(\*\) FROM "?([\w-]+)"? GROUP BY \$segmentName(?: LIMIT \d+)?$/i.exec(sql.trim());
  const segments = counted ? segmentsOf(store, counted[1]!.replace(/_REALTIME$/, '')) : undefined;
  if (!segments) {
    return { status: 200, body: { exceptions: [{ errorCode: 150, message: `SQLParsingError: the sandbox's broker answers only the segment count of an existing table: ${sql.slice(0, 200)}` }], resultTable: null } };
  }
  const held = segments.filter((s) => !s.error && s.rows > 0);
  return {
    status: 200,
    body: {
      resultTable: { dataSchema: { columnNames: ['$segmentName', 'count(*)'], columnDataTypes: ['STRING', 'LONG'] }, rows: held.map((s) => [s.name, s.rows]) },
      exceptions: [],
      numServersQueried: 1,
      numServersResponded: 1,
      numSegmentsQueried: segments.length,
      totalDocs: held.reduce((sum, s) => sum + s.rows, 0),
    },
  };
}

/**
 * Pinot 0.11's `GET /debug/tables/{name}` (verbosity 0): a list with one entry per table type,
 * only the segments with a problem listed, each with its server's error; the ingestion status
 * in the controller's words for a consuming segment no server reports or consumes.
 */
export function tableDebug(store: OlapStore, name: string): StoreAnswer {
  const bare = name.replace(/_REALTIME$/, '');
  const segments = segmentsOf(store, bare);
  if (!segments) return { status: 404, body: { code: 404, error: `Table '${bare}' not found` } };
  const unreported = segments.find((s) => s.error);
  const stopped = segments.find((s) => !s.consuming && !s.paused);
  const ingestionStatus = unreported
    ? { ingestionState: 'UNHEALTHY', errorMessage: `Did not get any response from servers for segment: ${unreported.name}` }
    : stopped
      ? { ingestionState: 'UNHEALTHY', errorMessage: `Segment: ${stopped.name} is not being consumed on server: ${SANDBOX_SERVER}` }
      : { ingestionState: 'HEALTHY', errorMessage: '' };
  const troubled = segments.filter((s) => s.error || (!s.consuming && !s.paused));
  return {
    status: 200,
    body: [
      {
        tableName: `${bare}_REALTIME`,
        ingestionStatus,
        tableSize: { reportedSize: '0 bytes', estimatedSize: '0 bytes' },
        numSegments: segments.length,
        numServers: 1,
        numBrokers: 1,
        segmentDebugInfos: troubled.map((s) => ({
          segmentName: s.name,
          serverState: {
            [SANDBOX_SERVER]: s.error
              ? { idealState: 'CONSUMING', externalView: 'ERROR', segmentSize: null, consumerInfo: null, errorInfo: { timestamp: new Date().toISOString(), errorMessage: s.error, stackTrace: s.stackTrace ?? null } }
              : {
                  idealState: 'CONSUMING',
                  externalView: 'CONSUMING',
                  segmentSize: '0 bytes',
                  consumerInfo: { segmentName: s.name, consumerState: 'NOT_CONSUMING', lastConsumedTimestamp: 0, partitionToOffsetMap: { [String(s.partition)]: '0' } },
                  // Brokers the store cannot reach: its consumer gave up, with Kafka's exception (consumption-emulation.ts).
                  errorInfo: s.unreachable ? { timestamp: new Date().toISOString(), ...UNREACHABLE_BROKERS_ERROR } : null,
                },
          },
        })),
        serverDebugInfos: [],
        brokerDebugInfos: [],
      },
    ],
  };
}

/**
 * The reads of the store's controller, in the shapes measured on the end-to-end tier's
 * Pinot 0.11 (docs/gateway-api.md): a schema as stored, less `notNull` of date-time
 * columns (Pinot 0.11 does not know it); a table wrapped by its type, named with the
 * type's suffix, the numbers of segmentsConfig as strings, and the defaults the
 * controller fills in. A table it does not have is 200 `{}`; a schema, 404.
 */
export function readSchema(store: OlapStore, name: string): StoreAnswer {
  const schema = store.schemas.get(name);
  if (!schema) return { status: 404, body: { code: 404, error: 'Schema not found' } };
  const stored = structuredClone(schema) as AnalyticsSchema;
  for (const spec of stored.dateTimeFieldSpecs ?? []) delete (spec as { notNull?: boolean }).notNull;
  return { status: 200, body: stored };
}

export function readTable(store: OlapStore, name: string): StoreAnswer {
  const bare = name.replace(/_REALTIME$/, '');
  const stored = store.tables.get(bare);
  if (!stored) return { status: 200, body: {} };
  const table = structuredClone(stored.definition) as unknown as Record<string, Record<string, unknown>>;
  const segments = table.segmentsConfig ?? {};
  const asText = (value: unknown) => (typeof value === 'number' ? String(value) : value);
  return {
    status: 200,
    body: {
      REALTIME: {
        ...table,
        tableName: `${bare}_REALTIME`,
        segmentsConfig: {
          ...segments,
          retentionTimeValue: asText(segments.retentionTimeValue),
          replication: asText(segments.replication),
          replicasPerPartition: asText(segments.replicasPerPartition),
          minimizeDataMovement: false,
        },
        tableIndexConfig: { ...STORE_INDEX_DEFAULTS, ...table.tableIndexConfig },
        isDimTable: false,
      },
    },
  };
}

/** What Pinot 0.11's controller adds to a table's tableIndexConfig when it stores it. */
const STORE_INDEX_DEFAULTS = {
  rangeIndexVersion: 2,
  autoGeneratedInvertedIndex: false,
  createInvertedIndexDuringSegmentGeneration: false,
  enableDefaultStarTree: false,
  enableDynamicStarTreeCreation: false,
  aggregateMetrics: false,
  nullHandlingEnabled: false,
  optimizeDictionaryForMetrics: false,
  noDictionarySizeRatioThreshold: 0,
};

/** Every column of `before` is in `after`, in the same group with the same type. */
function onlyAddsColumns(before: AnalyticsSchema, after: AnalyticsSchema): boolean {
  const columns = (schema: AnalyticsSchema) =>
    new Map(['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs'].flatMap((group) => ((schema as unknown as Record<string, Array<{ name: string; dataType: string }> | undefined>)[group] ?? []).map((spec) => [spec.name, `${group} ${spec.dataType}`] as const)));
  const after_ = columns(after);
  return [...columns(before)].every(([name, kind]) => after_.get(name) === kind);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isPositiveInteger(value: unknown): boolean {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number > 0;
}
