/**
 * `dpgw init [dir]` (issue #36 §2): a data set turned into a reviewed manifest. At a terminal
 * every value not given as a flag is asked for, from the live catalog and a sample of the
 * data set's topic; without one the flags alone decide. It reads only (the catalog, the
 * topic) and writes two files, provision.yaml and the schema, never replacing either
 * without --force; the platform is changed by the plan it points to, not by init.
 */
import { lstatSync, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { ContextOf, HandlerOf } from '../../command-kit/command-definition.js';
import type { InitCommand } from './init.flags.js';
import { catalogEnablements, enabledDataSets } from '../../catalog/catalog-lookup.js';
import { sameSet } from '../../catalog/enable-data-set.js';
import type { AnalyticsSchema } from '../../contract/types.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { checkOutputFile, writeOutputFile } from '../../files/atomic-write.js';
import { cannotWrite } from '../../files/file-problem.js';
import type { GatewayClient } from '../../gateway/gateway-client.js';
import { INIT_MANIFEST_FILE, INIT_SCHEMA_FILE, initManifestText, type Chosen, type InitManifest } from '../../init/init-manifest.js';
import { sampleDataSetTopic } from '../../init/topic-sample.js';
import { nameProblem, requireName } from '../../names/platform-names.js';
import { loadSchema } from '../../olap/load-schema.js';
import { startProgress } from '../../output/progress.js';
import { textTable } from '../../output/text-table.js';
import { loadManifest, type InferSettings } from '../../provision/manifest.js';
import { MANIFEST_SCHEMA_FILE, manifestSchemaText } from '../../provision/manifest-schema-file.js';
import { DEFAULT_TOPIC_SAMPLE } from '../../schema-inference/sample-size.js';
import { FILLED_TIME_COLUMN, InferenceError, type InferredType } from '../../schema-inference/infer-schema.js';
import { sampleFiles, type Sampled } from '../../schema-inference/sample-messages.js';
import { checkedSchemaYaml } from '../../schema-inference/schema-text.js';
import { streamConnectionOf, streamPasswordOf, streamUserOf } from '../../settings/core-options.js';
import { SETTING_DEFINITIONS } from '../../settings/setting-definitions.js';
import { timeoutMs } from '../../settings/setting-values.js';
import { shellWord } from '../../text/shell-word.js';
import { askEnablement, askGroups } from '../shared/catalog-questions.js';
import { offeredDataSetFlags } from '../shared/data-set-question.js';
import { askMessagesFile, askSchemaFile } from '../shared/file-questions.js';
import { checkboxPrompt, choosePrompt, confirmPrompt, hiddenPrompt, textPrompt, type Choice } from '../shared/prompts.js';
import { Questions } from '../shared/questions.js';

type Context = ContextOf<InitCommand>;

/**
 * Where the schema comes from: a file as it is (checked as `schema validate` checks it), messages to infer it from,
 * or the topic at the first run (`schema: { infer: … }`: the manifest's own inference, once the run has enabled the data set).
 */
type SchemaSource = { file: string; schema: AnalyticsSchema } | { sampled: Sampled } | { inferAtFirstRun: true };

export const init: HandlerOf<InitCommand> = async (context) => {
  const { options, reporter, io } = context;
  const folder = resolve(io.cwd, context.args[0] ?? '.');
  const manifestFile = join(folder, INIT_MANIFEST_FILE);
  refuseConflictingSchemaFlags(options);
  // Refused before any question: nothing asked is lost to a file that is there already.
  const schemaTarget = options.inferAtFirstRun === true ? undefined : options.schema === undefined ? join(folder, INIT_SCHEMA_FILE) : copiedSchemaPath(folder, resolve(io.cwd, options.schema));
  // The manifest's JSON Schema beside it (its first line points editors at it): one the same as this dpgw's is kept as it is.
  const editorSchema = join(folder, MANIFEST_SCHEMA_FILE);
  checkOutputFile(editorSchema, { force: options.force === true, existing: 'replace' });
  const editorSchemaCurrent = existingText(editorSchema) === manifestSchemaText();
  refuseToReplace([manifestFile, ...(schemaTarget !== undefined ? [schemaTarget] : []), ...(editorSchemaCurrent ? [] : [editorSchema])], options.force === true, io.cwd);

  const questions = new Questions(context);
  const { dataSource, dataSet } = await offeredDataSetFlags(questions, context, options);
  const gateway = await context.gateway();
  const enablement = await chooseEnablement(context, questions, gateway, dataSource, dataSet);
  // An existing enablement's name and groups are the catalog's: written into the manifest only as names dpgw would send.
  requireName('enablement', enablement.value, 'the catalog');
  const groups = await chooseGroups(context, questions, enablement);

  const source = await schemaSource(context, questions, gateway, { dataSource, dataSet, enablement, groups });
  // A schema given as a file names the table, as `table create` takes the schema's name; an inferred one is named after the table.
  const tableDefault = 'file' in source ? { value: source.schema.schemaName, because: "default: the schema's name" } : { value: dataSet, because: "default: the data set's name" };
  const table = await chosenValue(questions, '--table <name>', options.table, tableDefault, (fallback) => textPrompt(context, 'Table name:', { default: fallback, check: (typed) => nameProblem('table', typed) }));
  const schema = 'sampled' in source ? await inferredSchema(context, questions, source.sampled, table.value) : undefined;
  const retention = await chooseRetention(context, questions);
  questions.done();

  // The files: the schema first (the manifest names it), then the manifest; a failure leaves neither.
  await mkdir(folder, { recursive: true }).catch((error: unknown) => {
    throw cannotWrite(folder, error);
  });
  const schemaFile = 'inferAtFirstRun' in source ? undefined : await writeSchema(folder, source, schema, options.force === true, io.cwd);
  const shownManifest = shownPath(io.cwd, manifestFile);
  const manifest: InitManifest = {
    dataSource,
    dataSet,
    enablement,
    groups,
    schema:
      schemaFile === undefined
        ? { infer: inferAtFirstRun(options, table.value, dataSet) }
        : { file: relative(folder, schemaFile.path).split(sep).join('/'), from: 'file' in source ? `from ${source.file}` : `inferred from ${(source as { sampled: Sampled }).sampled.described}; review it` },
    table,
    retentionDays: { value: Number(retention.value), chosenBecause: retention.chosenBecause },
    ...(nameProblem('manifest', basename(resolve(folder))) === undefined ? { name: basename(resolve(folder)) } : {}),
  };
  if (!editorSchemaCurrent) await writeOutputFile(editorSchema, manifestSchemaText(), 0o644, { force: options.force === true });
  await writeManifest(manifestFile, initManifestText(manifest, shownManifest), [...(schemaFile?.written === true ? [schemaFile.path] : []), ...(editorSchemaCurrent ? [] : [editorSchema])], options.force === true);

  const shownSchema = schemaFile === undefined ? undefined : shownPath(io.cwd, schemaFile.path);
  reporter.success(`wrote ${shownManifest}${schemaFile?.written === true ? ` and ${shownSchema}` : ''}${editorSchemaCurrent ? '' : `, and ${MANIFEST_SCHEMA_FILE} beside it for editors`}`);
  const planCommand = `dpgw provision ${shellWord(shownManifest)} --plan`;
  reporter.next(planCommand);
  const data = { folder: shownPath(io.cwd, folder), manifest: shownManifest, ...(shownSchema !== undefined ? { schema: shownSchema } : { schemaInfer: manifest.schema }), dataSource, dataSet, enablement: enablement.value, groups, table: table.value, retentionDays: Number(retention.value), next: planCommand };
  if (context.canPrompt && !reporter.options.json && (await confirmPrompt(context, 'Run the plan now?', true))) {
    const exitCode = await context.runCommandLine(['provision', shownManifest, '--plan', ...globalFlagWords(context.argv)]);
    return { data, printed: true, exitCode };
  }
  return { data, human: () => [] };
};

/** --schema gives a schema as it is: the flags that find or shape an inferred one are refused beside it. */
function refuseConflictingSchemaFlags(options: Context['options']): void {
  const sources = [options.schema !== undefined && '--schema', options.fromMessages !== undefined && '--from-messages', options.inferAtFirstRun === true && '--infer-at-first-run'].filter((flag) => flag !== false);
  if (sources.length > 1) {
    throw new DpgwError('CONFLICTING_ARGUMENTS', `give one of ${sources.join(', ')}, not ${sources.length === 2 ? 'both' : 'all'}`, {
      where: sources[1],
      hint: '--schema takes the schema as it is; --from-messages infers one from a file; --infer-at-first-run leaves it to the first run, from the topic',
    });
  }
  if (options.schema !== undefined && (options.metric !== undefined || options.timeColumn !== undefined)) {
    throw new DpgwError('CONFLICTING_ARGUMENTS', `${options.metric !== undefined ? '--metric' : '--time-column'} shapes an inferred schema, and --schema gives one`, { where: options.metric !== undefined ? '--metric' : '--time-column', hint: 'edit the schema file instead, or infer it (drop --schema)' });
  }
}

/** An existing enablement's groups are the catalog's (--group is then only warned of); a new one's are given or asked for. */
async function chooseGroups(context: Context, questions: Questions, enablement: Chosen<string> & { exists: boolean; groups: string[] }): Promise<string[]> {
  const { options, reporter } = context;
  if (!enablement.exists) return questions.flags('--group <group...>', options.group, () => askGroups(context, enablement.value));
  const groups = enablement.groups.map((group) => requireName('group', group, `the catalog's enablement ${enablement.value}`));
  if (options.group !== undefined && !sameSet(options.group, enablement.groups)) {
    reporter.warn(`enablement ${enablement.value} exists with groups ${enablement.groups.join(', ')}; the manifest keeps them (--group ${options.group.join(', ')} is not applied)`);
  }
  return groups;
}

/** The retention: the flag, else asked for, else the setting's (and where it came from). */
async function chooseRetention(context: Context, questions: Questions): Promise<Chosen<string>> {
  const { options } = context;
  const settings = await context.settings();
  const retentionDefault = Number(settings.values.retentionDays.value ?? 7);
  return chosenValue(questions, '--retention-days <days>', options.retentionDays === undefined ? undefined : String(options.retentionDays), { value: String(retentionDefault), because: settings.values.retentionDays.source.kind === 'default' ? 'default' : `from the ${settings.values.retentionDays.source.kind} setting` }, (fallback) =>
    textPrompt(context, 'Retention in days:', { default: fallback, check: (typed) => (/^[1-9]\d{0,4}$/.test(typed) && Number(typed) <= 36_500 ? undefined : 'a whole number of days from 1 to 36500') }),
  );
}

/** The manifest written after its schema and the JSON Schema: a failure removes the files init wrote, so it leaves none. */
async function writeManifest(manifestFile: string, text: string, writtenBefore: readonly string[], force: boolean): Promise<void> {
  try {
    await writeOutputFile(manifestFile, text, 0o644, { force });
  } catch (error) {
    for (const file of writtenBefore) await rm(file, { force: true });
    throw cannotWrite(manifestFile, error);
  }
  // The manifest as provision reads it: what init writes must load without a problem.
  const loaded = await loadManifest(manifestFile);
  if (loaded.problems.length > 0) throw new DpgwError('UNEXPECTED_FAILURE', `internal error: the written manifest has a problem: ${loaded.problems[0]!.message}`, { where: manifestFile, hint: 'please report it' });
}

/**
 * The files init would write that are there already: refused without --force, before anything is asked. The folder
 * may be a link the user named; a file in it that is a link is refused as the writer refuses it, --force or not
 * replacing the link itself.
 */
function refuseToReplace(files: readonly string[], force: boolean, cwd: string): void {
  for (const file of files) checkOutputFile(file, { force, existing: 'replace' });
  if (force) return;
  const present = files.filter((file) => lstatSync(file, { throwIfNoEntry: false }) !== undefined);
  if (present.length === 0) return;
  // Where: the folder, once; the files by name in it (not the folder's path twice over).
  throw new DpgwError('OUTPUT_EXISTS', `${present.map((file) => basename(file)).join(' and ')} ${present.length === 1 ? 'exists' : 'exist'}: not replaced`, {
    where: shownPath(cwd, dirname(present[0]!)),
    hint: 'pass --force to replace, or give another folder: dpgw init <dir>',
  });
}

/** A value a flag gives, or asked for at a terminal, or the default with the reason written beside it in the manifest. */
async function chosenValue(questions: Questions, flag: string, given: string | undefined, fallback: { value: string; because: string }, ask: (fallback: string) => Promise<string>): Promise<Chosen<string>> {
  if (given !== undefined) return { value: given };
  if (!questions.canAsk) return { value: fallback.value, chosenBecause: fallback.because };
  return { value: await questions.flag(flag, undefined, () => ask(fallback.value)) };
}

/** The enablement: given, asked for (the one holding the data set first), or the one it is enabled in, else a new one named after it. */
async function chooseEnablement(context: Context, questions: Questions, gateway: GatewayClient, dataSource: string, dataSet: string): Promise<Chosen<string> & { exists: boolean; groups: string[] }> {
  const given = context.options.enablement;
  if (given === undefined && questions.canAsk) {
    const chosen = await askEnablement(context, gateway, dataSource, dataSet);
    questions.answered('--enablement', chosen.name);
    return { value: chosen.name, exists: chosen.exists, groups: chosen.groups };
  }
  const enablements = await catalogEnablements(gateway, { dataSource });
  if (given !== undefined) {
    const found = enablements.find(({ enablement }) => enablement.name === given || enablement.id === given);
    return { value: found?.enablement.name ?? given, exists: found !== undefined, groups: found?.enablement.groups ?? [] };
  }
  const holding = await enabledDataSets(gateway, { dataSource, name: dataSet });
  const holders = enablements.filter(({ enablement }) => holding.some((view) => view.enablement.id === enablement.id));
  if (holders.length === 1) return { value: holders[0]!.enablement.name, exists: true, groups: holders[0]!.enablement.groups, chosenBecause: `the enablement ${dataSet} is enabled in` };
  const named = enablements.find(({ enablement }) => enablement.name === dataSet);
  return { value: dataSet, exists: named !== undefined, groups: named?.enablement.groups ?? [], chosenBecause: "default: the data set's name" };
}

/**
 * --schema, --from-messages, --infer-at-first-run, else the topic's latest messages; when the topic cannot be read, one of
 * the three chosen at a terminal, or what to pass (the `dpgw enable` line with the flags given, not placeholders for them).
 */
async function schemaSource(context: Context, questions: Questions, gateway: GatewayClient, chosen: { dataSource: string; dataSet: string; enablement: Chosen<string> & { exists: boolean }; groups: readonly string[] }): Promise<SchemaSource> {
  const { options, reporter, io } = context;
  const { dataSource, dataSet, enablement } = chosen;
  const fromFile = async (file: string): Promise<SchemaSource> => ({ file, schema: await loadSchema(resolve(io.cwd, file), (line) => reporter.warn(line)) });
  const fromMessages = async (file: string): Promise<SchemaSource> => ({ sampled: await sampleFiles([resolve(io.cwd, file)], io.stdin as Readable, options.sample) });
  if (options.schema !== undefined) return fromFile(options.schema);
  if (options.fromMessages !== undefined) return fromMessages(options.fromMessages);
  if (options.inferAtFirstRun === true) return { inferAtFirstRun: true };
  const settings = await context.settings();
  const progress = startProgress(reporter, io, `finding ${dataSet}'s topic to read its latest messages`);
  let sample;
  try {
    sample = await sampleDataSetTopic(gateway, {
      dataSet,
      enablement: enablement.value,
      limit: options.sample,
      stream:
        settings.values.brokerList.value === undefined
          ? undefined
          : async () => streamConnectionOf(settings, streamUserOf(settings) === undefined ? undefined : await streamPasswordOf(settings, io.env, context.canPrompt ? (message) => hiddenPrompt(context, message) : undefined)),
      timeoutMs: timeoutMs(settings),
      trace: (line) => reporter.trace(line),
    });
  } finally {
    progress.stop();
  }
  if ('sampled' in sample) {
    reporter.info(`read ${sample.sampled.described}`);
    return { sampled: sample.sampled };
  }
  // An existing enablement keeps its groups; a new one needs the groups given (or asked for) here.
  const groupWords = enablement.exists ? '' : ` --group ${chosen.groups.length > 0 ? chosen.groups.map(shellWord).join(' ') : '<group>'}`;
  const enableFirst = `dpgw enable --datasource ${shellWord(dataSource)} --dataset ${shellWord(dataSet)}${enablement.value !== dataSet ? ` --enablement ${shellWord(enablement.value)}` : ''}${groupWords}`;
  if (!questions.canAsk) {
    throw questions.missing(['--schema <file>', '--from-messages <file>', '--infer-at-first-run'], `cannot read a sample of ${dataSet}'s topic: ${sample.unreadable}; pass one of them${sample.notEnabled ? `, or enable it first (${enableFirst}) and run init again` : ''}`);
  }
  reporter.warn(`cannot read a sample of ${dataSet}'s topic: ${sample.unreadable}${sample.notEnabled ? ` (to read it, stop here and enable it first: ${enableFirst})` : ''}`);
  const kind = await choosePrompt<'schema' | 'messages' | 'infer'>(context, 'Take the schema from:', [
    { value: 'schema', name: 'a schema file (--schema)' },
    { value: 'messages', name: 'a file of messages to infer it from, JSON Lines (--from-messages)' },
    { value: 'infer', name: 'the topic, inferred by the first run after enabling it (--infer-at-first-run)' },
  ]);
  if (kind === 'infer') {
    questions.answeredSwitch('--infer-at-first-run');
    return { inferAtFirstRun: true };
  }
  const file = await questions.flag(kind === 'schema' ? '--schema <file>' : '--from-messages <file>', undefined, () => (kind === 'schema' ? askSchemaFile(context) : askMessagesFile(context)));
  return kind === 'schema' ? fromFile(file) : fromMessages(file);
}

/**
 * The manifest's `schema: { infer: … }`: the flags that shape an inferred schema written into it (the sample only when
 * not the default), and the schema named after the table, as init names a schema it infers itself.
 */
function inferAtFirstRun(options: Context['options'], table: string, dataSet: string): InferSettings {
  return {
    ...(options.sample !== DEFAULT_TOPIC_SAMPLE ? { sample: options.sample } : {}),
    ...(table !== dataSet ? { name: table } : {}),
    ...(options.timeColumn !== undefined ? { timeColumn: options.timeColumn } : {}),
    ...(options.metric !== undefined && options.metric.length > 0 ? { metrics: options.metric } : {}),
  };
}

/** The inferred columns shown, the time column and metrics chosen (flags, questions or the inference's own choice), the schema built. */
async function inferredSchema(context: Context, questions: Questions, sampled: Sampled, name: string): Promise<AnalyticsSchema> {
  const { options, reporter } = context;
  const { inference } = sampled;
  // The inference's own choice of time column (also what refuses message fields that cannot be columns).
  let proposed: string | undefined;
  try {
    proposed = inference.result({ name }).schema.dateTimeFieldSpecs?.[0]?.name;
  } catch (error) {
    if (!(error instanceof InferenceError)) throw error;
  }
  const types = inference.columnTypes();
  for (const line of textTable(['COLUMN', 'TYPE', 'SEEN AS'], [...types].map(([column, type]) => [column, type, roleOf(column, type, proposed)]), { style: reporter.err, width: undefined })) reporter.info(line);
  // The columns whose values read as times (epoch seconds, milliseconds or days, dates as text), as the inference ranks them.
  const timeColumns: Array<Choice<string>> = inference.timeColumnChoices().map(({ name: column, holds }) => ({ value: column, name: `${column}  (${types.get(column)}: ${holds})` }));
  if (proposed === FILLED_TIME_COLUMN && !types.has(FILLED_TIME_COLUMN)) timeColumns.push({ value: FILLED_TIME_COLUMN, name: `${FILLED_TIME_COLUMN}  (added, filled with now() at ingestion)` });
  const timeColumn =
    options.timeColumn ??
    (questions.canAsk && timeColumns.length > 1
      ? await questions.flag('--time-column <name>', undefined, () => choosePrompt(context, 'Time column:', timeColumns, { preferred: proposed }))
      : undefined);
  const integers = [...types].filter(([column, type]) => (type === 'INT' || type === 'LONG') && column !== (timeColumn ?? proposed));
  let metrics = options.metric ?? [];
  if (options.metric === undefined && questions.canAsk && integers.length > 0) {
    metrics = await checkboxPrompt(context, 'Metrics (space ticks; decimals are metrics already):', integers.map(([column, type]) => ({ value: column, name: `${column}  (${type})` })));
    for (const metric of metrics) questions.answered('--metric <column...>', metric);
  }
  let inferred;
  try {
    inferred = inference.result({ name, timeColumn: timeColumn === FILLED_TIME_COLUMN && !types.has(FILLED_TIME_COLUMN) ? undefined : timeColumn, metrics });
  } catch (error) {
    if (error instanceof InferenceError) throw new DpgwError('INVALID_ARGUMENT', error.message, { where: error.option === 'metrics' ? '--metric' : '--time-column' });
    throw error;
  }
  inferred.warnings.forEach((warning) => reporter.warn(warning));
  return inferred.schema;
}

function roleOf(column: string, type: InferredType, timeColumn: string | undefined): string {
  if (column === timeColumn) return 'time column';
  return type === 'DOUBLE' ? 'metric' : 'dimension';
}

/** The schema file in the folder: inferred and written, a file given there already used as it is, one from elsewhere copied in. */
async function writeSchema(folder: string, source: SchemaSource, schema: AnalyticsSchema | undefined, force: boolean, cwd: string): Promise<{ path: string; written: boolean }> {
  if ('file' in source) {
    const given = resolve(cwd, source.file);
    const target = copiedSchemaPath(folder, given);
    if (target === undefined) return { path: given, written: false };
    // Asked for at a terminal after the first check: checked again before it is copied.
    refuseToReplace([target], force, cwd);
    // The file's own text (its comments too), written as every file dpgw makes is: never through a link at the target.
    const text = await readFile(given, 'utf8').catch((error: unknown) => {
      throw cannotWrite(target, error);
    });
    await writeOutputFile(target, text, 0o644, { force });
    return { path: target, written: true };
  }
  const target = join(folder, INIT_SCHEMA_FILE);
  await writeOutputFile(target, checkedSchemaYaml(schema!, ['Inferred by `dpgw init`. Review the types, the time column and the metrics.']), 0o644, { force });
  return { path: target, written: true };
}

/** Where a schema file given from elsewhere is copied (beside the manifest, under its own name); undefined when it lies in the folder already. */
function copiedSchemaPath(folder: string, given: string): string | undefined {
  return dirname(given) === folder ? undefined : join(folder, basename(given));
}

/** A file's text, or undefined when there is none (nor when it is a link: --force replaces the link, never reads through it). */
function existingText(file: string): string | undefined {
  try {
    return lstatSync(file).isFile() ? readFileSync(file, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

/** A path as the user would type it from where they are. */
function shownPath(cwd: string, path: string): string {
  const shown = relative(cwd, path);
  return shown === '' ? '.' : shown.startsWith('..') ? path : shown.split(sep).join('/');
}

/** The settings flags of the command line (`--profile x`, `--gateway …`): the plan init runs reads the same platform. */
function globalFlagWords(argv: readonly string[]): string[] {
  const valued = new Set(['--profile', ...SETTING_DEFINITIONS.filter((d) => d.flag && d.scope === undefined).map((d) => d.flag!.split(' ')[0]!)]);
  const words: string[] = [];
  for (let at = 0; at < argv.length && argv[at] !== '--'; at++) {
    const word = argv[at]!;
    const flag = word.split('=')[0]!;
    if (['--verbose', '--quiet', '-q', '--no-color'].includes(word)) words.push(word);
    else if (valued.has(flag)) words.push(...(word.includes('=') ? [word] : [word, argv[++at] ?? '']));
  }
  return words;
}
