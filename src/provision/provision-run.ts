/**
 * `dpgw provision`: for each data set of a manifest, the contract's workflow in
 * order — enable and wait for the topic → schema push → table create → storage
 * touch (platforms older than 1.15.165, or unknown) — with data sets side by
 * side up to a concurrency, each keeping its own order. Safe to re-run: each step
 * says whether it changed anything. Everything that can be checked without the
 * platform is checked before the first request (prepare).
 */
import { nameProblem } from '../names/platform-names.js';
import { enableDataSet, enablementsOf, everyDataSetListed, findOffered, newCatalogCache, primeCatalog, type CatalogCache, type EnableResult } from '../catalog/enable-data-set.js';
import type { AnalyticsSchema, CatalogDataSet, RealtimeTableDefinition } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { GatewayClient, StoreRead } from '../gateway/gateway-client.js';
import { buildTable, type TableInputs, type TableSettings } from '../olap/build-table.js';
import { loadSchema } from '../olap/load-schema.js';
import type { ManifestMark } from '../olap/manifest-mark.js';
import type { LocatedDocument, PathPart } from '../olap/located-document.js';
import { fieldPath, validateSchema, type ValidationIssue } from '../olap/schema-validation.js';
import { closestMatch } from '../text/closest-match.js';
import { failOnIssues } from '../olap/table-template.js';
import type { InferSettings, LoadedManifest } from './manifest.js';
import { inferredSchemaName, inferStep, type InferredForStep } from './infer-step.js';
import { DATE_TIME_DEFAULTS } from '../contract/constants.js';
import { FILLED_TIME_COLUMN } from '../schema-inference/infer-schema.js';
import { DEFAULT_TOPIC_SAMPLE } from '../schema-inference/sample-messages.js';
import type { StreamConnection } from '../stream/stream-connection.js';
import type { StatementClient } from '../query-engine/statement-client.js';
import type { SupersetClient } from '../dashboard/superset-client.js';
import { compareSchema, type LiveComparison } from './live-state.js';
import { EntryProblems } from './entry-problems.js';
import { streamCheckSkipped, type StreamPreflight, type TopicFacts } from '../stream/stream-preflight.js';
import { changedSomething, notStartedStep, wouldChange, type StepRecord } from './steps/step-record.js';
import { OwnedInput, walkSideBySide, walkSteps, type Step, type StepMode } from './executor.js';
import { applyEnable, planEnable } from './steps/enable-step.js';
import { applyStream, planStream } from './steps/stream-step.js';
import { applySample, checkIgnored, planSample, sampleCheckSkipped, type SampleCheck, type SampleIgnore } from './steps/sample-step.js';
import { applySchema, planSchema, plannedInferredSchema, refusedSchemaError, refusedSchemaRecord } from './steps/schema-step.js';
import { applyTable, ownershipRefusal, planTable, refusedTableRecord } from './steps/table-step.js';
import { applyStorage, planStorage } from './steps/storage-step.js';
import { applyConsume, planConsume } from './steps/consume-step.js';
import { planVerify, verifyStep } from './steps/verify-step.js';
import { applyDashboard, planDashboard, type DashboardSpec } from './steps/dashboard-step.js';

export { PLAN_ACTIONS, type PlanAction, type StepName, type StepRecord, type StepStatus } from './steps/step-record.js';

export interface DataSetResult {
  dataset: string;
  datasource: string;
  enablement: string;
  topic?: string;
  schema: string;
  table: string;
  status: 'done' | 'failed' | 'interrupted' | 'skipped' | 'planned';
  changed: boolean;
  /** A step found something that exists and could not compare it with the manifest. */
  uncompared?: boolean;
  steps: StepRecord[];
  error?: Record<string, unknown>;
  exitCode?: number;
  ms: number;
}

export interface Prepared {
  entry: LoadedManifest['entries'][number];
  /** Undefined for `schema: { infer: … }`: inferred from the topic once the data set is enabled. */
  schema?: AnalyticsSchema;
  schemaName: string;
  tableName: string;
}

/** The run's settings the steps read (settings/core-options.ts: provisionSettingsOf). */
export interface ProvisionSettings {
  table: TableSettings;
  /** Checked already: the analytics-store word of the gateway's paths. */
  olapSegment: string;
  /** Set: the platform version, not asked of the gateway. */
  platformVersion?: string;
}

/** The profiles of config.yaml, which verify and dashboard steps must name. */
export interface KnownProfiles {
  names: readonly string[];
  /** The config file, for the message naming a profile it lacks. */
  file: string;
}

/** How a run goes, filled once by its command and never changed after: what the run reads before it starts comes back as RunReads. */
export interface RunOptions {
  readonly client: GatewayClient;
  /** The manifest: every table it creates or updates carries its mark (olap/manifest-mark.ts). */
  readonly manifestMark: ManifestMark;
  readonly settings: ProvisionSettings;
  readonly streamPassword?: string;
  /** How dpgw reads topics, for `schema: { infer: … }` (set when an entry infers). */
  readonly stream?: StreamConnection;
  /** The whole read of one topic. */
  readonly streamTimeoutMs?: number;
  /** The stream pre-flight before each table; undefined with --no-stream-check. */
  readonly preflight?: StreamPreflight;
  /** Sampled messages held against each schema before its table; undefined when off, and why (`sampleCheckOff`). */
  readonly sampleCheck?: SampleCheck;
  readonly sampleCheckOff?: string;
  /** `--sample-ignore`: columns every data set's sample check passes unjudged. */
  readonly sampleIgnore?: readonly string[];
  /** How long to wait for the store to consume each table (0: not checked). */
  readonly waitConsumingMs?: number;
  /** Data sets side by side, in a plan as in a run. */
  readonly concurrency: number;
  readonly failFast: boolean;
  readonly failOnExists: boolean;
  readonly waitTimeoutMs: number;
  /** Set by Ctrl-C: no new step starts. */
  readonly interrupted: () => boolean;
  /** Aborted by Ctrl-C: a wait for a topic ends at once. */
  readonly stopSignal?: AbortSignal;
  /** `--adopt`: a table another manifest marked is updated and marked as this manifest's, not refused. */
  readonly adopt?: boolean;
  /** The query engine as a profile, for the verify steps (created before the run). */
  readonly engineOf?: (profile: string) => StatementClient;
  /** The dashboard tool as a profile (undefined: the run's settings), with its connection's name. */
  readonly dashboardOf?: (profile: string | undefined) => { client: SupersetClient; databaseName: string };
  readonly warn: (message: string) => void;
  readonly onProgress?: (done: number, total: number, current: string) => void;
  /** Each data set as it finishes. */
  readonly onFinished?: (result: DataSetResult, done: number, total: number) => void;
}

/** What checkBeforeRun read, handed to plan and run: asked once per run, by entry index where it is a data set's. */
export interface RunReads {
  /** Data sources and their offers. */
  readonly catalogCache: CatalogCache;
  /** The platform's version: the settings' when set, else as the gateway answered it. */
  readonly platformVersion: Promise<string | undefined>;
  /** The store's schemas compared with the manifest's. */
  readonly schemaComparisons: ReadonlyMap<number, LiveComparison>;
  /** Entries whose schema the store would refuse: they fail before any request of theirs. */
  readonly refusedSchemas: ReadonlyMap<number, DpgwError>;
  /** The store's tables. */
  readonly tableReads: ReadonlyMap<number, StoreRead<Record<string, unknown>>>;
  /** Entries whose table another manifest marked (and no --adopt): they fail before any request of theirs. */
  readonly refusedTables: ReadonlyMap<number, DpgwError>;
}

/** Nothing read before the run: each step reads for itself (a caller that skips checkBeforeRun). */
export function nothingReadBeforeRun(options: Pick<RunOptions, 'client' | 'settings'>): RunReads {
  return { catalogCache: newCatalogCache(), platformVersion: platformVersionOf(options), schemaComparisons: new Map(), refusedSchemas: new Map(), tableReads: new Map(), refusedTables: new Map() };
}

function platformVersionOf(options: Pick<RunOptions, 'client' | 'settings'>): Promise<string | undefined> {
  if (options.settings.platformVersion !== undefined) return Promise.resolve(options.settings.platformVersion);
  const read = options.client.platformVersion();
  // Awaited by plan and run, which say its error; until then it is not an unhandled rejection.
  read.catch(() => undefined);
  return read;
}

/**
 * Checks every entry without the platform: schemas, templates and settings, with a stand-in
 * topic. Every entry is checked, and every problem reported with its manifest line
 * (EntryProblems), before anything is sent.
 */
export async function prepare(loaded: LoadedManifest, settings: { table: TableSettings; profiles: KnownProfiles; allowManifestEndpoints?: boolean; sampleIgnore?: string[] }, warn: (message: string) => void): Promise<Prepared[]> {
  const prepared: Prepared[] = [];
  const problems = new EntryProblems(loaded);
  knownProfiles(loaded, settings.profiles, problems);
  // A schema file that many entries name is read and checked once.
  const schemaFiles = new Map<string, Promise<AnalyticsSchema>>();
  const schemaOf = (file: string) => {
    let schema = schemaFiles.get(file);
    if (!schema) schemaFiles.set(file, (schema = loadSchema(file, warn)));
    return schema;
  };
  for (const entry of loaded.entries) {
    try {
      const infer = inferSettingsOf(entry);
      const schema = infer ? undefined : entry.schemaFile ? await schemaOf(entry.schemaFile) : inlineSchema(loaded.document, entry.index, entry.schema as AnalyticsSchema, warn);
      if (infer && infer.name === undefined && nameProblem('schema', entry.dataset) !== undefined) {
        // Found now, not after the data set has been enabled.
        throw new DpgwError('NAME_INVALID', `${nameProblem('schema', entry.dataset)!}; an inferred schema takes its data set's name unless schema.infer.name gives one`, { where: entry.inferAt?.location });
      }
      const checkedWith = schema ?? standInSchema(inferredSchemaName(infer!, entry.dataset), infer!);
      // Checked here, before any request, for every entry: a template of the manifest's may not choose the stream connection.
      const { table } = await buildTable({ ...tableInputs(entry, checkedWith, settings.table, `<topic of ${entry.dataset}>`, '<stream password>', warn, { name: loaded.name, named: loaded.named }), streamConnectionIsTheRuns: settings.allowManifestEndpoints !== true });
      // A column to pass unjudged that the schema lacks is a typo: found now, not after the data set is enabled.
      if (schema) checkIgnored(sampleIgnoreOf(entry, { sampleIgnore: settings.sampleIgnore }), schema);
      prepared.push({ entry, schema, schemaName: checkedWith.schemaName, tableName: table.tableName });
    } catch (error) {
      problems.add(entry, error);
    }
  }
  // Entries left out for their problems: their schema files are checked all the same, so one run lists everything.
  for (const leftOut of loaded.leftOutSchemaFiles) {
    await schemaOf(leftOut.schemaFile).catch((error: unknown) => problems.add(leftOut, error));
  }
  sharedNames(prepared, problems);
  // The manifest's own problems and its data sets', in the order of the file: all of them in one run.
  failOnIssues(inFileOrder([...loaded.problems, ...problems.issues()]), 'manifest');
  return prepared;
}

/** The profiles verify and dashboard steps run as must exist in config.yaml; each missing one is named at its line. */
function knownProfiles(loaded: LoadedManifest, profiles: KnownProfiles, problems: EntryProblems): void {
  const known = [...profiles.names];
  for (const entry of loaded.entries) {
    const named: Array<[PathPart[], string]> = [
      ...(entry.verify?.visible ?? []).map((profile, index): [PathPart[], string] => [['verify', 'visible', index], profile]),
      ...(entry.verify?.hidden ?? []).map((profile, index): [PathPart[], string] => [['verify', 'hidden', index], profile]),
      ...(entry.dashboard?.profile !== undefined ? [[['dashboard', 'profile'], entry.dashboard.profile] as [PathPart[], string]] : []),
    ];
    for (const [field, profile] of named) {
      if (known.includes(profile)) continue;
      const near = closestMatch(profile, known);
      problems.addAt(entry, field, `unknown profile "${profile}" in ${profiles.file}${near ? ` (did you mean ${near}?)` : known.length ? `; known: ${known.join(', ')}` : '; it has no profiles yet'}: \`dpgw sandbox --write-profile sandbox\` writes sandbox-analyst and sandbox-outsider`);
    }
  }
}

/** Problems sorted by file, line and column, as an editor lists them. */
function inFileOrder(issues: ValidationIssue[]): ValidationIssue[] {
  const key = (where: string) => {
    const match = /^(.*):(\d+):(\d+)$/.exec(where);
    return match ? { file: match[1]!, line: Number(match[2]), column: Number(match[3]) } : { file: where, line: 0, column: 0 };
  };
  return issues
    .map((issue) => ({ issue, at: key(issue.where) }))
    .sort((a, b) => a.at.file.localeCompare(b.at.file) || a.at.line - b.at.line || a.at.column - b.at.column)
    .map(({ issue }) => issue);
}

/**
 * Two data sets may not fill one table, and may share a schema only when it is the same
 * schema: the second would be "unchanged" (or overwrite the first's columns) and never
 * ingest its own topic. Found before anything is sent.
 */
function sharedNames(prepared: Prepared[], problems: EntryProblems): void {
  const tables = new Map<string, Prepared>();
  const schemas = new Map<string, Prepared>();
  for (const item of prepared) {
    const { entry } = item;
    const table = tables.get(item.tableName);
    if (table) problems.addAt(entry, ['table', 'name'], `table ${item.tableName} is also the table of data set ${table.entry.dataset} (${table.entry.datasource}): each data set needs its own table; set table.name`);
    else tables.set(item.tableName, item);
    const schema = schemas.get(item.schemaName);
    const differs = schema && (schema.schema === undefined || item.schema === undefined || JSON.stringify(schema.schema) !== JSON.stringify(item.schema));
    if (schema && differs) problems.addAt(entry, ['schema'], `schema ${item.schemaName} is also the schema of data set ${schema.entry.dataset}, with other columns: give this one another schemaName`);
    else if (!schema) schemas.set(item.schemaName, item);
  }
}

/** Requests on the wire at once beyond the run's concurrency: the run's own reads (the version, the catalog's listings) beside its data sets'. */
export const RUN_WIDE_READS_AT_ONCE = 2;

/**
 * What the platform holds, read (GET requests only) before anything changes. Every data
 * source and data set of the manifest is looked up in the catalog, each once per run: a
 * misspelt data set is a usage error listed with all others at their manifest lines, exit
 * 2 with nothing changed — never found after the data sets before it were provisioned. Each
 * schema is read back from the store and compared: one the store would refuse fails its
 * data set before any request of it. These reads and the run-wide ones (startRunWideReads)
 * are asked together: each is a round trip, and from a laptop or a hosted runner far from
 * the gateway one after another they add up. The client bounds how many are on the wire at
 * once (limitRequestsAtOnce).
 */
export async function checkBeforeRun(loaded: LoadedManifest, prepared: Prepared[], options: RunOptions, { forPlan = false }: { forPlan?: boolean } = {}): Promise<RunReads> {
  const cache = newCatalogCache();
  const platformVersion = platformVersionOf(options);
  startRunWideReads(prepared, options, cache, forPlan);
  const schemaReads = compareSchemasBeforeRun(loaded, prepared, options);
  const tableReads = ownersBeforeRun(loaded, prepared, options);
  // Awaited after the catalog's problems, which are reported first when there are both.
  schemaReads.catch(() => undefined);
  tableReads.catch(() => undefined);
  const problems = new EntryProblems(loaded);
  await Promise.all(
    prepared.map(({ entry }) =>
      findOffered(options.client, entry.datasource, entry.dataset, cache)
        .then(() => enablementWithoutGroups(entry, options, cache))
        .then(
          () => undefined,
          // The catalog's suggestion ("did you mean …") belongs to the problem's own line.
          (error: unknown) => problems.add(entry, error instanceof DpgwError && error.hint ? new DpgwError(error.errorCode, `${error.message} (${error.hint})`, { where: error.where }) : error),
        ),
    ),
  );
  failOnIssues(problems.issues(), 'manifest');
  return { catalogCache: cache, platformVersion, ...(await schemaReads), ...(await tableReads) };
}

/**
 * Each table of the manifest, read once before anything changes: one that another manifest
 * marked fails its data set before any request of it (its enablement, its schema), unless the
 * run adopts it (docs/lifecycle.md, "Ownership"). The plan compares with the same reads.
 */
async function ownersBeforeRun(loaded: LoadedManifest, prepared: Prepared[], options: RunOptions): Promise<Pick<RunReads, 'tableReads' | 'refusedTables'>> {
  const tableReads = new Map<number, StoreRead<Record<string, unknown>>>();
  const refusedTables = new Map<number, DpgwError>();
  const pending = [...prepared];
  const reader = async () => {
    for (let item = pending.shift(); item; item = pending.shift()) {
      const { entry, tableName } = item;
      const read = await options.client.getTable(tableName);
      tableReads.set(entry.index, read);
      if (read.kind !== 'found') continue;
      const where = loaded.document.at(entry.table?.name === undefined ? ['dataSets', entry.index, 'dataset'] : ['dataSets', entry.index, 'table', 'name']);
      const refusal = ownershipRefusal(tableName, read.body, options.manifestMark, { adopt: options.adopt === true, unsent: 'nothing of this data set was sent', where });
      if (refusal) refusedTables.set(entry.index, refusal);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, pending.length)) }, reader));
  return { tableReads, refusedTables };
}

/** The store's schemas, read once before anything changes: a schema the store would refuse fails its data set before any request of it. */
async function compareSchemasBeforeRun(loaded: LoadedManifest, prepared: Prepared[], options: RunOptions): Promise<Pick<RunReads, 'schemaComparisons' | 'refusedSchemas'>> {
  const schemaComparisons = new Map<number, LiveComparison>();
  const refusedSchemas = new Map<number, DpgwError>();
  // One read per schema name, however many data sets share it; as many at once as the run's concurrency.
  const reads = new Map<string, Promise<LiveComparison>>();
  const pending = prepared.filter((p) => p.schema !== undefined);
  const reader = async () => {
    for (let item = pending.shift(); item; item = pending.shift()) {
      const { entry, schema } = item as Prepared & { schema: AnalyticsSchema };
      const key = `${schema.schemaName}\u0000${JSON.stringify(schema)}`;
      if (!reads.has(key)) reads.set(key, compareSchema(options.client, schema));
      const live = await reads.get(key)!;
      schemaComparisons.set(entry.index, live);
      if (live.change === 'incompatible') {
        const where = entry.schemaFile ?? loaded.document.at(['dataSets', entry.index, 'schema']);
        refusedSchemas.set(entry.index, refusedSchemaError(schema.schemaName, live, where, 'nothing of this data set was sent'));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, pending.length)) }, reader));
  return { schemaComparisons, refusedSchemas };
}

/**
 * Starts the reads the run needs once, before its data sets, so that they go with the checks
 * above rather than after them: each data source's enablements, and the listing of every data
 * set (a plan reads it always; a run only when an enablement of the manifest exists already,
 * to see what is enabled in it). Their errors reach the steps that await them, as if asked there.
 */
function startRunWideReads(prepared: Prepared[], options: RunOptions, cache: CatalogCache, forPlan: boolean): void {
  if (forPlan) everyDataSetListed(options.client, cache).catch(() => undefined);
  for (const dataSource of new Set(prepared.map((p) => p.entry.datasource))) {
    enablementsOf(options.client, dataSource, cache)
      .then((enablements) => {
        const existing = new Set(enablements.map((e) => e.name));
        if (!forPlan && prepared.some(({ entry }) => entry.datasource === dataSource && existing.has(entry.enablement ?? entry.dataset))) return everyDataSetListed(options.client, cache);
        return undefined;
      })
      .catch(() => undefined);
  }
}

/** The plan: what each data set would do, found with GET requests only; data sets side by side as in a run, in the manifest's order. */
export async function plan(prepared: Prepared[], options: RunOptions, reads: RunReads = nothingReadBeforeRun(options)): Promise<DataSetResult[]> {
  const version = await reads.platformVersion;
  const listed = await everyDataSetListed(options.client, reads.catalogCache);
  return walkDataSets('plan', prepared, { options, reads, version, listed });
}

export async function run(prepared: Prepared[], options: RunOptions, reads: RunReads = nothingReadBeforeRun(options)): Promise<DataSetResult[]> {
  primeCatalog(options.client, reads.catalogCache);
  const version = await reads.platformVersion;
  return walkDataSets('apply', prepared, { options, reads, version, listed: [] });
}

/** What every data set's steps share: the run's options, its reads, the platform's version and (a plan's) the catalog's listing. */
interface RunContext {
  readonly options: RunOptions;
  readonly reads: RunReads;
  readonly version: string | undefined;
  readonly listed: readonly CatalogDataSet[];
}

/** One walk over the data sets for both modes: side by side up to --concurrency, a run stopping on --fail-fast and Ctrl-C. */
function walkDataSets(mode: StepMode, prepared: Prepared[], run: RunContext): Promise<DataSetResult[]> {
  const { options } = run;
  return walkSideBySide(prepared, (item) => walkDataSet(mode, item, run), {
    concurrency: options.concurrency,
    ...(mode === 'apply' ? { interrupted: options.interrupted, stopsAll: (result: DataSetResult) => result.status === 'failed' && options.failFast } : {}),
    notStarted: notStartedResult,
    label: (item) => item.entry.dataset,
    onProgress: options.onProgress,
    onFinished: options.onFinished,
  });
}

function notStartedResult({ entry, schemaName, tableName }: Prepared): DataSetResult {
  return { dataset: entry.dataset, datasource: entry.datasource, enablement: entry.enablement ?? entry.dataset, schema: schemaName, table: tableName, status: 'skipped', changed: false, steps: [], ms: 0 };
}

async function walkDataSet(mode: StepMode, item: Prepared, run: RunContext): Promise<DataSetResult> {
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
      const inferred = await inferStep(inferInputs(entry, infer, mode === 'plan' ? this.topic! : this.sampleTopic()!, options));
      return { schema: inferred.schema, inferred };
    });
    this.table = new OwnedInput('schema', async () => {
      const schema = (await this.schema.get()).schema ?? standInSchema(schemaName, infer!);
      const topic = mode === 'plan' ? (this.topic ?? `<topic of ${entry.dataset}, created when enabled>`) : this.enabled!.topic!;
      const password = mode === 'plan' ? (options.streamPassword ?? '***') : options.streamPassword;
      return (await buildTable(tableInputs(entry, schema, options.settings.table, topic, password, options.warn, options.manifestMark))).table;
    });
  }

  get options(): RunOptions {
    return this.run.options;
  }

  /** The topic the table consumes: the entry's own, or the data set's (undefined in a plan before it exists). */
  sampleTopic(): string | undefined {
    return this.entry.table?.topic ?? (this.mode === 'plan' ? this.topic : this.enabled!.topic);
  }
}

/** The steps of a data set of the manifest, in the documented order; verify and dashboard only when the entry has them. */
function dataSetSteps(entry: Prepared['entry']): Step<DataSetWork>[] {
  return DATA_SET_STEPS.filter((step) => (step.name !== 'verify' || entry.verify !== undefined) && (step.name !== 'dashboard' || entry.dashboard !== undefined));
}

/** The sample is read only where the stream step read the brokers: skipped with it, in a plan as in a run. */
function sampleSkippedWithStream(work: DataSetWork): StepRecord | undefined {
  if (work.streamSkipped === undefined || !work.options.sampleCheck) return undefined;
  return work.mode === 'plan' ? { step: 'sample', action: 'skipped', reason: `would be skipped as the stream step is: ${work.streamSkipped}` } : { step: 'sample', action: 'skipped', status: 'skipped', reason: `not checked: ${work.streamSkipped}` };
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
      const stream = await applyStream(work.options.preflight, work.sampleTopic()!, work.prepared.tableName);
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
      return sampleSkippedWithStream(work) ?? planSample(options.sampleCheck, options.sampleCheckOff ?? SAMPLE_CHECK_OFF, work.sampleTopic(), infer ? undefined : schema, table, sampleIgnoreOf(work.entry, options));
    },
    // Before the schema and the table: do the topic's messages carry the schema's columns?
    async apply(work) {
      const { options, entry } = work;
      // Held against the messages it is inferred from: nothing to check.
      if (inferSettingsOf(entry)) return { step: 'sample', action: 'skipped', status: 'skipped', reason: 'the schema is inferred from the same messages' };
      const table = await work.table.get();
      const skipped = sampleSkippedWithStream(work);
      if (skipped) return skipped;
      const { schema } = await work.schema.get();
      const sample = await applySample(options.sampleCheck, work.sampleTopic()!, schema!, table, options.sampleCheckOff ?? SAMPLE_CHECK_OFF, entry.schemaFile ?? entry.inferAt?.location, sampleIgnoreOf(entry, options));
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
      return (await planSchema(options.client, { schema: schema!, olapSegment: options.settings.olapSegment, known, inferred })).record;
    },
    async apply(work) {
      const { options, reads } = work.run;
      const { schema, inferred } = await work.schema.get();
      // The table is built before its schema is sent: a table dpgw cannot build sends neither.
      await work.table.get();
      return (await applySchema(options.client, { schema: schema!, known: reads.schemaComparisons.get(work.entry.index), inferred: inferred?.detail, where: work.entry.inferAt?.location, refusedHint: 'its schema and table were not sent' })).record;
    },
    refusal: (error, mode) => (error.errorCode === 'SCHEMA_CHANGE_REFUSED' ? refusedSchemaRecord(error, mode === 'apply') : undefined),
  },
  {
    name: 'table',
    needs: ['schema'],
    attempts: 'create',
    stopsBefore: true,
    async plan(work) {
      const { options, reads } = work.run;
      return planTable(options.client, await work.table.get(), { olapSegment: options.settings.olapSegment, secretsKnown: options.streamPassword !== undefined, adopt: options.adopt, read: reads.tableReads.get(work.entry.index) });
    },
    async apply(work) {
      const { options } = work;
      const existing = options.failOnExists ? { fail: 'the run was told to fail on an existing table (--fail-on-exists)' } : ('converge' as const);
      return (await applyTable(options.client, await work.table.get(), { existing, adopt: options.adopt })).record;
    },
    // Another manifest's table: found before the run, or marked since, on the table step's own read.
    refusal: (error, mode) => (error.errorCode === 'TABLE_OWNED_ELSEWHERE' ? refusedTableRecord(error, mode === 'apply') : undefined),
  },
  {
    name: 'storage',
    needs: ['table'],
    attempts: 'read',
    stopsBefore: true,
    plan: async (work) => planStorage(work.run.version),
    async apply(work, done) {
      const enabled = work.enabled!;
      // After enabling or creating the table in this run, this is the touch that creates the permissions.
      const afterChange = done.get('enable')?.status === 'changed' || done.get('table')?.status === 'changed';
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
      return (await applyConsume(options.client, { tableName: work.prepared.tableName, topic: work.sampleTopic()!, waitMs: options.waitConsumingMs ?? 0, partitions: work.streamFacts?.partitions, signal: options.stopSignal })).record;
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

/** What a step list says when the sample check is off and no reason was given. */
const SAMPLE_CHECK_OFF = '--no-sample-check';

function dashboardSpec(entry: Prepared['entry'], tableName: string): DashboardSpec {
  return { tableName, rows: entry.dashboard?.rows ?? 100, title: entry.dashboard?.title ?? entry.dataset, chart: entry.dashboard?.chart ?? `${tableName} positions`, profile: entry.dashboard?.profile };
}

/**
 * An entry without `groups` whose enablement does not exist yet cannot be enabled: found with the catalog's reads
 * (the plan's own), before anything is sent, and said at the entry's line rather than as a flag it never had.
 */
async function enablementWithoutGroups(entry: Prepared['entry'], options: RunOptions, cache: CatalogCache): Promise<void> {
  if ((entry.groups ?? []).length > 0) return;
  try {
    await enableDataSet(options.client, { ...enableRequest(entry, options, cache), dryRun: true });
  } catch (error) {
    if (!(error instanceof DpgwError) || error.where !== '--group') throw error;
    throw new DpgwError('MANIFEST_INVALID', `${error.message}: add groups: [<group>, …] to this data set's entry`);
  }
}

function enableRequest(entry: Prepared['entry'], options: RunOptions, catalogCache: CatalogCache) {
  return { dataSource: entry.datasource, dataSet: entry.dataset, groups: entry.groups ?? [], enablement: entry.enablement, waitTimeoutMs: options.waitTimeoutMs, warn: options.warn, catalogCache, signal: options.stopSignal };
}

/** Until the schema is inferred, the table template is checked with its date-time column alone. */
function standInSchema(schemaName: string, infer: InferSettings): AnalyticsSchema {
  const standIn = { schemaName, dateTimeFieldSpecs: [{ ...DATE_TIME_DEFAULTS, name: infer.timeColumn ?? FILLED_TIME_COLUMN }] };
  standIns.add(standIn);
  return standIn;
}

/** Stand-in schemas: a table checked with one is not held against its columns (the deep checks), which are not known yet. */
const standIns = new WeakSet<AnalyticsSchema>();

/** The columns an entry's sample check passes unjudged: the run's --sample-ignore and the entry's sampleCheck.ignore, with where they were named. */
function sampleIgnoreOf(entry: Prepared['entry'], options: Pick<RunOptions, 'sampleIgnore'>): SampleIgnore | undefined {
  const own = entry.sampleCheck?.ignore ?? [];
  const flag = options.sampleIgnore ?? [];
  if (own.length === 0 && flag.length === 0) return undefined;
  const where = [flag.length ? '--sample-ignore' : undefined, own.length ? entry.sampleIgnoreAt : undefined].filter((w) => w !== undefined).join(' and ');
  return { columns: [...flag, ...own], where };
}

/** The entry's `schema: { infer: … }`, when it has one. */
export function inferSettingsOf(entry: Prepared['entry']): InferSettings | undefined {
  return typeof entry.schema === 'object' && 'infer' in entry.schema ? (entry.schema.infer as InferSettings) : undefined;
}

function inferInputs(entry: Prepared['entry'], infer: InferSettings, topic: string, options: RunOptions) {
  if (!options.stream) throw new Error('a manifest entry infers its schema, but the run has no stream connection');
  return { infer, dataSet: entry.dataset, topic, stream: options.stream, timeoutMs: options.streamTimeoutMs ?? 30_000, where: entry.inferAt?.location ?? `data set ${entry.dataset}`, warn: options.warn };
}

function tableInputs(entry: Prepared['entry'], schema: AnalyticsSchema, settings: TableSettings, topic: string, streamPassword: string | undefined, warn: (message: string) => void, manifestMark: ManifestMark): TableInputs {
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

function inlineSchema(document: LocatedDocument, index: number, schema: AnalyticsSchema, warn: (message: string) => void): AnalyticsSchema {
  const prefix: PathPart[] = ['dataSets', index, 'schema'];
  const view: LocatedDocument = { file: document.file, value: schema, at: (path) => document.at([...prefix, ...path]), keyAt: (path) => document.keyAt([...prefix, ...path]) };
  const { schema: checked, issues } = validateSchema(view);
  // Named from the manifest's top, as every other manifest problem is.
  failOnIssues(
    issues.map((issue) => ({ ...issue, field: `${fieldPath(prefix)}${issue.field ? `.${issue.field}` : ''}` })),
    'inline schema',
    warn,
  );
  return checked!;
}
