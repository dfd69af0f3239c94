/**
 * `dpgw provision`: for each data set of a manifest, the contract's workflow in
 * order — enable and wait for the topic → schema push → table create → storage
 * touch (platforms older than 1.15.165, or unknown) — with data sets side by
 * side up to a concurrency, each keeping its own order. Safe to re-run: each step
 * says whether it changed anything. Everything that can be checked without the
 * platform is checked before the first request (prepare).
 */
import { nameProblem } from '../names/platform-names.js';
import { parseSelfHref, selfHrefOf, topicOf } from '../catalog/data-set-facts.js';
import { enableDataSet, findOffered, newCatalogCache, primeCatalog, type CatalogCache } from '../catalog/enable-data-set.js';
import { storageTouchNeeded } from '../contract/platform-version.js';
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';
import { paths } from '../contract/paths.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { buildTable, type TableInputs, type TableSettings } from '../olap/build-table.js';
import { loadSchema } from '../olap/load-schema.js';
import type { LocatedDocument, PathPart } from '../olap/located-document.js';
import { fieldPath, validateSchema, type ValidationIssue } from '../olap/schema-validation.js';
import { closestMatch } from '../text/closest-match.js';
import { failOnIssues } from '../olap/table-template.js';
import { maskSecrets } from '../secrets/redaction.js';
import type { InferSettings, LoadedManifest } from './manifest.js';
import { inferredSchemaName, inferStep } from './infer-step.js';
import { DATE_TIME_DEFAULTS } from '../contract/constants.js';
import { FILLED_TIME_COLUMN } from '../schema-inference/infer-schema.js';
import { DEFAULT_TOPIC_SAMPLE } from '../schema-inference/sample-messages.js';
import type { StreamConnection } from '../stream/stream-connection.js';
import type { StatementClient } from '../query-engine/statement-client.js';
import { buildDashboard } from '../dashboard/build-dashboard.js';
import type { SupersetClient } from '../dashboard/superset-client.js';
import { verifyProfiles, verifyStep } from './verify-step.js';
import { createTableOnce, storageDecision, touchDefaultStorage } from '../catalog/table-and-storage-steps.js';
import { compareSchema, compareTable, incompatibleSchemaMessage, updateTable, type LiveComparison } from './live-state.js';
import { EntryProblems } from './entry-problems.js';
import { consumptionText, waitUntilConsuming } from '../olap/consumption.js';
import { SKIP_STREAM_CHECK_FLAG, streamCheckSkipped, type StreamPreflight, type TopicFacts } from '../stream/stream-preflight.js';

export type StepName = 'enable' | 'stream' | 'schema' | 'table' | 'storage' | 'consume' | 'verify' | 'dashboard';
/**
 * `accepted`: the platform took it, and cannot say whether it differed (a schema sent again);
 * `not-compared`: it exists and could not be read back to compare (never "unchanged");
 * `passed`: a check held.
 */
export type StepStatus = 'changed' | 'unchanged' | 'accepted' | 'not-compared' | 'passed' | 'skipped' | 'failed' | 'planned';

/**
 * What a plan's step would do, a closed set (docs/provision.md, "The plan"): `refused` is a step the platform would
 * reject, and every step that depends on it is `blocked`; a plan holding either exits 2, since the run would fail.
 */
export const PLAN_ACTIONS = ['create', 'update', 'delete', 'none', 'read', 'check', 'wait', 'refused', 'blocked', 'skipped', 'not-compared'] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

export interface StepResult {
  step: StepName;
  status: StepStatus;
  /** In a plan: what the step would do. */
  action?: PlanAction;
  detail: string;
  request?: { method: string; path: string; body?: unknown };
  /** Shown under the step in a plan: the schema inferred from the topic. */
  shown?: string;
  /** What differs from the store, in the `+ / - / ~` lines of a diff. */
  changes?: string[];
}

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
  steps: StepResult[];
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
  settings: ProvisionSettings;
  streamPassword?: string;
  /** How dpgw reads topics, for `schema: { infer: … }` (set when an entry infers). */
  stream?: StreamConnection;
  /** The whole read of one topic. */
  streamTimeoutMs?: number;
  /** The stream pre-flight before each table; undefined with --no-stream-check. */
  preflight?: StreamPreflight;
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
  /** Data sources and their offers, asked once per run. */
  catalogCache?: CatalogCache;
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
export async function prepare(loaded: LoadedManifest, settings: { table: TableSettings; profiles: KnownProfiles }, warn: (message: string) => void): Promise<Prepared[]> {
  const prepared: Prepared[] = [];
  const problems = new EntryProblems(loaded);
  knownProfiles(loaded, settings.profiles, problems);
  // A schema file that many entries name is read and checked once.
  const schemaFiles = new Map<string, Promise<AnalyticsSchema>>();
  const schemaOf = (file: string) => {
    let schema = schemaFiles.get(file);
    if (!schema) schemaFiles.set(file, (schema = loadSchema(file)));
    return schema;
  };
  for (const entry of loaded.entries) {
    try {
      const infer = inferSettingsOf(entry);
      const schema = infer ? undefined : entry.schemaFile ? await schemaOf(entry.schemaFile) : inlineSchema(loaded.document, entry.index, entry.schema as AnalyticsSchema);
      if (infer && infer.name === undefined && nameProblem('schema', entry.dataset) !== undefined) {
        // Found now, not after the data set has been enabled.
        throw new DpgwError('input', `${nameProblem('schema', entry.dataset)!}; an inferred schema takes its data set's name unless schema.infer.name gives one`, { where: entry.inferAt?.location });
      }
      const checkedWith = schema ?? standInSchema(inferredSchemaName(infer!, entry.dataset), infer!);
      const { table } = await buildTable(tableInputs(entry, checkedWith, settings.table, `<topic of ${entry.dataset}>`, '<stream password>', warn));
      prepared.push({ entry, schema, schemaName: checkedWith.schemaName, tableName: table.tableName });
    } catch (error) {
      problems.add(entry, error);
    }
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

/**
 * What the platform holds, read (GET requests only) before anything changes. Every data
 * source and data set of the manifest is looked up in the catalog, each once per run: a
 * misspelt data set is a usage error listed with all others at their manifest lines, exit
 * 2 with nothing sent — never found after the data sets before it were provisioned. Then
 * each schema is read back from the store and compared: one the store would refuse fails
 * its data set before any request of it.
 */
export async function checkBeforeRun(loaded: LoadedManifest, prepared: Prepared[], options: RunOptions): Promise<void> {
  const cache = (options.catalogCache ??= newCatalogCache());
  const problems = new EntryProblems(loaded);
  await Promise.all(
    prepared.map(({ entry }) =>
      findOffered(options.client, entry.datasource, entry.dataset, cache)
        .then(() => enablementWithoutGroups(entry, options))
        .then(
          () => undefined,
          // The catalog's suggestion ("did you mean …") belongs to the problem's own line.
          (error: unknown) => problems.add(entry, error instanceof DpgwError && error.hint ? new DpgwError(error.kind, `${error.message} (${error.hint})`, { where: error.where }) : error),
        ),
    ),
  );
  failOnIssues(problems.issues(), 'manifest');
  // The store's schemas, read once before anything changes: a schema the store would refuse fails its data set before any request of it.
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
        const where = entry.schemaFile ?? loaded.document.at(['dataSets', entry.index, 'schema']);
        options.refusedSchemas!.set(entry.index, new DpgwError('input', incompatibleSchemaMessage(schema.schemaName, live.lines), { where, hint: 'nothing of this data set was sent' }));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, pending.length)) }, reader));
}

/** The plan: what each data set would do, found with GET requests only. */
export async function plan(prepared: Prepared[], options: RunOptions): Promise<DataSetResult[]> {
  const version = await platformVersion(options);
  const listed = await options.client.listDataSets();
  const results: DataSetResult[] = [];
  for (const { entry, schema: given, schemaName, tableName } of prepared) {
    const started = Date.now();
    const steps: StepResult[] = [];
    const enabled = await enableDataSet(options.client, { ...enableRequest(entry, options), dryRun: true });
    const enabledAlready = listed.find((d) => d.name === entry.dataset && parseSelfHref(selfHrefOf(d) ?? '')?.enablementId === enabled.enablement.id);
    const topic = enabledAlready ? topicOf(enabledAlready) : undefined;
    steps.push({ step: 'enable', status: 'planned', action: enabled.enablement.created || topic === undefined ? 'create' : 'none', detail: `${enabled.enablement.created ? `create enablement ${enabled.enablement.name} for ${enabled.enablement.groups.join(', ')}` : `reuse enablement ${enabled.enablement.name}`}; ${topic ? `${entry.dataset} is enabled already (topic ${topic})` : `enable ${entry.dataset} and wait for its topic`}` });
    steps.push(await streamPlanStep(options));
    const infer = inferSettingsOf(entry);
    let schema = given;
    // What the store holds decides each step: created, unchanged, updated, refused or not compared.
    const comparisons: LiveComparison[] = [];
    if (infer && topic === undefined) {
      steps.push({ step: 'schema', status: 'planned', action: 'create', detail: `POST schema ${schemaName}, inferred from the first ${infer.sample ?? DEFAULT_TOPIC_SAMPLE} messages of the topic once ${entry.dataset} is enabled` });
      comparisons.push({ change: 'create', lines: [] });
    } else {
      const inferred = infer ? await inferStep(inferInputs(entry, infer, topic!, options)) : undefined;
      schema = inferred?.schema ?? schema;
      const live = (!inferred && options.schemaComparisons?.get(entry.index)) || (await compareSchema(options.client, schema!));
      comparisons.push(live);
      steps.push({
        step: 'schema',
        status: 'planned',
        action: actionOf(live.change),
        detail: `${schemaPlanText(live, schemaName)}${inferred ? ` ${inferred.detail}` : ''}`,
        ...(live.change === 'create' || live.change === 'update' || live.change === 'not-compared' ? { request: { method: 'POST', path: paths.olapSchemas(options.settings.olapSegment), body: schema } } : {}),
        ...(live.lines.length ? { changes: live.lines } : {}),
        ...(inferred ? { shown: inferred.text } : {}),
      });
    }
    const { table } = await buildTable(tableInputs(entry, schema ?? standInSchema(schemaName, infer!), options.settings.table, topic ?? `<topic of ${entry.dataset}, created when enabled>`, options.streamPassword ?? '***', options.warn));
    const liveTable = await compareTable(options.client, table, options.streamPassword !== undefined);
    comparisons.push(liveTable);
    const refusedStep = steps.find((step) => step.action === 'refused');
    const dependents: StepResult[] = [
      {
        step: 'table',
        status: 'planned',
        action: liveTable.change === 'incompatible' ? 'not-compared' : actionOf(liveTable.change),
        detail: tablePlanText(liveTable, table.tableName),
        ...(liveTable.change === 'create' ? { request: { method: 'POST', path: paths.olapTables(options.settings.olapSegment), body: maskSecrets(table) } } : {}),
        ...(liveTable.change === 'update' ? { request: { method: 'PUT', path: paths.olapTable(table.tableName, options.settings.olapSegment), body: maskSecrets(table) } } : {}),
        ...(liveTable.lines.length ? { changes: liveTable.lines } : {}),
      },
      storageStep(version, 'planned'),
      consumePlanStep(options),
      ...(entry.verify ? [{ step: 'verify', status: 'planned', action: 'check', detail: `in the query engine, as ${verifyProfiles(entry.verify).map((p) => `${p.profile} (${p.expect})`).join(', ')}` } as const] : []),
      ...(entry.dashboard ? [{ step: 'dashboard', status: 'planned', action: 'create', detail: dashboardPlan(entry, tableName) } as const] : []),
    ];
    // A refused step blocks every step after it: the run sends nothing of this data set, so none of them happens.
    steps.push(...(refusedStep ? dependents.map((step): StepResult => ({ step: step.step, status: 'planned', action: 'blocked', detail: `blocked: the ${refusedStep.step} step is refused` })) : dependents));
    const changed = enabled.enablement.created || topic === undefined || comparisons.some((c) => c.change === 'create' || c.change === 'update' || c.change === 'incompatible');
    const uncompared = comparisons.some((c) => c.change === 'not-compared');
    results.push({ dataset: entry.dataset, datasource: entry.datasource, enablement: enabled.enablement.name, topic, schema: schemaName, table: tableName, status: 'planned', changed, uncompared, steps, ms: Date.now() - started });
  }
  return results;
}

/** The plan's action for what the store holds. */
function actionOf(change: LiveComparison['change']): PlanAction {
  switch (change) {
    case 'create':
      return 'create';
    case 'update':
      return 'update';
    case 'none':
      return 'none';
    case 'incompatible':
      return 'refused';
    case 'not-compared':
      return 'not-compared';
  }
}

function schemaPlanText(live: LiveComparison, schemaName: string): string {
  switch (live.change) {
    case 'create':
      return `POST schema ${schemaName} (new)`;
    case 'none':
      return `schema ${schemaName}: no changes`;
    case 'update':
      return `POST schema ${schemaName} again: the store takes added columns (rows stored before show them once it reloads its segments)`;
    case 'incompatible':
      return `refused, nothing of this data set is sent: ${incompatibleSchemaMessage(schemaName, live.lines)}`;
    case 'not-compared':
      return `POST schema ${schemaName}; not compared: ${live.why}`;
  }
}

function tablePlanText(live: LiveComparison, tableName: string): string {
  switch (live.change) {
    case 'create':
      return `POST table ${tableName} (new)`;
    case 'none':
      return `table ${tableName}: no changes`;
    case 'update':
      return `PUT table ${tableName}: update what differs`;
    case 'incompatible':
    case 'not-compared':
      return `POST table ${tableName}; if it exists, not compared: ${live.why}`;
  }
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
  const steps: StepResult[] = [];
  const finish = (status: DataSetResult['status'], error?: DpgwError): DataSetResult => ({
    ...result,
    steps,
    status,
    changed: steps.some((s) => s.status === 'changed'),
    uncompared: steps.some((s) => s.status === 'not-compared'),
    ...(error ? { error: error.toJSON(), exitCode: error.exitCode } : {}),
    ms: Date.now() - started,
  });
  let current: StepName = 'enable';
  const refused = options.refusedSchemas?.get(entry.index);
  if (refused) {
    steps.push({ step: 'schema', status: 'failed', detail: refused.toLine() });
    return finish('failed', refused);
  }
  try {
    const enabled = await enableDataSet(options.client, enableRequest(entry, options));
    result.topic = enabled.topic;
    result.enablement = enabled.enablement.name;
    steps.push({
      step: 'enable',
      status: enabled.enablement.created || enabled.change === 'enabled' ? 'changed' : 'unchanged',
      detail: `${enabled.enablement.created ? 'created' : 'reused'} enablement ${enabled.enablement.name}; ${enabled.change === 'already' ? 'already enabled' : 'enabled'}; topic ${enabled.topic}`,
    });
    if (options.interrupted()) return finish('interrupted');

    // Before anything of the table is sent: would the store consume its topic?
    current = 'stream';
    const topic = entry.table?.topic ?? enabled.topic!;
    let topicFacts: TopicFacts | undefined;
    const preflight = options.preflight ? await options.preflight.check(topic, tableName) : undefined;
    if (preflight?.kind === 'passed') {
      topicFacts = preflight.facts;
      steps.push({ step: 'stream', status: 'passed', detail: `topic ${topic}: ${topicFacts.partitions} partition${topicFacts.partitions === 1 ? '' : 's'}, read as ${options.preflight!.describe()}` });
    } else if (preflight?.kind === 'skipped') {
      options.warn(streamCheckSkipped(preflight.why));
      steps.push({ step: 'stream', status: 'skipped', detail: `not checked: ${preflight.why}; the consumption check proves the stream` });
    } else steps.push({ step: 'stream', status: 'skipped', detail: `not checked (${SKIP_STREAM_CHECK_FLAG}): nothing tells whether the store can consume topic ${topic}` });

    current = 'schema';
    const infer = inferSettingsOf(entry);
    const inferred = infer ? await inferStep(inferInputs(entry, infer, entry.table?.topic ?? enabled.topic!, options)) : undefined;
    const schema = inferred?.schema ?? given!;
    steps.push(await pushSchema(options, schema, options.schemaComparisons?.get(entry.index), inferred?.detail));
    if (options.interrupted()) return finish('interrupted');

    current = 'table';
    const { table } = await buildTable(tableInputs(entry, schema, options.settings.table, enabled.topic!, options.streamPassword, options.warn));
    steps.push(await createTable(options, table));
    if (options.interrupted()) return finish('interrupted');

    current = 'storage';
    const decision = storageDecision(version);
    if (!decision.touch) steps.push(storageStep(version, 'skipped'));
    else {
      await touchDefaultStorage(options.client, { dataSet: entry.dataset, selfHref: enabled.selfHref, storageId: enabled.storageId });
      // The answer does not say whether permissions were created ("response: not shown").
      // After enabling or creating the table in this run, this is the touch that creates them.
      const firstTouch = steps.some((s) => (s.step === 'enable' || s.step === 'table') && s.status === 'changed');
      const unknownVersion = decision.versionKnown ? '' : '; platform version unknown';
      steps.push(
        firstTouch
          ? { step: 'storage', status: 'changed', detail: `touched the default storage: the store's permissions for the enablement's groups are created${unknownVersion}` }
          : { step: 'storage', status: 'accepted', detail: `touched the default storage again; the gateway does not say whether permissions were missing${unknownVersion}` },
      );
    }
    if (options.interrupted()) return finish('interrupted');
    current = 'consume';
    steps.push(await consumeStep(options, tableName, topic, topicFacts));
    if (entry.verify && options.engineOf) {
      if (options.interrupted()) return finish('interrupted');
      current = 'verify';
      const verified = await verifyStep(entry.verify, entry.dataset, tableName, options.engineOf);
      steps.push({ step: 'verify', status: 'passed', detail: verified.detail });
    }
    if (entry.dashboard && options.dashboardOf) {
      if (options.interrupted()) return finish('interrupted');
      current = 'dashboard';
      const { client, databaseName } = options.dashboardOf(entry.dashboard.profile);
      const built = await buildDashboard(client, { ...dashboardRequest(entry, tableName), databaseName });
      steps.push({ step: 'dashboard', status: built.changed ? 'changed' : 'unchanged', detail: `${built.dashboard.url} (chart ${built.chart.id}, ${built.rendered.rows} points)` });
    }
    return finish('done');
  } catch (error) {
    const known = error instanceof DpgwError ? error : new DpgwError('failure', (error as Error).message, { cause: error });
    if (known.kind === 'interrupted') {
      // What the step did before the stop is in the summary: an enablement created and a data set enabled are changes.
      const done = known.details as { enablement?: string; enablementCreated?: boolean; enabled?: boolean } | undefined;
      if (current === 'enable' && done?.enabled) {
        if (done.enablement !== undefined) result.enablement = done.enablement;
        steps.push({ step: 'enable', status: 'changed', detail: `${done.enablementCreated ? 'created' : 'reused'} enablement ${done.enablement}; enabled ${entry.dataset}; stopped before its topic appeared` });
      } else steps.push({ step: current, status: 'skipped', detail: known.message });
      return finish('interrupted');
    }
    steps.push({ step: current, status: 'failed', detail: known.toLine() });
    return finish('failed', known);
  }
}

/**
 * The schema step, by what the store holds: the same is "unchanged" (nothing sent), new is
 * created, added columns are sent again (the store takes a backward-compatible schema under
 * its name), and a gateway without reads gets the POST as before ("accepted").
 */
async function pushSchema(options: RunOptions, schema: AnalyticsSchema, known: LiveComparison | undefined, inferred: string | undefined): Promise<StepResult> {
  const live = known ?? (await compareSchema(options.client, schema));
  const name = `schema ${schema.schemaName}${inferred ? ` ${inferred};` : ''}`;
  if (live.change === 'none') return { step: 'schema', status: 'unchanged', detail: `${name} matches the store` };
  // An inferred schema is known only after enabling: then its schema and table are what was not sent.
  if (live.change === 'incompatible') throw new DpgwError('input', incompatibleSchemaMessage(schema.schemaName, live.lines), { hint: 'its schema and table were not sent' });
  await options.client.createSchema(schema);
  if (live.change === 'create') return { step: 'schema', status: 'changed', detail: `${name} created` };
  if (live.change === 'update') {
    return { step: 'schema', status: 'changed', detail: `${name} updated: rows stored before show the added columns once the store reloads its segments`, changes: live.lines };
  }
  return { step: 'schema', status: 'accepted', detail: `${name} accepted; not compared: ${live.why}` };
}

async function createTable(options: RunOptions, table: RealtimeTableDefinition): Promise<StepResult> {
  const outcome = await createTableOnce(options.client, table, options.failOnExists ? 'failure' : 'unchanged', 'the run was told to fail on an existing table (--fail-on-exists)');
  if (outcome.created) return { step: 'table', status: 'changed', detail: `table ${table.tableName} created` };
  // It exists (409): "unchanged" only when read back and equal; a difference is updated; without reads, "not compared".
  const live = await compareTable(options.client, table, true);
  if (live.change === 'none') return { step: 'table', status: 'unchanged', detail: `table ${table.tableName} exists and matches the manifest` };
  if (live.change === 'update') {
    await updateTable(options.client, table, live.lines);
    return { step: 'table', status: 'changed', detail: `table ${table.tableName} updated: ${live.lines.join('; ')}`, changes: live.lines };
  }
  const why = live.change === 'create' ? 'the store answered 409 for the table but does not return it' : live.why;
  return { step: 'table', status: 'not-compared', detail: `table ${table.tableName} exists, not compared: ${why}` };
}

/** The proof that the table consumes: every partition, or the first error the store reports (the data set fails). */
async function consumeStep(options: RunOptions, tableName: string, topic: string, topicFacts: TopicFacts | undefined): Promise<StepResult> {
  const waitMs = options.waitConsumingMs ?? 0;
  if (waitMs <= 0) return { step: 'consume', status: 'skipped', detail: 'consumption not checked (--wait-consuming 0)' };
  const consumption = await waitUntilConsuming(options.client, tableName, { partitions: topicFacts?.partitions, timeoutMs: waitMs, signal: options.stopSignal });
  if (consumption.state === 'consuming') return { step: 'consume', status: 'passed', detail: `table ${tableName} is ${consumptionText(consumption)} of topic ${topic}` };
  if (consumption.state === 'not-checked') return { step: 'consume', status: 'skipped', detail: consumptionText(consumption) };
  // Ctrl-C or SIGTERM cut the wait short: the data set is interrupted, not a table that does not consume.
  if (options.stopSignal?.aborted) throw new DpgwError('interrupted', `stopped while waiting for table ${tableName} to consume`);
  throw new DpgwError('failure', `table ${tableName} does not consume topic ${topic}: ${consumptionText(consumption)}`, {
    code: 'NOT_CONSUMING',
    hint: `the store's server log says why; check the stream settings the table carries (dpgw table get ${tableName}), or wait longer with --wait-consuming <seconds>`,
  });
}

async function streamPlanStep(options: RunOptions): Promise<StepResult> {
  if (!options.preflight) return { step: 'stream', status: 'skipped', action: 'skipped', detail: `not checked (${SKIP_STREAM_CHECK_FLAG})` };
  // A TCP probe of the brokers, nothing sent: the plan says whether the run would skip the check, and why.
  const why = await options.preflight.skippedBecause();
  if (why !== undefined) return { step: 'stream', status: 'skipped', action: 'skipped', detail: `would be skipped: ${why} (--stream-check auto); the consumption check would prove the stream` };
  return { step: 'stream', status: 'planned', action: 'check', detail: `sign in to ${options.preflight.describe()} and find the topic before the table is sent` };
}

function consumePlanStep(options: RunOptions): StepResult {
  const waitMs = options.waitConsumingMs ?? 0;
  if (waitMs <= 0) return { step: 'consume', status: 'skipped', action: 'skipped', detail: 'consumption not checked (--wait-consuming 0)' };
  return { step: 'consume', status: 'planned', action: 'wait', detail: `wait up to ${waitMs / 1000} s for the store to consume every partition of the topic` };
}

function dashboardRequest(entry: Prepared['entry'], tableName: string) {
  return { table: tableName, rows: entry.dashboard?.rows ?? 100, dashboardTitle: entry.dashboard?.title ?? entry.dataset, chartName: entry.dashboard?.chart ?? `${tableName} positions` };
}

function dashboardPlan(entry: Prepared['entry'], tableName: string): string {
  const request = dashboardRequest(entry, tableName);
  return `in the dashboard tool${entry.dashboard?.profile ? ` as ${entry.dashboard.profile}` : ''}: data set SELECT * FROM default.${tableName} LIMIT ${request.rows}, chart "${request.chartName}" on dashboard "${request.dashboardTitle}"`;
}

function storageStep(version: string | undefined, status: 'planned' | 'skipped'): StepResult {
  const need = storageTouchNeeded(version);
  if (need === 'not-needed') return { step: 'storage', status: 'skipped', action: 'skipped', detail: `not needed on platform ${version}` };
  return { step: 'storage', status, ...(status === 'planned' ? { action: 'read' as const } : {}), detail: need === 'needed' ? `GET the default storage (platform ${version})` : 'GET the default storage (platform version unknown)' };
}

async function platformVersion(options: RunOptions): Promise<string | undefined> {
  return options.settings.platformVersion ?? (await options.client.platformVersion());
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
    throw new DpgwError('usage', `${error.message}: add groups: [<group>, …] to this data set's entry`);
  }
}

function enableRequest(entry: Prepared['entry'], options: RunOptions) {
  options.catalogCache ??= newCatalogCache();
  return { dataSource: entry.datasource, dataSet: entry.dataset, groups: entry.groups ?? [], enablement: entry.enablement, waitTimeoutMs: options.waitTimeoutMs, warn: options.warn, catalogCache: options.catalogCache, signal: options.stopSignal };
}

/** Until the schema is inferred, the table template is checked with its date-time column alone. */
function standInSchema(schemaName: string, infer: InferSettings): AnalyticsSchema {
  return { schemaName, dateTimeFieldSpecs: [{ ...DATE_TIME_DEFAULTS, name: infer.timeColumn ?? FILLED_TIME_COLUMN }] };
}

/** The entry's `schema: { infer: … }`, when it has one. */
export function inferSettingsOf(entry: Prepared['entry']): InferSettings | undefined {
  return typeof entry.schema === 'object' && 'infer' in entry.schema ? (entry.schema.infer as InferSettings) : undefined;
}

function inferInputs(entry: Prepared['entry'], infer: InferSettings, topic: string, options: RunOptions) {
  if (!options.stream) throw new Error('a manifest entry infers its schema, but the run has no stream connection');
  return { infer, dataSet: entry.dataset, topic, stream: options.stream, timeoutMs: options.streamTimeoutMs ?? 30_000, where: entry.inferAt?.location ?? `data set ${entry.dataset}`, warn: options.warn };
}

function tableInputs(entry: Prepared['entry'], schema: AnalyticsSchema, settings: TableSettings, topic: string, streamPassword: string | undefined, warn: (message: string) => void): TableInputs {
  return {
    settings,
    retentionDays: entry.table?.retentionDays,
    topic: entry.table?.topic ?? topic,
    schema: { schema },
    tableName: entry.table?.name,
    templateFile: entry.templateFile,
    timeColumn: entry.table?.timeColumn,
    streamPassword,
    warn,
  };
}

function inlineSchema(document: LocatedDocument, index: number, schema: AnalyticsSchema): AnalyticsSchema {
  const prefix: PathPart[] = ['dataSets', index, 'schema'];
  const view: LocatedDocument = { file: document.file, value: schema, at: (path) => document.at([...prefix, ...path]), keyAt: (path) => document.keyAt([...prefix, ...path]) };
  const { issues } = validateSchema(view);
  // Named from the manifest's top, as every other manifest problem is.
  failOnIssues(
    issues.map((issue) => ({ ...issue, field: `${fieldPath(prefix)}${issue.field ? `.${issue.field}` : ''}` })),
    'inline schema',
  );
  return schema;
}
