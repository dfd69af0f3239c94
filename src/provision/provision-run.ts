/**
 * `dpgw provision`: for each data set of a manifest, the contract's workflow in
 * order — enable and wait for the topic → schema push → table create → storage
 * touch (platforms older than 1.15.165, or unknown) — with data sets side by
 * side up to a concurrency, each keeping its own order. Safe to re-run: each step
 * says whether it changed anything. Everything that can be checked without the
 * platform is checked before the first request (prepare), and what the platform holds
 * is read before anything changes (checkBeforeRun, whose reads plan and run take). A
 * data set's steps are data-set-steps.ts; plan and run walk them with executor.ts.
 */
import { nameProblem } from '../names/platform-names.js';
import { enableDataSet, enablementsOf, everyDataSetListed, findOffered, newCatalogCache, primeCatalog, type CatalogCache } from '../catalog/enable-data-set.js';
import type { AnalyticsSchema } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { isSourceLocation, whereText, type Where } from '../errors/source-location.js';
import type { StoreRead } from '../gateway/gateway-client.js';
import { buildTable, type TableSettings } from '../olap/build-table.js';
import { loadSchema } from '../olap/load-schema.js';
import { readLocatedDocument, type LocatedDocument, type PathPart } from '../olap/located-document.js';
import { fieldPath, validateSchema, type ValidationIssue } from '../olap/schema-validation.js';
import { closestMatch } from '../text/closest-match.js';
import { failOnIssues, readTemplate } from '../olap/table-template.js';
import type { LoadedManifest } from './manifest.js';
import { inferredSchemaName } from './infer-step.js';
import { compareSchema, type LiveComparison } from './live-state.js';
import { EntryProblems } from './entry-problems.js';
import { StoreValidation } from './store-validation.js';
import { walkSideBySide, type StepMode } from './executor.js';
import { checkIgnored } from './steps/sample-step.js';
import { refusedSchemaError } from './steps/schema-step.js';
import { ownershipRefusal } from './steps/table-step.js';
import { replacementsBeforeRun } from './replacements-before-run.js';
import { enableRequest, inferSettingsOf, notStartedResult, sampleIgnoreOf, standInSchema, tableInputs, walkDataSet, type RunContext } from './data-set-steps.js';
import { nothingReadBeforeRun, platformVersionOf, type DataSetResult, type KnownProfiles, type Prepared, type RunOptions, type RunReads } from './run-options.js';

export { PLAN_ACTIONS, type PlanAction, type StepName, type StepRecord, type StepStatus } from './steps/step-record.js';
export { inferSettingsOf } from './data-set-steps.js';
export { nothingReadBeforeRun, type DataSetResult, type KnownProfiles, type Prepared, type ProvisionSettings, type RunOptions, type RunReads } from './run-options.js';

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
export async function checkBeforeRun(loaded: LoadedManifest, prepared: Prepared[], options: RunOptions, { forPlan = false }: { forPlan?: boolean } = {}): Promise<RunReads> {
  const cache = newCatalogCache();
  const platformVersion = platformVersionOf(options);
  startRunWideReads(prepared, options, cache, forPlan);
  const storeReads = readStoreBeforeRun(loaded, prepared, options);
  // Awaited after the catalog's problems, which are reported first when there are both.
  storeReads.catch(() => undefined);
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
  const reads = await storeReads;
  if (forPlan) return { catalogCache: cache, platformVersion, ...reads, storeValidation: storeValidationOf(loaded, options) };
  return readyToRun(loaded, prepared, options, { catalogCache: cache, platformVersion, ...reads });
}

/**
 * The reads a run takes, from those checkBeforeRun made (a plan's too, when `provision` at a
 * terminal shows the plan before it asks to apply it): its replacements allowed, confirmed at a
 * terminal, or refused before anything of their data sets is sent. A run does not validate
 * (storeValidationOf): the plan's validation is left out.
 */
export async function readyToRun(loaded: LoadedManifest, prepared: Prepared[], options: RunOptions, reads: RunReads): Promise<RunReads> {
  const { storeValidation: _planOnly, ...read } = reads;
  const replacements = await replacementsBeforeRun(loaded, prepared, options, read.catalogCache, read);
  return { ...read, refusedTables: new Map([...read.refusedTables, ...replacements.refused]), replaceConfirmed: replacements.confirmed };
}

/**
 * The plan's store validation (store-validation.ts) and where each data set's parts were
 * written. A run does not validate: the plan is where a refusal is found before anything is
 * sent; a run asks the store to take what it sends, and would pay a request per data set for
 * what its plan has said (docs/provision.md, "The store's own checks").
 */
function storeValidationOf(loaded: LoadedManifest, options: RunOptions): RunReads['storeValidation'] {
  const { document } = loaded;
  // A schema file many data sets share is read once more, not once each.
  const schemaFiles = new Map<string, Promise<LocatedDocument>>();
  const schemaFile = (file: string) => schemaFiles.get(file) ?? schemaFiles.set(file, readLocatedDocument(file, 'schema file')).get(file)!;
  return {
    validation: new StoreValidation(options.client, options.warn),
    placesOf: (entry) => ({
      schemaEntry: () => document.at(['dataSets', entry.index, 'schema']),
      tableEntry: () => document.at(entry.table === undefined ? ['dataSets', entry.index, 'dataset'] : ['dataSets', entry.index, 'table']),
      // An inferred schema was written by nobody; dpgw's own template neither.
      schemaSource: async () => (entry.schemaFile !== undefined ? { document: await schemaFile(entry.schemaFile), prefix: [] } : inferSettingsOf(entry) ? undefined : { document, prefix: ['dataSets', entry.index, 'schema'] }),
      tableSource: async () => (entry.templateFile !== undefined ? { document: await readTemplate(entry.templateFile), prefix: [] } : undefined),
    }),
  };
}

type StoreReads = Pick<RunReads, 'schemaComparisons' | 'refusedSchemas' | 'tableReads' | 'refusedTables'>;

/**
 * The store's schemas and tables, each read once before anything changes, in one queue of
 * at most --concurrency reads at once (the run-wide reads keep their own places beside
 * them). A schema the store would refuse fails its data set before any request of it; so
 * does a table another manifest marked, unless the run adopts it (docs/lifecycle.md,
 * "Ownership"). The plan compares with the same reads. When the queue would not go out in
 * one go, the store's listings are asked first (storeListings): a name they lack is not
 * read by name.
 */
async function readStoreBeforeRun(loaded: LoadedManifest, prepared: Prepared[], options: RunOptions): Promise<StoreReads> {
  const reads = { schemaComparisons: new Map<number, LiveComparison>(), refusedSchemas: new Map<number, DpgwError>(), tableReads: new Map<number, StoreRead<Record<string, unknown>>>(), refusedTables: new Map<number, DpgwError>() };
  // One comparison per schema, however many data sets share it.
  const schemaKey = (schema: AnalyticsSchema) => `${schema.schemaName}\u0000${JSON.stringify(schema)}`;
  const schemas = new Set(prepared.flatMap((p) => (p.schema ? [schemaKey(p.schema)] : [])));
  const listings = storeListings(options, schemas.size + prepared.length);
  const comparisons = new Map<string, Promise<LiveComparison>>();
  const compareOnce = (schema: AnalyticsSchema) => {
    const key = schemaKey(schema);
    if (!comparisons.has(key)) comparisons.set(key, listings.schemas.read(schema.schemaName).then((read) => compareSchema(options.client, schema, read)));
    return comparisons.get(key)!;
  };
  const schemaRead = async ({ entry, schema }: Prepared & { schema: AnalyticsSchema }) => {
    const live = await compareOnce(schema);
    reads.schemaComparisons.set(entry.index, live);
    if (live.change !== 'incompatible') return;
    const where = entry.schemaFile ?? whereText(loaded.document.at(['dataSets', entry.index, 'schema']));
    reads.refusedSchemas.set(entry.index, refusedSchemaError(schema.schemaName, live, where, 'nothing of this data set was sent'));
  };
  const tableRead = async ({ entry, tableName }: Prepared) => {
    const read = (await listings.tables.read(tableName)) ?? (await options.client.getTable(tableName));
    reads.tableReads.set(entry.index, read);
    if (read.kind !== 'found') return;
    const where = loaded.document.at(entry.table?.name === undefined ? ['dataSets', entry.index, 'dataset'] : ['dataSets', entry.index, 'table', 'name']);
    const refusal = ownershipRefusal(tableName, read.body, options.manifestMark, { adopt: options.adopt === true, unsent: 'nothing of this data set was sent', where: whereText(where) });
    if (refusal) reads.refusedTables.set(entry.index, refusal);
  };
  const queue = prepared.flatMap((item) => [...(item.schema !== undefined ? [() => schemaRead(item as Prepared & { schema: AnalyticsSchema })] : []), () => tableRead(item)]);
  const reader = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await next();
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, queue.length)) }, reader));
  return reads;
}

/** What a store listing says of one name: not found when the listing lacks it, else undefined (read it by name). */
interface StoreListing {
  read(name: string): Promise<StoreRead<Record<string, unknown>> | undefined>;
}

/**
 * The store's lists of schemas and tables (ASSUMED endpoints, docs/gateway-api.md), asked
 * first when the manifest's reads by name would not all go at once: on a first run most
 * names are new, and the listings save a round trip per --concurrency of them, for one round
 * trip of their own (which the run-wide catalog reads share). A name the listing lacks in any
 * letter case is not found (a store may compare names without case); a listing the gateway
 * does not expose, or that fails, leaves every read by name.
 */
function storeListings(options: RunOptions, readsByName: number): { schemas: StoreListing; tables: StoreListing } {
  if (readsByName <= options.concurrency) return { schemas: { read: async () => undefined }, tables: { read: async () => undefined } };
  const listing = (asked: Promise<StoreRead<string[]>>): StoreListing => {
    const known = asked.then(
      (read) => (read.kind === 'found' ? { names: new Set(read.body.map((name) => name.toLowerCase())), url: read.url } : undefined),
      () => undefined,
    );
    return {
      read: async (name) => {
        const listed = await known;
        return listed && !listed.names.has(name.toLowerCase()) ? { kind: 'not-found', url: listed.url, message: `${name} is not in the store's list` } : undefined;
      },
    };
  };
  return { schemas: listing(options.client.listSchemas()), tables: listing(options.client.listTables()) };
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

/** The plan: what each data set would do, found with GET requests and the store's read-only validate calls; data sets side by side as in a run, in the manifest's order. */
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
