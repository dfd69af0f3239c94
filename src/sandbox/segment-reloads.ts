/**
 * The sandbox store's reloads and force commits (issue #47), as Pinot's controller answers
 * them (shapes in src/provision/steps/reload-step.ts and docs/gateway-api.md): a reload is a
 * job with an id whose progress finishes after `reloadMs`; a force commit starts the next
 * consuming segment of each partition after `commitMs` (Pinot 0.11.0: an empty answer and no
 * job; `forceCommitJobs`: 1.x's job id and status). And what a query sees of a column added
 * to a table's schema: the column's default in every row of a segment that was consuming, or
 * stored, before the change — only the consuming segments started after it (a force commit,
 * here) hold the messages' values (LLRealtimeSegmentDataManager, RealtimeTableDataManager#addSegment).
 */
import { randomUUID } from 'node:crypto';
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';

interface StoreAnswer {
  status: number;
  body: unknown;
}

/** What of the sandbox's store (olap-store.ts, which holds this) the reloads read and change; named here so the two do not import each other. */
export interface ReloadableStore {
  readonly schemas: Map<string, AnalyticsSchema>;
  readonly tables: Map<string, { definition: RealtimeTableDefinition; topic: string; sequence?: number }>;
  readonly stream: { partitions(topic: string): number[] | undefined; messages?(topic: string): string[][] | undefined } | undefined;
  consumingSegmentNames(bare: string): string[];
}

interface ReloadJob {
  table: string;
  submittedMs: number;
}

interface CommitJob {
  table: string;
  segments: string[];
  done: boolean;
}

/** The default a store gives a column it has no value for (Pinot's FieldSpec defaults), unless the schema names one. */
function defaultOf(schema: AnalyticsSchema, column: string): unknown {
  for (const group of ['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs'] as const) {
    const spec = (schema[group] as Array<{ name: string; dataType: string; defaultNullValue?: unknown }> | undefined)?.find((s) => s.name === column);
    if (!spec) continue;
    if (spec.defaultNullValue !== undefined) return spec.defaultNullValue;
    if (group === 'metricFieldSpecs') return 0;
    const minimum: Record<string, unknown> = { INT: -2147483648, LONG: -9223372036854775808, FLOAT: Number.NEGATIVE_INFINITY, DOUBLE: Number.NEGATIVE_INFINITY, BOOLEAN: 0, TIMESTAMP: 0 };
    return spec.dataType in minimum ? minimum[spec.dataType] : 'null';
  }
  return undefined;
}

export class SegmentReloads {
  /** How long a reload job takes until every segment is reloaded. */
  reloadMs = 300;
  /** How long a force commit takes until the next consuming segments have started. */
  commitMs = 200;
  /** Answer a force commit with a job (Pinot 1.x) rather than an empty answer (0.11.0). */
  forceCommitJobs = false;
  private readonly reloadJobs = new Map<string, ReloadJob>();
  private readonly commitJobs = new Map<string, CommitJob>();
  /** Columns a schema gained while a table used it: by schema, the columns. */
  private readonly added = new Map<string, Set<string>>();
  /** By table and column: the offset of each partition from which rows carry the column's values. */
  private readonly valuesFrom = new Map<string, Map<string, number[]>>();

  constructor(private readonly store: ReloadableStore) {}

  /** Told of every schema the store takes: columns added to one a table uses are held with the default in its segments so far. */
  schemaTaken(before: AnalyticsSchema | undefined, after: AnalyticsSchema): void {
    if (!before) return;
    const used = [...this.store.tables.entries()].some(([name, stored]) => (stored.definition.segmentsConfig?.schemaName ?? name) === after.schemaName);
    if (!used) return;
    const held = new Set(columnsOf(before));
    const added = this.added.get(after.schemaName) ?? new Set<string>();
    for (const column of columnsOf(after)) if (!held.has(column)) added.add(column);
    this.added.set(after.schemaName, added);
  }

  /** POST /segments/{name}/reload?type=REALTIME (PinotSegmentRestletResource#reloadAllSegments, 0.11.0's answer). */
  reload(name: string): StoreAnswer {
    const bare = name.replace(/_REALTIME$/, '');
    const segments = this.segmentCount(bare);
    if (segments === undefined) return { status: 404, body: { code: 404, error: `Table '${bare}' not found.` } };
    const jobId = randomUUID();
    this.reloadJobs.set(jobId, { table: bare, submittedMs: Date.now() });
    const details = { [`${bare}_REALTIME`]: { numMessagesSent: String(segments === 0 ? 0 : 1), reloadJobId: jobId, reloadJobMetaZKStorageStatus: 'SUCCESS' } };
    return { status: 200, body: { status: `Segment reload details: ${JSON.stringify(details)}` } };
  }

  /** GET /segments/segmentReloadStatus/{jobId} (PinotSegmentRestletResource#getReloadJobStatus): the segments counted now, reloaded in proportion to the time passed. */
  reloadStatus(jobId: string): StoreAnswer {
    const job = this.reloadJobs.get(jobId);
    if (!job) return { status: 404, body: { code: 404, error: `Failed to find controller job id: ${jobId}` } };
    const total = this.segmentCount(job.table) ?? 0;
    const elapsed = Date.now() - job.submittedMs;
    const reloaded = this.reloadMs <= 0 ? total : Math.min(total, Math.floor((total * elapsed) / this.reloadMs));
    return {
      status: 200,
      body: {
        estimatedTimeRemainingInMinutes: reloaded === 0 ? -1 : Math.max(0, (this.reloadMs - elapsed) / 60_000),
        timeElapsedInMinutes: elapsed / 60_000,
        totalSegmentCount: total,
        successCount: reloaded,
        totalServersQueried: 1,
        totalServerCallsFailed: 0,
        metadata: { jobId, jobType: 'RELOAD_ALL_SEGMENTS', tableName: `${job.table}_REALTIME`, submissionTimeMs: String(job.submittedMs), messageCount: '1' },
      },
    };
  }

  /** POST /tables/{name}/forceCommit (PinotRealtimeTableResource#forceCommit): 0.11.0 answers nothing; with `forceCommitJobs`, 1.x's job. */
  forceCommit(name: string): StoreAnswer {
    const bare = name.replace(/_REALTIME$/, '');
    const stored = this.store.tables.get(bare);
    if (!stored) return { status: 404, body: { code: 404, error: `Table ${bare}_REALTIME not found!` } };
    const segments = this.store.consumingSegmentNames(bare);
    const job: CommitJob = { table: bare, segments, done: false };
    const commit = () => {
      // The next consuming segment of each partition starts where the committed one ended, with the schema as it is now.
      const offsets = this.store.stream?.partitions(stored.topic) ?? [];
      const schemaName = stored.definition.segmentsConfig?.schemaName ?? bare;
      const columns = this.valuesFrom.get(bare) ?? new Map<string, number[]>();
      for (const column of this.added.get(schemaName) ?? []) if (!columns.has(column)) columns.set(column, [...offsets]);
      this.valuesFrom.set(bare, columns);
      stored.sequence = (stored.sequence ?? 0) + 1;
      job.done = true;
    };
    if (this.commitMs <= 0) commit();
    else setTimeout(commit, this.commitMs).unref();
    if (!this.forceCommitJobs) return { status: 200, body: undefined };
    const jobId = randomUUID();
    this.commitJobs.set(jobId, job);
    return { status: 200, body: { forceCommitStatus: 'SUCCESS', jobMetaZKWriteStatus: 'SUCCESS', forceCommitJobId: jobId } };
  }

  /** GET /tables/forceCommitStatus/{jobId} (Pinot 1.0 and later). */
  forceCommitStatus(jobId: string): StoreAnswer {
    const job = this.commitJobs.get(jobId);
    if (!job || !this.forceCommitJobs) return { status: 404, body: { code: 404, error: `Failed to find controller job id: ${jobId}` } };
    const left = job.done ? [] : job.segments;
    return { status: 200, body: { jobId, jobType: 'FORCE_COMMIT', tableName: `${job.table}_REALTIME`, segmentsForceCommitted: JSON.stringify(job.segments), segmentsYetToBeCommitted: left, numberOfSegmentsYetToBeCommitted: left.length } };
  }

  /**
   * The broker's answer to `SELECT "c", COUNT(*) FROM "t" GROUP BY "c"` over the messages the
   * table's consumers have reached: a column the schema gained shows its default in the rows
   * before the first segment started after the change; undefined for any other statement.
   */
  query(sql: string): StoreAnswer | undefined {
    const grouped = /^SELECT "?(\w+)"?, COUNT\(\*\) FROM "?([\w-]+)"? GROUP BY "?(\w+)"?(?: LIMIT \d+)?$/i.exec(sql.trim());
    if (!grouped || grouped[1] !== grouped[3]) return undefined;
    const column = grouped[1]!;
    const bare = grouped[2]!.replace(/_REALTIME$/, '');
    const stored = this.store.tables.get(bare);
    const schema = stored ? this.store.schemas.get(stored.definition.segmentsConfig?.schemaName ?? bare) : undefined;
    const messages = stored ? this.store.stream?.messages?.(stored.topic) : undefined;
    if (!stored || !schema || !messages) return undefined;
    const fallback = defaultOf(schema, column);
    if (fallback === undefined) return { status: 200, body: { exceptions: [{ errorCode: 710, message: `QueryExecutionError: Unknown column ${column}` }], resultTable: null } };
    const added = this.added.get(schema.schemaName)?.has(column) === true;
    const from = this.valuesFrom.get(bare)?.get(column);
    const counts = new Map<string, { value: unknown; count: number }>();
    messages.forEach((partition, index) =>
      partition.forEach((text, offset) => {
        const carries = !added || (from !== undefined && offset >= (from[index] ?? Infinity));
        const value = carries ? (valueIn(text, column) ?? fallback) : fallback;
        const key = JSON.stringify(value);
        counts.set(key, { value, count: (counts.get(key)?.count ?? 0) + 1 });
      }),
    );
    const rows = [...counts.values()].map(({ value, count }) => [value, count]);
    return { status: 200, body: { resultTable: { dataSchema: { columnNames: [column, 'count(*)'], columnDataTypes: ['STRING', 'LONG'] }, rows }, exceptions: [], numServersQueried: 1, numServersResponded: 1 } };
  }

  /** The segments a reload counts: every consuming segment, and the committed ones before it. */
  private segmentCount(bare: string): number | undefined {
    const stored = this.store.tables.get(bare);
    if (!stored) return undefined;
    const partitions = this.store.stream?.partitions(stored.topic)?.length ?? 0;
    return partitions * ((stored.sequence ?? 0) + 1);
  }
}

function columnsOf(schema: AnalyticsSchema): string[] {
  return (['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs'] as const).flatMap((group) => ((schema[group] ?? []) as Array<{ name: string }>).map((spec) => spec.name));
}

function valueIn(text: string, column: string): unknown {
  try {
    const message = JSON.parse(text) as Record<string, unknown>;
    return message[column] ?? undefined;
  } catch {
    return undefined;
  }
}
