/**
 * The steps of one data set of a manifest, in the contract's order — enable and wait for the
 * topic → stream pre-flight → sample check → schema → table → storage touch → consumption →
 * verify and dashboard when the entry has them — each a plan and an apply (the halves in
 * steps/*.ts) for the one executor (executor.ts) to walk, in a plan as in a run.
 */
import { whereText, type Where } from '../errors/source-location.js';
import { type CatalogCache, type EnableResult } from '../catalog/enable-data-set.js';
import type { AnalyticsSchema, CatalogDataSet, RealtimeTableDefinition } from '../contract/types.js';
import { buildTable, type TableInputs, type TableSettings } from '../olap/build-table.js';
import type { ManifestMark } from '../olap/manifest-mark.js';
import type { InferSettings } from './manifest.js';
import { inferStep, type InferredForStep } from './infer-step.js';
import { DATE_TIME_DEFAULTS } from '../contract/constants.js';
import { FILLED_TIME_COLUMN } from '../schema-inference/infer-schema.js';
import { DEFAULT_TOPIC_SAMPLE } from '../schema-inference/sample-messages.js';
import { streamCheckSkipped, type TopicFacts } from '../stream/stream-preflight.js';
import { changedSomething, notStartedStep, wouldChange, type StepRecord } from './steps/step-record.js';
import { OwnedInput, walkSteps, type Step, type StepMode } from './executor.js';
import type { DataSetResult, Prepared, RunOptions, RunReads } from './run-options.js';
import { applyEnable, planEnable } from './steps/enable-step.js';
import { applyStream, planStream } from './steps/stream-step.js';
import { applySample, planSample, SAMPLE_CHECK_OFF, sampleCheckSkipped, sampleSkippedWithStream, type SampleIgnore } from './steps/sample-step.js';
import { applySchema, planSchema, plannedInferredSchema, refusedSchemaRecord } from './steps/schema-step.js';
import { applyTable, planTable, refusedTableRecord } from './steps/table-step.js';
import { failedReplacementRecord, refusedReplaceRecord } from './steps/replace-table.js';
import { withStoreJudgement } from './store-validation.js';
import { applyStorage, planStorage } from './steps/storage-step.js';
import { applyConsume, planConsume } from './steps/consume-step.js';
import { applyReload, planReload, type ReloadSettings, type ReloadTarget } from './steps/reload-step.js';
import { DEFAULT_WAIT_RELOAD_SECONDS } from './steps/wait-reload.js';
import type { LiveComparison } from './live-state.js';
import { planVerify, verifyStep } from './steps/verify-step.js';
import { applyDashboard, planDashboard, type DashboardSpec } from './steps/dashboard-step.js';

/** What every data set's steps share: the run's options, its reads, the platform's version and (a plan's) the catalog's listing. */
export interface RunContext {
  readonly options: RunOptions;
  readonly reads: RunReads;
  readonly version: string | undefined;
  readonly listed: readonly CatalogDataSet[];
}

export function notStartedResult({ entry, schemaName, tableName }: Prepared): DataSetResult {
  return { dataset: entry.dataset, datasource: entry.datasource, enablement: entry.enablement ?? entry.dataset, schema: schemaName, table: tableName, status: 'skipped', changed: false, steps: [], ms: 0 };
}

export async function walkDataSet(mode: StepMode, item: Prepared, run: RunContext): Promise<DataSetResult> {
  const started = Date.now();
  const { entry, schemaName, tableName } = item;
  const work = new DataSetWork(mode, item, run);
  // Another manifest's table first, then a schema the store refuses: found before the run, nothing of this data set is sent.
  const refusedBeforeRun = run.reads.refusedTables.get(entry.index) ?? run.reads.refusedSchemas.get(entry.index);
  const walked = await walkSteps(mode, dataSetSteps(entry), work, { interrupted: run.options.interrupted, refusedBeforeRun });
  const { steps } = walked;
  const uncompared = steps.some((step) => (mode === 'plan' ? step.action : step.status) === 'not-compared');
  if (mode === 'plan') {
    const changed = steps.some((step) => step.action === 'refused' || wouldChange(step));
    return { dataset: entry.dataset, datasource: entry.datasource, enablement: work.enablement, topic: work.topic, schema: schemaName, table: tableName, status: 'planned', changed, uncompared, steps, ms: Date.now() - started };
  }
  const status = walked.outcome === 'failed' ? 'failed' : walked.outcome === 'interrupted' ? 'interrupted' : 'done';
  // The keys in the order a run's summary has always had them.
  return {
    ...notStartedResult(item),
    enablement: work.enablement,
    status,
    changed: steps.some(changedSomething),
    steps,
    ms: Date.now() - started,
    ...(work.enabled ? { topic: work.enabled.topic } : {}),
    uncompared,
    ...(walked.error ? { error: walked.error.toJSON(), exitCode: walked.error.exitCode } : {}),
  };
}

/** A data set's own state while its steps are walked: what the steps before found, for the steps after. */
class DataSetWork {
  readonly entry: Prepared['entry'];
  enablement: string;
  /** The topic: a plan's when the data set is enabled already; a run's once enabled. */
  topic?: string;
  /** A run's enablement and data set, once enabled. */
  enabled?: EnableResult;
  /** Why the stream step was skipped: the sample is skipped with it. */
  streamSkipped?: string;
  streamFacts?: TopicFacts;
  /** The schema given, or inferred from the topic (a plan's, before the topic exists: none). */
  readonly schema: OwnedInput<{ schema?: AnalyticsSchema; inferred?: InferredForStep }>;
  /** The table definition, built with the schema: the schema step's, as it is sent with it. */
  readonly table: OwnedInput<RealtimeTableDefinition>;
  /** The columns the schema step adds to the store's schema (none when it creates or keeps it). */
  addedColumns: readonly string[] = [];

  constructor(
    readonly mode: StepMode,
    readonly prepared: Prepared,
    readonly run: RunContext,
  ) {
    const { entry, schemaName } = prepared;
    const { options } = run;
    this.entry = entry;
    this.enablement = entry.enablement ?? entry.dataset;
    const infer = inferSettingsOf(entry);
    this.schema = new OwnedInput('schema', async () => {
      if (!infer || (mode === 'plan' && this.topic === undefined)) return { schema: prepared.schema };
      // A plan infers from the data set's topic; a run from the topic its table consumes.
      const inferred = await inferStep(inferInputs(entry, infer, mode === 'plan' ? this.topic! : this.tableTopic()!, options));
      return { schema: inferred.schema, inferred };
    });
    this.table = new OwnedInput('schema', async () => {
      const schema = (await this.schema.get()).schema ?? standInSchema(schemaName, infer!);
      const topic = mode === 'plan' ? (this.topic ?? plannedTopic(entry.dataset)) : this.enabled!.topic!;
      const password = mode === 'plan' ? (options.streamPassword ?? '***') : options.streamPassword;
      return (await buildTable(tableInputs(entry, schema, options.settings.table, topic, password, options.warn, options.manifestMark))).table;
    });
  }

  get options(): RunOptions {
    return this.run.options;
  }

  /** What the schema step found: the columns it adds, for the reload. */
  schemaCompared(live: LiveComparison): void {
    this.addedColumns = live.change === 'update' ? (live.schemaDiff?.added.map((column) => column.name) ?? []) : [];
  }

  reloadTarget(): ReloadTarget {
    return { tableName: this.prepared.tableName, addedColumns: this.addedColumns };
  }

  reloadSettings(): ReloadSettings {
    const { options } = this;
    return { olapSegment: options.settings.olapSegment, waitMs: options.waitReloadMs ?? DEFAULT_WAIT_RELOAD_SECONDS * 1000, forceCommit: options.forceCommit === true, signal: options.stopSignal };
  }

  /** The columns this run adds to a schema the store holds (read before the run): the sample check warns of them, as producers send them only after. */
  columnsAdded(): string[] {
    const live = this.run.reads.schemaComparisons.get(this.entry.index);
    return live?.change === 'update' ? (live.schemaDiff?.added ?? []).map((column) => column.name) : [];
  }

  /** The topic the table consumes: the entry's own, or the data set's (undefined in a plan before it exists). */
  tableTopic(): string | undefined {
    return this.entry.table?.topic ?? (this.mode === 'plan' ? this.topic : this.enabled!.topic);
  }
}

/** How long a replacement waits for the store to drop the table, when the run does not say (--timeout's default). */
const DEFAULT_DELETE_TIMEOUT_MS = 30_000;

/** The topic a plan builds the table with before the data set is enabled (enabling makes a new one). */
export function plannedTopic(dataSet: string): string {
  return `<topic of ${dataSet}, created when enabled>`;
}

/** The steps of a data set of the manifest, in the documented order; verify and dashboard only when the entry has them. */
function dataSetSteps(entry: Prepared['entry']): Step<DataSetWork>[] {
  return DATA_SET_STEPS.filter((step) => (step.name !== 'verify' || entry.verify !== undefined) && (step.name !== 'dashboard' || entry.dashboard !== undefined));
}

/**
 * The contract's workflow for one data set, each step's plan and apply the halves in steps/*.ts.
 * Each step needs the one before it: a failure blocks every step after it. The plan reads the
 * schema (inferred from the topic) before the sample check that holds the messages against it;
 * the run sends the schema only once the check held.
 */
const DATA_SET_STEPS: readonly Step<DataSetWork>[] = [
  {
    name: 'enable',
    needs: [],
    attempts: 'create',
    stopsBefore: false,
    async plan(work) {
      const { options, reads, listed } = work.run;
      const enabled = await planEnable(options.client, enableRequest(work.entry, options, reads.catalogCache), listed);
      work.enablement = enabled.enablement;
      work.topic = enabled.topic;
      return enabled.record;
    },
    async apply(work) {
      const { options, reads } = work.run;
      const enabled = await applyEnable(options.client, enableRequest(work.entry, options, reads.catalogCache));
      work.enabled = enabled.result;
      work.enablement = enabled.result.enablement.name;
      return enabled.record;
    },
  },
  {
    name: 'stream',
    needs: ['enable'],
    attempts: 'check',
    stopsBefore: true,
    async plan(work) {
      const record = await planStream(work.options.preflight);
      work.streamSkipped = record.action === 'skipped' ? record.reason : undefined;
      return record;
    },
    // Before anything of the table is sent: would the store consume its topic?
    async apply(work) {
      const stream = await applyStream(work.options.preflight, work.tableTopic()!, work.prepared.tableName);
      if (stream.skippedBecause !== undefined) work.options.warn(streamCheckSkipped(stream.skippedBecause));
      work.streamSkipped = stream.skippedBecause;
      work.streamFacts = stream.facts;
      return stream.record;
    },
  },
  {
    name: 'sample',
    needs: ['stream'],
    planReads: ['schema'],
    attempts: 'check',
    stopsBefore: false,
    async plan(work) {
      const { options } = work;
      const table = await work.table.get();
      const { schema } = await work.schema.get();
      const infer = inferSettingsOf(work.entry);
      return sampleSkippedWithStream(work.streamSkipped, work.options.sampleCheck, work.mode) ?? planSample(options.sampleCheck, options.sampleCheckOff ?? SAMPLE_CHECK_OFF, work.tableTopic(), infer ? undefined : schema, table, sampleIgnoreOf(work.entry, options), work.columnsAdded());
    },
    // Before the schema and the table: do the topic's messages carry the schema's columns?
    async apply(work) {
      const { options, entry } = work;
      // Held against the messages it is inferred from: nothing to check.
      if (inferSettingsOf(entry)) return { step: 'sample', action: 'skipped', status: 'skipped', reason: 'the schema is inferred from the same messages' };
      const table = await work.table.get();
      const skipped = sampleSkippedWithStream(work.streamSkipped, work.options.sampleCheck, work.mode);
      if (skipped) return skipped;
      const { schema } = await work.schema.get();
      const sample = await applySample(options.sampleCheck, work.tableTopic()!, schema!, table, options.sampleCheckOff ?? SAMPLE_CHECK_OFF, entry.schemaFile ?? entry.inferAt?.location.toString(), sampleIgnoreOf(entry, options), work.columnsAdded());
      if (sample.warning !== undefined) options.warn(`${entry.dataset}: ${sample.warning}`);
      if (sample.skippedBecause !== undefined) options.warn(`${entry.dataset}: ${sampleCheckSkipped(sample.skippedBecause)}`);
      return sample.record;
    },
  },
  {
    name: 'schema',
    needs: ['sample'],
    attempts: 'create',
    stopsBefore: false,
    async plan(work) {
      const { options, reads } = work.run;
      const infer = inferSettingsOf(work.entry);
      if (infer && work.topic === undefined) return plannedInferredSchema(work.prepared.schemaName, work.entry.dataset, infer.sample ?? DEFAULT_TOPIC_SAMPLE);
      const { schema, inferred } = await work.schema.get();
      const known = inferred ? undefined : reads.schemaComparisons.get(work.entry.index);
      const planned = await planSchema(options.client, { schema: schema!, olapSegment: options.settings.olapSegment, known, inferred });
      work.schemaCompared(planned.live);
      return planned.record;
    },
    async apply(work) {
      const { options, reads } = work.run;
      const { schema, inferred } = await work.schema.get();
      // The table is built before its schema is sent: a table dpgw cannot build sends neither.
      await work.table.get();
      const applied = await applySchema(options.client, { schema: schema!, known: reads.schemaComparisons.get(work.entry.index), inferred: inferred?.detail, where: work.entry.inferAt?.location.toString(), refusedHint: 'its schema and table were not sent' });
      work.schemaCompared(applied.live);
      return applied.record;
    },
    refusal: (error, mode) => (error.errorCode === 'SCHEMA_CHANGE_REFUSED' ? refusedSchemaRecord(error, mode === 'apply') : undefined),
  },
  {
    name: 'table',
    needs: ['schema'],
    attempts: 'create',
    stopsBefore: true,
    async plan(work, done) {
      const { options, reads } = work.run;
      const table = await work.table.get();
      const record = await planTable(options.client, table, { olapSegment: options.settings.olapSegment, secretsKnown: options.streamPassword !== undefined, adopt: options.adopt, read: reads.tableReads.get(work.entry.index), allowReplace: options.allowReplace });
      // What the run would send, held against the store's own checks (issue #47 §3).
      const schemaRecord = done.get('schema');
      const subject = async () => {
        const { schema } = await work.schema.get();
        return schema && { schema, table, schemaStored: schemaRecord?.action === 'none' };
      };
      const store = reads.storeValidation && { validation: reads.storeValidation.validation, places: reads.storeValidation.placesOf(work.entry) };
      return withStoreJudgement(record, schemaRecord, subject, store);
    },
    async apply(work) {
      const { options, reads } = work.run;
      const existing = options.failOnExists ? { fail: 'the run was told to fail on an existing table (--fail-on-exists)' } : ('converge' as const);
      const replace = { allowed: options.allowReplace === true || reads.replaceConfirmed?.has(work.entry.index) === true, timeoutMs: options.deleteTimeoutMs ?? DEFAULT_DELETE_TIMEOUT_MS, halfDone: options.halfDone };
      return (await applyTable(options.client, await work.table.get(), { existing, adopt: options.adopt, replace })).record;
    },
    // Another manifest's table, or a replacement not allowed: found before the run, or on the table step's own read.
    // A replacement that failed part way says so, not "create failed".
    refusal: (error, mode) => (error.errorCode === 'TABLE_OWNED_ELSEWHERE' ? refusedTableRecord(error, mode === 'apply') : error.errorCode === 'REPLACE_NEEDED' ? refusedReplaceRecord(error, mode === 'apply') : failedReplacementRecord(error)),
  },
  {
    name: 'reload',
    needs: ['table'],
    attempts: 'update',
    stopsBefore: true,
    // Only after the schema step added columns to the schema of a table that existed: a new table has no rows to reload.
    concerns: (work, done) => work.addedColumns.length > 0 && tableExisted(done.get('table')),
    plan: async (work) => planReload(work.reloadTarget(), work.reloadSettings()),
    async apply(work) {
      const { record, warning } = await applyReload(work.options.client, work.reloadTarget(), work.reloadSettings());
      // Said at once too: an operator has to act, which a summary of statuses would not show.
      if (warning !== undefined) work.options.warn(`${work.entry.dataset}: ${warning}`);
      return record;
    },
  },
  {
    name: 'storage',
    needs: ['table'],
    attempts: 'read',
    stopsBefore: true,
    plan: async (work) => planStorage(work.run.version),
    async apply(work, done) {
      const enabled = work.enabled!;
      // After enabling or creating the table in this run, this is the touch that creates the permissions;
      // after an update of a table that existed (its retention), the permissions were there already.
      const tableCreated = done.get('table')?.status === 'changed' && (done.get('table')?.action === 'create' || done.get('table')?.action === 'replace');
      const afterChange = done.get('enable')?.status === 'changed' || tableCreated;
      return (await applyStorage(work.options.client, { dataSet: work.entry.dataset, selfHref: enabled.selfHref, storageId: enabled.storageId }, { version: work.run.version, afterChange })).record;
    },
  },
  {
    name: 'consume',
    needs: ['storage'],
    attempts: 'wait',
    stopsBefore: true,
    plan: async (work) => planConsume(work.options.waitConsumingMs ?? 0),
    async apply(work) {
      const { options } = work;
      return (await applyConsume(options.client, { tableName: work.prepared.tableName, topic: work.tableTopic()!, waitMs: options.waitConsumingMs ?? 0, partitions: work.streamFacts?.partitions, signal: options.stopSignal })).record;
    },
  },
  {
    name: 'verify',
    needs: ['consume'],
    attempts: 'check',
    stopsBefore: true,
    plan: async (work) => planVerify(work.entry.verify!),
    async apply(work) {
      const { engineOf } = work.options;
      if (!engineOf) return notStartedStep('verify');
      return (await verifyStep(work.entry.verify!, work.entry.dataset, work.prepared.tableName, engineOf)).record;
    },
  },
  {
    name: 'dashboard',
    needs: ['consume', 'verify'],
    attempts: 'create',
    stopsBefore: true,
    plan: async (work) => planDashboard(dashboardSpec(work.entry, work.prepared.tableName)),
    async apply(work) {
      const { dashboardOf } = work.options;
      if (!dashboardOf) return notStartedStep('dashboard');
      const { client, databaseName } = dashboardOf(work.entry.dashboard!.profile);
      return applyDashboard(client, databaseName, dashboardSpec(work.entry, work.prepared.tableName));
    },
  },
];

/**
 * The table step found the table in the store and kept it (it did not create it, did not replace it with a new one
 * holding no rows, and did not fail trying to): only such a table has rows stored before that a reload concerns.
 */
export function tableExisted(table: StepRecord | undefined): boolean {
  return table !== undefined && table.action !== 'create' && table.action !== 'replace' && table.status !== 'failed' && table.status !== 'blocked' && table.action !== 'blocked';
}

function dashboardSpec(entry: Prepared['entry'], tableName: string): DashboardSpec {
  return { tableName, rows: entry.dashboard?.rows ?? 100, title: entry.dashboard?.title ?? entry.dataset, chart: entry.dashboard?.chart ?? `${tableName} positions`, profile: entry.dashboard?.profile };
}

export function enableRequest(entry: Prepared['entry'], options: RunOptions, catalogCache: CatalogCache) {
  return { dataSource: entry.datasource, dataSet: entry.dataset, groups: entry.groups ?? [], enablement: entry.enablement, waitTimeoutMs: options.waitTimeoutMs, warn: options.warn, catalogCache, signal: options.stopSignal };
}

/** Until the schema is inferred, the table template is checked with its date-time column alone. */
export function standInSchema(schemaName: string, infer: InferSettings): AnalyticsSchema {
  const standIn = { schemaName, dateTimeFieldSpecs: [{ ...DATE_TIME_DEFAULTS, name: infer.timeColumn ?? FILLED_TIME_COLUMN }] };
  standIns.add(standIn);
  return standIn;
}

/** Stand-in schemas: a table checked with one is not held against its columns (the deep checks), which are not known yet. */
const standIns = new WeakSet<AnalyticsSchema>();

/** The columns an entry's sample check passes unjudged: the run's --sample-ignore and the entry's sampleCheck.ignore, with where they were named. */
export function sampleIgnoreOf(entry: Prepared['entry'], options: Pick<RunOptions, 'sampleIgnore'>): SampleIgnore | undefined {
  const own = entry.sampleCheck?.ignore ?? [];
  const flag = options.sampleIgnore ?? [];
  if (own.length === 0 && flag.length === 0) return undefined;
  // The entry's own place stays a place, where its problems are said; with the flag too, both are named as text.
  const at = own.length ? entry.sampleIgnoreAt : undefined;
  const where: Where = flag.length === 0 ? (at ?? '') : at === undefined ? '--sample-ignore' : `--sample-ignore and ${whereText(at)}`;
  return { columns: [...flag, ...own], where };
}

/** The entry's `schema: { infer: … }`, when it has one. */
export function inferSettingsOf(entry: Prepared['entry']): InferSettings | undefined {
  return typeof entry.schema === 'object' && 'infer' in entry.schema ? (entry.schema.infer as InferSettings) : undefined;
}

function inferInputs(entry: Prepared['entry'], infer: InferSettings, topic: string, options: RunOptions) {
  if (!options.stream) throw new Error('a manifest entry infers its schema, but the run has no stream connection');
  return { infer, dataSet: entry.dataset, topic, stream: options.stream, timeoutMs: options.streamTimeoutMs ?? 30_000, where: entry.inferAt?.location.toString() ?? `data set ${entry.dataset}`, warn: options.warn };
}

export function tableInputs(entry: Prepared['entry'], schema: AnalyticsSchema, settings: TableSettings, topic: string, streamPassword: string | undefined, warn: (message: string) => void, manifestMark: ManifestMark): TableInputs {
  return {
    manifestMark,
    settings,
    retentionDays: entry.table?.retentionDays,
    topic: entry.table?.topic ?? topic,
    schema: { schema },
    tableName: entry.table?.name,
    templateFile: entry.templateFile,
    timeColumn: entry.table?.timeColumn,
    streamPassword,
    columnsUnknown: standIns.has(schema),
    warn,
  };
}
