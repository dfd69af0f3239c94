/**
 * `dpgw provision`: for each data set of a manifest, the contract's workflow in
 * order — enable and wait for the topic → schema push → table create → storage
 * touch (platforms older than 1.15.165, or unknown) — with data sets side by
 * side up to a concurrency, each keeping its own order. Safe to re-run: each step
 * says whether it changed anything. Everything that can be checked without the
 * platform is checked before the first request (prepare).
 */
import { nameProblem } from '../names/platform-names.js';
import { enableDataSet, enablementsOf, everyDataSetListed, findOffered, newCatalogCache, primeCatalog, type CatalogCache } from '../catalog/enable-data-set.js';
import type { AnalyticsSchema } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { isSourceLocation, whereText, type Where } from '../errors/source-location.js';
import type { GatewayClient, StoreRead } from '../gateway/gateway-client.js';
import { buildTable, type TableInputs, type TableSettings } from '../olap/build-table.js';
import { loadSchema } from '../olap/load-schema.js';
import type { ManifestMark } from '../olap/manifest-mark.js';
import type { LocatedDocument, PathPart } from '../olap/located-document.js';
import { fieldPath, validateSchema, type ValidationIssue } from '../olap/schema-validation.js';
import { closestMatch } from '../text/closest-match.js';
import { failOnIssues } from '../olap/table-template.js';
import type { InferSettings, LoadedManifest } from './manifest.js';
import { inferredSchemaName, inferStep } from './infer-step.js';
import { DATE_TIME_DEFAULTS } from '../contract/constants.js';
import { FILLED_TIME_COLUMN } from '../schema-inference/infer-schema.js';
import { DEFAULT_TOPIC_SAMPLE } from '../schema-inference/sample-messages.js';
import type { StreamConnection } from '../stream/stream-connection.js';
import type { StatementClient } from '../query-engine/statement-client.js';
import type { SupersetClient } from '../dashboard/superset-client.js';
import { compareSchema, type LiveComparison } from './live-state.js';
import { EntryProblems } from './entry-problems.js';
import { streamCheckSkipped, type StreamPreflight } from '../stream/stream-preflight.js';
import { blockedStep, changedSomething, notStartedStep, STEP_ORDER, wouldChange, type PlanAction, type StepName, type StepRecord } from './steps/step-record.js';
import { StepInterrupted } from './steps/step-interrupted.js';
import { applyEnable, planEnable } from './steps/enable-step.js';
import { applyStream, planStream } from './steps/stream-step.js';
import { applySample, checkIgnored, planSample, sampleCheckSkipped, type SampleCheck, type SampleIgnore } from './steps/sample-step.js';
import { applySchema, planSchema, plannedInferredSchema, refusedSchemaError } from './steps/schema-step.js';
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

export interface RunOptions {
  client: GatewayClient;
  /** The manifest: every table it creates or updates carries its mark (olap/manifest-mark.ts). */
  manifestMark: ManifestMark;
  settings: ProvisionSettings;
  streamPassword?: string;
  /** How dpgw reads topics, for `schema: { infer: … }` (set when an entry infers). */
  stream?: StreamConnection;
  /** The whole read of one topic. */
  streamTimeoutMs?: number;
  /** The stream pre-flight before each table; undefined with --no-stream-check. */
  preflight?: StreamPreflight;
  /** Sampled messages held against each schema before its table; undefined when off, and why (`sampleCheckOff`). */
  sampleCheck?: SampleCheck;
  sampleCheckOff?: string;
  /** `--sample-ignore`: columns every data set's sample check passes unjudged. */
  sampleIgnore?: string[];
  /** How long to wait for the store to consume each table (0: not checked). */
  waitConsumingMs?: number;
  concurrency: number;
  failFast: boolean;
  failOnExists: boolean;
  waitTimeoutMs: number;
  /** Set by Ctrl-C: no new step starts. */
  interrupted: () => boolean;
  /** Aborted by Ctrl-C: a wait for a topic ends at once. */
  stopSignal?: AbortSignal;
  /** The store's schemas compared before the run (checkBeforeRun), by entry index. */
  schemaComparisons?: Map<number, LiveComparison>;
  /** Entries whose schema the store would refuse: they fail before any request of theirs. */
  refusedSchemas?: Map<number, DpgwError>;
  /** `--adopt`: a table another manifest marked is updated and marked as this manifest's, not refused. */
  adopt?: boolean;
  /** The store's tables read before the run (checkBeforeRun), by entry index. */
  tableReads?: Map<number, StoreRead<Record<string, unknown>>>;
  /** Entries whose table another manifest marked (and no --adopt): they fail before any request of theirs. */
  refusedTables?: Map<number, DpgwError>;
  /** Data sources and their offers, asked once per run. */
  catalogCache?: CatalogCache;
  /** The platform's version as the gateway answered it, asked once per run (platformVersion). */
  platformVersionRead?: Promise<string | undefined>;
  /** The query engine as a profile, for the verify steps (created before the run). */
  engineOf?: (profile: string) => StatementClient;
  /** The dashboard tool as a profile (undefined: the run's settings), with its connection's name. */
  dashboardOf?: (profile: string | undefined) => { client: SupersetClient; databaseName: string };
  warn: (message: string) => void;
  onProgress?: (done: number, total: number, current: string) => void;
  /** Each data set as it finishes. */
  onFinished?: (result: DataSetResult, done: number, total: number) => void;
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

/** Problems sorted by file, line and column, as an editor lists them; one named by a flag or a file alone first in its file. */
function inFileOrder(issues: ValidationIssue[]): ValidationIssue[] {
  const key = (where: Where) => (isSourceLocation(where) ? where : { file: where, line: 0, column: 0 });
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
export async function checkBeforeRun(loaded: LoadedManifest, prepared: Prepared[], options: RunOptions, { forPlan = false }: { forPlan?: boolean } = {}): Promise<void> {
  const cache = (options.catalogCache ??= newCatalogCache());
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
        .then(() => enablementWithoutGroups(entry, options))
        .then(
          () => undefined,
          // The catalog's suggestion ("did you mean …") belongs to the problem's own line.
          (error: unknown) => problems.add(entry, error instanceof DpgwError && error.hint ? new DpgwError(error.errorCode, `${error.message} (${error.hint})`, { where: error.where }) : error),
        ),
    ),
  );
  failOnIssues(problems.issues(), 'manifest');
  await schemaReads;
  await tableReads;
}

/**
 * Each table of the manifest, read once before anything changes: one that another manifest
 * marked fails its data set before any request of it (its enablement, its schema), unless the
 * run adopts it (docs/lifecycle.md, "Ownership"). The plan compares with the same reads.
 */
async function ownersBeforeRun(loaded: LoadedManifest, prepared: Prepared[], options: RunOptions): Promise<void> {
  options.tableReads = new Map();
  options.refusedTables = new Map();
  const pending = [...prepared];
  const reader = async () => {
    for (let item = pending.shift(); item; item = pending.shift()) {
      const { entry, tableName } = item;
      const read = await options.client.getTable(tableName);
      options.tableReads!.set(entry.index, read);
      if (read.kind !== 'found') continue;
      const where = loaded.document.at(entry.table?.name === undefined ? ['dataSets', entry.index, 'dataset'] : ['dataSets', entry.index, 'table', 'name']);
      const refusal = ownershipRefusal(tableName, read.body, options.manifestMark, { adopt: options.adopt === true, unsent: 'nothing of this data set was sent', where: whereText(where) });
      if (refusal) options.refusedTables!.set(entry.index, refusal);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, pending.length)) }, reader));
}

/** The store's schemas, read once before anything changes: a schema the store would refuse fails its data set before any request of it. */
async function compareSchemasBeforeRun(loaded: LoadedManifest, prepared: Prepared[], options: RunOptions): Promise<void> {
  options.schemaComparisons = new Map();
  options.refusedSchemas = new Map();
  // One read per schema name, however many data sets share it; as many at once as the run's concurrency.
  const reads = new Map<string, Promise<LiveComparison>>();
  const pending = prepared.filter((p) => p.schema !== undefined);
  const reader = async () => {
    for (let item = pending.shift(); item; item = pending.shift()) {
      const { entry, schema } = item as Prepared & { schema: AnalyticsSchema };
      const key = `${schema.schemaName}\u0000${JSON.stringify(schema)}`;
      if (!reads.has(key)) reads.set(key, compareSchema(options.client, schema));
      const live = await reads.get(key)!;
      options.schemaComparisons!.set(entry.index, live);
      if (live.change === 'incompatible') {
        const where = entry.schemaFile ?? whereText(loaded.document.at(['dataSets', entry.index, 'schema']));
        options.refusedSchemas!.set(entry.index, refusedSchemaError(schema.schemaName, live, where, 'nothing of this data set was sent'));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, pending.length)) }, reader));
}

/**
 * Starts the reads the run needs once, before its data sets, so that they go with the checks
 * above rather than after them: the platform's version, each data source's enablements, and the
 * listing of every data set (a plan reads it always; a run only when an enablement of the
 * manifest exists already, to see what is enabled in it). Their errors reach the steps that
 * await them, as if asked there.
 */
function startRunWideReads(prepared: Prepared[], options: RunOptions, cache: CatalogCache, forPlan: boolean): void {
  platformVersion(options).catch(() => undefined);
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

/** The steps a data set of the manifest goes through, in the documented order. */
function stepsOf(entry: Prepared['entry']): StepName[] {
  return ['enable', 'stream', 'sample', 'schema', 'table', 'storage', 'consume', ...(entry.verify ? (['verify'] as const) : []), ...(entry.dashboard ? (['dashboard'] as const) : [])];
}

/** The plan: what each data set would do, found with GET requests only. */
export async function plan(prepared: Prepared[], options: RunOptions): Promise<DataSetResult[]> {
  const version = await platformVersion(options);
  const listed = await everyDataSetListed(options.client, (options.catalogCache ??= newCatalogCache()));
  const results: DataSetResult[] = [];
  for (const { entry, schema: given, schemaName, tableName } of prepared) {
    const started = Date.now();
    const names = stepsOf(entry);
    const steps: StepRecord[] = [];
    const ownedElsewhere = options.refusedTables?.get(entry.index);
    if (ownedElsewhere) {
      // Another manifest's table: the run would send nothing of this data set, so nothing more is asked for it.
      steps.push(refusedTableRecord(ownedElsewhere, false), ...names.filter((name) => name !== 'table').map((name) => blockedStep(name, 'table', false)));
      sortSteps(steps);
      results.push({ dataset: entry.dataset, datasource: entry.datasource, enablement: entry.enablement ?? entry.dataset, schema: schemaName, table: tableName, status: 'planned', changed: true, uncompared: false, steps, ms: Date.now() - started });
      continue;
    }
    const enabled = await planEnable(options.client, enableRequest(entry, options), listed);
    const { topic } = enabled;
    steps.push(enabled.record);
    const stream = await planStream(options.preflight);
    steps.push(stream);
    const infer = inferSettingsOf(entry);
    let schema = given;
    let schemaKnownBeforeRun = true;
    if (infer && topic === undefined) {
      steps.push(plannedInferredSchema(schemaName, entry.dataset, infer.sample ?? DEFAULT_TOPIC_SAMPLE));
    } else {
      const inferred = infer ? await inferStep(inferInputs(entry, infer, topic!, options)) : undefined;
      schemaKnownBeforeRun = inferred === undefined;
      schema = inferred?.schema ?? schema;
      const known = inferred ? undefined : options.schemaComparisons?.get(entry.index);
      steps.push((await planSchema(options.client, { schema: schema!, olapSegment: options.settings.olapSegment, known, inferred })).record);
    }
    const { table } = await buildTable(tableInputs(entry, schema ?? standInSchema(schemaName, infer!), options.settings.table, topic ?? `<topic of ${entry.dataset}, created when enabled>`, options.streamPassword ?? '***', options.warn, options.manifestMark));
    // The sample is read only where the run would read it: not past a refused schema, nor from brokers out of reach.
    const schemaRefused = steps.some((step) => step.action === 'refused');
    const sampleTopic = entry.table?.topic ?? topic;
    if (!schemaRefused) {
      steps.push(stream.action === 'skipped' && options.sampleCheck ? { step: 'sample', action: 'skipped', reason: `would be skipped as the stream step is: ${stream.reason}` } : await planSample(options.sampleCheck, options.sampleCheckOff ?? SAMPLE_CHECK_OFF, sampleTopic, infer ? undefined : schema, table, sampleIgnoreOf(entry, options)));
    }
    sortSteps(steps);
    const refused = steps.find((step) => step.action === 'refused');
    if (refused) {
      // Nothing after a refused step is asked for: the run would send none of it.
      steps.push(...names.filter((name) => !steps.some((step) => step.step === name)).map((name) => blockedStep(name, refused.step, false)));
      // A schema refused before the run keeps its enablement from being sent too; after a refused sample, steps after it are blocked.
      steps.forEach((step, index) => {
        const dependsOn = (refused.step === 'schema' && schemaKnownBeforeRun) || STEP_ORDER.indexOf(step.step) > STEP_ORDER.indexOf(refused.step);
        if (step !== refused && step.action !== 'blocked' && dependsOn) steps[index] = blockedStep(step.step, refused.step, false);
      });
      sortSteps(steps);
    } else {
      steps.push(await planTable(options.client, table, { olapSegment: options.settings.olapSegment, secretsKnown: options.streamPassword !== undefined, adopt: options.adopt, read: options.tableReads?.get(entry.index) }));
      steps.push(planStorage(version), planConsume(options.waitConsumingMs ?? 0));
      if (entry.verify) steps.push(planVerify(entry.verify));
      if (entry.dashboard) steps.push(planDashboard(dashboardSpec(entry, tableName)));
    }
    const changed = refused !== undefined || steps.some(wouldChange);
    const uncompared = steps.some((step) => step.action === 'not-compared');
    results.push({ dataset: entry.dataset, datasource: entry.datasource, enablement: enabled.enablement, topic, schema: schemaName, table: tableName, status: 'planned', changed, uncompared, steps, ms: Date.now() - started });
  }
  return results;
}

export async function run(prepared: Prepared[], options: RunOptions): Promise<DataSetResult[]> {
  primeCatalog(options.client, (options.catalogCache ??= newCatalogCache()));
  const version = await platformVersion(options);
  const results: DataSetResult[] = prepared.map(({ entry, schemaName, tableName }) => ({
    dataset: entry.dataset,
    datasource: entry.datasource,
    enablement: entry.enablement ?? entry.dataset,
    schema: schemaName,
    table: tableName,
    status: 'skipped',
    changed: false,
    steps: [],
    ms: 0,
  }));
  let next = 0;
  let done = 0;
  let stop = false;
  const worker = async () => {
    for (;;) {
      if (stop || options.interrupted()) return;
      const index = next++;
      if (index >= prepared.length) return;
      options.onProgress?.(done, prepared.length, prepared[index]!.entry.dataset);
      results[index] = await provisionOne(prepared[index]!, results[index]!, version, options);
      done++;
      options.onFinished?.(results[index]!, done, prepared.length);
      options.onProgress?.(done, prepared.length, prepared[index]!.entry.dataset);
      if (results[index]!.status === 'failed' && options.failFast) stop = true;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, prepared.length)) }, worker));
  return results;
}

async function provisionOne({ entry, schema: given, tableName }: Prepared, result: DataSetResult, version: string | undefined, options: RunOptions): Promise<DataSetResult> {
  const started = Date.now();
  const names = stepsOf(entry);
  const steps: StepRecord[] = [];
  // Every step of the data set is in its result: the ones after a failure are blocked, the ones after a stop not started.
  const finish = (status: DataSetResult['status'], error?: DpgwError): DataSetResult => {
    const failedStep = steps.find((step) => step.status === 'failed');
    const rest = names.filter((name) => !steps.some((step) => step.step === name)).map((name) => (failedStep ? blockedStep(name, failedStep.step, true) : notStartedStep(name)));
    const all = [...steps, ...rest].sort((a, b) => STEP_ORDER.indexOf(a.step) - STEP_ORDER.indexOf(b.step));
    return {
      ...result,
      steps: all,
      status,
      changed: all.some(changedSomething),
      uncompared: all.some((s) => s.status === 'not-compared'),
      ...(error ? { error: error.toJSON(), exitCode: error.exitCode } : {}),
      ms: Date.now() - started,
    };
  };
  let current: StepName = 'enable';
  let attempted: PlanAction = 'create';
  const ownedElsewhere = options.refusedTables?.get(entry.index);
  if (ownedElsewhere) {
    // Another manifest's table, found before the run: nothing of this data set is sent, its enablement and schema neither.
    steps.push(refusedTableRecord(ownedElsewhere, true));
    return finish('failed', ownedElsewhere);
  }
  const refused = options.refusedSchemas?.get(entry.index);
  if (refused) {
    // Refused before the run: nothing of this data set is sent, its enablement neither.
    steps.push({ step: 'schema', action: 'refused', status: 'failed', reason: refused.toLine(), ...(Array.isArray(refused.details?.difference) ? { difference: refused.details.difference as string[] } : {}) });
    return finish('failed', refused);
  }
  try {
    const enabled = await applyEnable(options.client, enableRequest(entry, options));
    result.topic = enabled.result.topic;
    result.enablement = enabled.result.enablement.name;
    steps.push(enabled.record);
    if (options.interrupted()) return finish('interrupted');

    // Before anything of the table is sent: would the store consume its topic?
    current = 'stream';
    attempted = 'check';
    const topic = entry.table?.topic ?? enabled.result.topic!;
    const stream = await applyStream(options.preflight, topic, tableName);
    if (stream.skippedBecause !== undefined) options.warn(streamCheckSkipped(stream.skippedBecause));
    steps.push(stream.record);

    const infer = inferSettingsOf(entry);
    if (infer) steps.push({ step: 'sample', action: 'skipped', status: 'skipped', reason: 'the schema is inferred from the same messages' });
    current = 'schema';
    attempted = 'create';
    const inferred = infer ? await inferStep(inferInputs(entry, infer, topic, options)) : undefined;
    const schema = inferred?.schema ?? given!;
    const { table } = await buildTable(tableInputs(entry, schema, options.settings.table, enabled.result.topic!, options.streamPassword, options.warn, options.manifestMark));

    // Before the schema and the table: do the topic's messages carry the schema's columns?
    current = 'sample';
    attempted = 'check';
    if (inferred) {
      // Held against the messages it was inferred from: nothing to check.
    } else if (stream.skippedBecause !== undefined && options.sampleCheck) steps.push({ step: 'sample', action: 'skipped', status: 'skipped', reason: `not checked: ${stream.skippedBecause}` });
    else {
      const sample = await applySample(options.sampleCheck, topic, schema, table, options.sampleCheckOff ?? SAMPLE_CHECK_OFF, entry.schemaFile ?? entry.inferAt?.location.toString(), sampleIgnoreOf(entry, options));
      if (sample.warning !== undefined) options.warn(`${entry.dataset}: ${sample.warning}`);
      if (sample.skippedBecause !== undefined) options.warn(`${entry.dataset}: ${sampleCheckSkipped(sample.skippedBecause)}`);
      steps.push(sample.record);
    }

    current = 'schema';
    attempted = 'create';
    steps.push((await applySchema(options.client, { schema, known: options.schemaComparisons?.get(entry.index), inferred: inferred?.detail, where: entry.inferAt?.location.toString(), refusedHint: 'its schema and table were not sent' })).record);
    if (options.interrupted()) return finish('interrupted');

    current = 'table';
    attempted = 'create';
    const tableOptions = { existing: options.failOnExists ? { fail: 'the run was told to fail on an existing table (--fail-on-exists)' } : ('converge' as const), adopt: options.adopt };
    steps.push((await applyTable(options.client, table, tableOptions)).record);
    if (options.interrupted()) return finish('interrupted');

    current = 'storage';
    attempted = 'read';
    // After enabling or creating the table in this run, this is the touch that creates the permissions.
    const afterChange = steps.some((s) => (s.step === 'enable' || s.step === 'table') && s.status === 'changed');
    steps.push((await applyStorage(options.client, { dataSet: entry.dataset, selfHref: enabled.result.selfHref, storageId: enabled.result.storageId }, { version, afterChange })).record);
    if (options.interrupted()) return finish('interrupted');

    current = 'consume';
    attempted = 'wait';
    steps.push((await applyConsume(options.client, { tableName, topic, waitMs: options.waitConsumingMs ?? 0, partitions: stream.facts?.partitions, signal: options.stopSignal })).record);
    if (entry.verify && options.engineOf) {
      if (options.interrupted()) return finish('interrupted');
      current = 'verify';
      attempted = 'check';
      steps.push((await verifyStep(entry.verify, entry.dataset, tableName, options.engineOf)).record);
    }
    if (entry.dashboard && options.dashboardOf) {
      if (options.interrupted()) return finish('interrupted');
      current = 'dashboard';
      attempted = 'create';
      const { client, databaseName } = options.dashboardOf(entry.dashboard.profile);
      steps.push(await applyDashboard(client, databaseName, dashboardSpec(entry, tableName)));
    }
    return finish('done');
  } catch (error) {
    if (error instanceof StepInterrupted) {
      steps.push(error.record);
      return finish('interrupted');
    }
    const known = error instanceof DpgwError ? error : new DpgwError('UNEXPECTED_FAILURE', (error as Error).message, { cause: error });
    if (known.kind === 'interrupted') {
      steps.push({ step: current, action: attempted, status: 'skipped', reason: known.message });
      return finish('interrupted');
    }
    if (known.errorCode === 'TABLE_OWNED_ELSEWHERE') {
      // Marked by another manifest between the read before the run and the table step's own.
      steps.push(refusedTableRecord(known, true));
      return finish('failed', known);
    }
    const refusedNow = known.errorCode === 'SCHEMA_CHANGE_REFUSED';
    steps.push({ step: current, action: refusedNow ? 'refused' : attempted, status: 'failed', reason: known.toLine(), ...(refusedNow && Array.isArray(known.details?.difference) ? { difference: known.details.difference as string[] } : {}) });
    return finish('failed', known);
  }
}

/** What a step list says when the sample check is off and no reason was given. */
const SAMPLE_CHECK_OFF = '--no-sample-check';

/** Steps in the documented order. */
function sortSteps(steps: StepRecord[]): void {
  steps.sort((a, b) => STEP_ORDER.indexOf(a.step) - STEP_ORDER.indexOf(b.step));
}

function dashboardSpec(entry: Prepared['entry'], tableName: string): DashboardSpec {
  return { tableName, rows: entry.dashboard?.rows ?? 100, title: entry.dashboard?.title ?? entry.dataset, chart: entry.dashboard?.chart ?? `${tableName} positions`, profile: entry.dashboard?.profile };
}

async function platformVersion(options: RunOptions): Promise<string | undefined> {
  return options.settings.platformVersion ?? (await (options.platformVersionRead ??= options.client.platformVersion()));
}

/**
 * An entry without `groups` whose enablement does not exist yet cannot be enabled: found with the catalog's reads
 * (the plan's own), before anything is sent, and said at the entry's line rather than as a flag it never had.
 */
async function enablementWithoutGroups(entry: Prepared['entry'], options: RunOptions): Promise<void> {
  if ((entry.groups ?? []).length > 0) return;
  try {
    await enableDataSet(options.client, { ...enableRequest(entry, options), dryRun: true });
  } catch (error) {
    if (!(error instanceof DpgwError) || error.where !== '--group') throw error;
    throw new DpgwError('MANIFEST_INVALID', `${error.message}: add groups: [<group>, …] to this data set's entry`);
  }
}

function enableRequest(entry: Prepared['entry'], options: RunOptions) {
  options.catalogCache ??= newCatalogCache();
  return { dataSource: entry.datasource, dataSet: entry.dataset, groups: entry.groups ?? [], enablement: entry.enablement, waitTimeoutMs: options.waitTimeoutMs, warn: options.warn, catalogCache: options.catalogCache, signal: options.stopSignal };
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
    issues.map((issue) => ({ ...issue, field: `${fieldPath(prefix)}${issue.field ? `.${issue.field}` : ''}`, ...(issue.path ? { path: [...prefix, ...issue.path] } : {}) })),
    'inline schema',
    warn,
  );
  return checked!;
}
