/** `dpgw schema push`, `validate` and `infer`: step 4 of the contract, and the schema from the messages. */
import { basename, extname } from 'node:path';
import { checkOutputFile, writeOutputFile } from '../../files/atomic-write.js';
import type { Readable } from 'node:stream';
import type { ChalkInstance } from 'chalk';
import type { ContextOf, HandlerOf } from '../../command-kit/command-definition.js';
import type { SchemaDeleteCommand, SchemaGetCommand, SchemaInferCommand, SchemaPushCommand, SchemaValidateCommand } from './schema.flags.js';
import { deleteFromStore } from '../shared/store-delete.js';
import { shownFromStore } from '../shared/store-read.js';
import { topicOfDataSet } from '../../catalog/resolve-data-set.js';
import { startProgress } from '../../output/progress.js';
import { DEFAULT_TOPIC_SAMPLE, sampleFiles, sampleTopic, type Sampled } from '../../schema-inference/sample-messages.js';
import { streamConnectionOf, streamPasswordOf, streamUserOf } from '../../settings/core-options.js';
import { hiddenPrompt } from '../shared/prompts.js';
import type { AnalyticsSchema } from '../../contract/types.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { FILLED_TIME_COLUMN, InferenceError, type InferredType } from '../../schema-inference/infer-schema.js';
import { MessageFit, notJudgedWarning } from '../../schema-inference/message-fit.js';
import { checkedSchemaYaml } from '../../schema-inference/schema-text.js';
import { ExitCode } from '../../errors/exit-code.js';
import { loadSchema, schemaIssues } from '../../olap/load-schema.js';
import { isWarning, issueLine, schemaColumns } from '../../olap/schema-validation.js';
import { requireWord, timeoutMs } from '../../settings/setting-values.js';
import { plannedWithReads, renderPlannedSteps } from '../shared/dry-run.js';
import { walkSteps } from '../../provision/executor.js';
import { failureOf, recordOf, SCHEMA_PUSH_STEPS, unreadSchemaPush, type SchemaPushInputs } from '../../provision/command-steps.js';
import { Questions } from '../shared/questions.js';
import { askSchemaFile } from '../shared/file-questions.js';
import { schemaNameArgument } from '../shared/store-questions.js';

/** `<file>` of schema push|validate: as given, else chosen among the schema files under this folder at a terminal (without one: exit 2). */
async function schemaFileArgument(context: ContextOf<SchemaPushCommand> | ContextOf<SchemaValidateCommand>): Promise<string> {
  const questions = new Questions(context);
  const file = await questions.operand('<file>', context.args[0], () => askSchemaFile(context));
  questions.done();
  return file;
}

export const push: HandlerOf<SchemaPushCommand> = async (context) => {
  const file = await schemaFileArgument(context);
  const schema = await loadSchema(file, (line) => context.reporter.warn(line));
  const olapSegment = requireWord(await context.settings(), 'olapSegment');
  const given = { schema, olapSegment, where: file, reload: { waitMs: context.options.waitReload * 1000, forceCommit: context.options.forceCommit === true } };
  if (context.options.dryRun === true) {
    const planned = await plannedWithReads(
      async () => (await walkSteps('plan', SCHEMA_PUSH_STEPS, { ...given, client: await context.gateway(), warn: (line) => context.reporter.warn(line) })).steps,
      (why) => [unreadSchemaPush(given, why)],
      (line) => context.reporter.warn(line),
    );
    return renderPlannedSteps(planned);
  }
  // provision's schema step: compared with the store first, so the same schema sends nothing and one the store would refuse is refused here.
  const inputs: SchemaPushInputs = { ...given, client: await context.gateway() };
  const walked = await walkSteps('apply', SCHEMA_PUSH_STEPS, inputs);
  if (walked.outcome !== 'done') throw failureOf(walked);
  const record = recordOf(walked, 'schema');
  const reload = walked.steps.find((step) => step.step === 'reload');
  const { answer } = inputs;
  context.reporter.success(record.reason);
  for (const line of record.difference ?? []) context.reporter.info(`  ${line}`);
  if (reload?.status === 'skipped') context.reporter.warn(reload.reason);
  else if (reload) context.reporter.success(reload.reason);
  // Added columns and no table of the schema's name: a table linked to it by another name is not reloaded here.
  if ((inputs.addedColumns?.length ?? 0) > 0 && !reload) context.reporter.info(`no table ${schema.schemaName} in the store: a table that uses this schema under another name shows the added columns in the rows stored before once an operator reloads its segments (POST /segments/<table>/reload?type=REALTIME to the store's controller)`);
  if (!reload) context.reporter.next(`dpgw table create --dataset <data set> --schema ${file}`);
  return { data: { schemaName: schema.schemaName, change: record.status, ...(record.difference ? { difference: record.difference } : {}), ...(reload ? { reload: { status: reload.status, reason: reload.reason } } : {}), status: answer?.status ?? null, response: answer?.body ?? null }, human: () => [] };
};

export const get: HandlerOf<SchemaGetCommand> = async (context) => shownFromStore(context.gateway, 'schema', await schemaNameArgument(context));

export const remove: HandlerOf<SchemaDeleteCommand> = async (context) => deleteFromStore(context, 'schema', await schemaNameArgument(context));

export const validate: HandlerOf<SchemaValidateCommand> = async (context) => {
  const file = await schemaFileArgument(context);
  const { schema, issues } = await schemaIssues(file);
  // What the store reads but ignores is a warning at its place; only problems refuse.
  const problems = issues.filter((issue) => !isWarning(issue));
  for (const warning of issues.filter(isWarning)) context.reporter.warn(issueLine(warning));
  return {
    data: { file, valid: problems.length === 0, schemaName: schema?.schemaName ?? null, issues: issues.map((issue) => ({ ...issue, severity: issue.severity ?? 'problem' })) },
    exitCode: problems.length === 0 ? ExitCode.Ok : ExitCode.Usage,
    human: (style) => (problems.length === 0 ? [`${style.green('✓')} ${file}: schema ${schema!.schemaName} is valid`] : problems.map(issueLine)),
  };
};

/** Skipped lines shown one by one before they are only counted. */
const SKIPPED_SHOWN = 5;

export const infer: HandlerOf<SchemaInferCommand> = async (context) => {
  const { options, reporter } = context;
  // Refused before a topic is read: the file at --output, or a link there, is not replaced without --force.
  if (options.output && options.check === undefined) checkOutputFile(options.output, { where: '--output', force: options.force === true });
  // --check: the schema read first, so each message is held against it as the table create's sample check holds it.
  const checked = options.check === undefined ? undefined : await loadSchema(options.check, (line) => reporter.warn(line));
  const fit = checked === undefined ? undefined : new MessageFit(checked);
  const { skipped, inference, described, defaultSchemaName } = await sampleFor(context, fit);
  skipped.slice(0, SKIPPED_SHOWN).forEach((skip) => reporter.warn(`${skip.where}: skipped: ${skip.reason}`));
  if (skipped.length > SKIPPED_SHOWN) reporter.warn(`… and ${skipped.length - SKIPPED_SHOWN} more messages skipped`);

  const schemaName = options.name ?? defaultSchemaName;
  let inferred;
  try {
    inferred = inference.result({ name: schemaName, timeColumn: options.timeColumn, metrics: options.metric ?? [] });
  } catch (error) {
    if (error instanceof InferenceError) throw new DpgwError('INVALID_ARGUMENT', error.message, { where: error.option === 'metrics' ? '--metric' : '--time-column' });
    throw error;
  }
  inferred.warnings.forEach((warning) => reporter.warn(warning));
  inferred.notes.forEach((note) => reporter.info(note));

  if (options.check !== undefined) return check(options.check, checked!, fit!, inferred.types, inferred.messages, (line) => reporter.warn(line));

  const text = checkedSchemaYaml(inferred.schema, [`Inferred by \`dpgw schema infer\` from ${described}.`, 'Check it, then: dpgw schema push <this file>']);
  const output = options.output;
  if (output) {
    await writeOutputFile(output, extname(output).toLowerCase() === '.json' ? `${JSON.stringify(inferred.schema, null, 2)}\n` : text, 0o644, { where: '--output', force: options.force === true });
    reporter.success(`schema ${schemaName} from ${described} written to ${output}`);
    reporter.next(`dpgw schema push ${output}`);
  }
  return {
    data: { schema: inferred.schema, messages: inferred.messages, skipped: skipped.length, warnings: inferred.warnings, notes: inferred.notes, ...(output ? { file: output } : {}) },
    // The file's text, as checkedSchemaYaml serialized it (every name one scalar on its line).
    human: () => (output ? [] : text.trimEnd().split('\n')),
  };
};

/** The messages to infer from: --dataset/--topic read the topic, else the files or stdin. */
async function sampleFor(context: ContextOf<SchemaInferCommand>, fit?: MessageFit): Promise<Sampled & { defaultSchemaName: string }> {
  const { options, io } = context;
  const files = context.args[0];
  const { sample, dataset: dataSet, topic: topicGiven } = options;

  if (dataSet !== undefined || topicGiven !== undefined) {
    if (files.length > 0) throw new DpgwError('CONFLICTING_ARGUMENTS', `give messages files or ${dataSet !== undefined ? '--dataset' : '--topic'}, not both`, { where: files[0], hint: 'drop the files to read the topic, or drop the flag to read the files' });
    const settings = await context.settings();
    const topic = topicGiven ?? (await topicOfDataSet(await context.gateway(), dataSet!, options.enablement));
    const streamUser = streamUserOf(settings);
    const password = streamUser === undefined ? undefined : await streamPasswordOf(settings, io.env, context.canPrompt ? (message) => hiddenPrompt(context, message) : undefined);
    const connection = streamConnectionOf(settings, password);
    const progress = startProgress(context.reporter, io, `reading messages of topic ${topic}`);
    let sampled;
    try {
      sampled = await sampleTopic({ ...connection, topic, limit: sample ?? DEFAULT_TOPIC_SAMPLE, timeoutMs: timeoutMs(settings), trace: (line) => context.reporter.trace(line) }, fit);
    } finally {
      progress.stop();
    }
    return { ...sampled, defaultSchemaName: dataSet ?? topic.replace(/^.*\./, '') };
  }
  const sources = files.length === 0 || (files.length === 1 && files[0] === '-') ? ['-'] : files;
  if (sources.includes('-') && io.stdin.isTTY) throw new DpgwError('MISSING_ARGUMENT', 'no messages: give JSON Lines files, --dataset, or pipe them in', { hint: 'dpgw schema infer messages.jsonl   or   dpgw schema infer --dataset track   or   … | dpgw schema infer -' });
  return { ...(await sampleFiles(sources, io.stdin as Readable, sample ?? Infinity, fit)), defaultSchemaName: defaultName(sources[0]!) };
}

/**
 * --check: the messages against a schema file; every missing, extra or mistyped column, exit 2 when any.
 * What fits is the sample check's rule (MessageFit: multi-value columns, the store's TIMESTAMP forms), each value as written.
 */
function check(file: string, schema: AnalyticsSchema, fit: MessageFit, types: Map<string, InferredType>, messages: number, warn: (line: string) => void) {
  const columns = schemaColumns(schema);
  const declared = new Map([...columns].map(([column, { dataType }]) => [column, dataType]));
  const timeColumns = new Set([...columns].filter(([, { group }]) => group === 'dateTimeFieldSpecs').map(([column]) => column));
  const report = fit.result();
  const unjudged = notJudgedWarning(report.judged);
  if (unjudged !== undefined) warn(unjudged);
  const problems: Array<{ column: string; problem: 'missing' | 'extra' | 'type'; detail: string }> = [];
  for (const { column } of report.missing) {
    // The table template fills its time column with now() when the messages lack it.
    if (!(timeColumns.has(column) && column === FILLED_TIME_COLUMN)) problems.push({ column, problem: 'missing', detail: `${file} declares ${column} (${declared.get(column)}); no message has it` });
  }
  for (const { column, dataType } of report.mistyped) problems.push({ column, problem: 'type', detail: `${file} declares ${column} ${dataType}; the messages make it ${types.get(column) ?? 'another type'}` });
  for (const [column, seen] of types) if (!declared.has(column)) problems.push({ column, problem: 'extra', detail: `the messages have ${column} (${seen}); ${file} does not declare it, so the table drops it` });
  return {
    data: { schema: file, messages, ok: problems.length === 0, problems },
    exitCode: problems.length === 0 ? ExitCode.Ok : ExitCode.Usage,
    human: (style: ChalkInstance) =>
      problems.length === 0 ? [`${style.green('✓')} ${messages} messages fit ${file}`] : problems.map((p) => `${p.problem}: ${p.detail}`),
  };
}

function defaultName(source: string): string {
  const stem = source === '-' ? 'messages' : basename(source).replace(/\.[^.]*$/, '');
  return stem.replace(/[^A-Za-z0-9_]/g, '_') || 'messages';
}

