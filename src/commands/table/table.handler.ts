/** `dpgw table create` and `dpgw table render`: step 5 of the contract. */
import type { ContextOf, HandlerOf } from '../../command-kit/command-definition.js';
import type { TableCreateCommand, TableDeleteCommand, TableGetCommand, TableRenderCommand } from './table.flags.js';
import { deleteFromStore } from '../shared/store-delete.js';
import { shownFromStore } from '../shared/store-read.js';
import { topicOfDataSet } from '../../catalog/resolve-data-set.js';
import { buildTable, type BuiltTable } from '../../olap/build-table.js';
import { maskSecrets } from '../../secrets/redaction.js';
import { requireWord } from '../../settings/setting-values.js';
import { plannedWithReads, renderPlannedSteps } from '../shared/dry-run.js';
import { hiddenPrompt } from '../shared/prompts.js';
import { Questions } from '../shared/questions.js';
import { DATA_SET_FLAG, dataSetFlag } from '../shared/data-set-question.js';
import { askSchemaFile } from '../shared/file-questions.js';
import { tableNameArgument } from '../shared/store-questions.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { consumptionText, type Consumption } from '../../olap/consumption.js';
import { checkIgnored } from '../../provision/steps/sample-step.js';
import { uncomparedTableCreate } from '../../provision/steps/table-step.js';
import { walkSteps } from '../../provision/executor.js';
import { failureOf, recordOf, TABLE_CREATE_STEPS, tableCreateControl, type TableCreateInputs } from '../../provision/command-steps.js';
import { timeoutMs } from '../../settings/setting-values.js';
import { streamCheckModeOf, streamConnectionOf, streamPasswordOf, tableSettingsOf } from '../../settings/core-options.js';
import { StreamPreflight } from '../../stream/stream-preflight.js';
import { yamlLines } from '../../output/document-lines.js';

/** What create and render fill the table from: the data set (and its enablement) and the schema, as given or asked for. */
interface TableInputs {
  dataSet: string;
  enablement?: string;
  schema: string;
}

const SCHEMA_FLAG = '--schema <file|name>';

/** --dataset and --schema: as given, else asked for at a terminal (without one: exit 2 naming them, before any request). */
async function tableInputs(context: ContextOf<TableRenderCommand>): Promise<TableInputs> {
  const { options } = context;
  const questions = new Questions(context);
  questions.require([
    { flag: DATA_SET_FLAG, given: options.dataset },
    { flag: SCHEMA_FLAG, given: options.schema },
  ]);
  const { dataSet, enablement } = await dataSetFlag(questions, context, options, true);
  const schema = await questions.flag(SCHEMA_FLAG, options.schema, () => askSchemaFile(context));
  questions.done();
  return { dataSet, enablement, schema };
}

/** create and render: the same options (create adds --dry-run); render shows the stream password masked, so it is not read. */
async function build(context: ContextOf<TableRenderCommand>, inputs: TableInputs, maskStreamPassword: boolean): Promise<BuiltTable & { dataSet: string; topic: string; streamPassword?: string }> {
  const { options } = context;
  const settings = await context.settings();
  const table = tableSettingsOf(settings);
  const dataSetName = inputs.dataSet;
  const topic = options.topic ?? (await topicOfDataSet(await context.gateway(), dataSetName, inputs.enablement));
  // Read once the topic is known (a catalog answer is checked before any secret is read), and
  // once only: the table carries it, and create's stream pre-flight signs in with it.
  const prompt = context.canPrompt ? (message: string) => hiddenPrompt(context, message) : undefined;
  const streamPassword = maskStreamPassword || table.streamUser === undefined ? undefined : await streamPasswordOf(settings, context.io.env, prompt);
  const built = await buildTable({
    settings: table,
    topic,
    schema: inputs.schema,
    tableName: options.name,
    templateFile: options.template,
    timeColumn: options.timeColumn,
    maskStreamPassword,
    streamPassword,
    warn: (message) => context.reporter.warn(message),
  });
  return { ...built, dataSet: dataSetName, topic, streamPassword };
}

export const create: HandlerOf<TableCreateCommand> = async (context) => {
  const { options, reporter } = context;
  const settings = await context.settings();
  // Checked before the catalog is asked: a mode that is none of the three sends nothing.
  const mode = streamCheckModeOf(settings);
  const inputs = await tableInputs(context);
  const built = await build(context, inputs, false);
  const { streamPassword } = built;
  // A column to pass unjudged that the schema lacks is a typo: refused before anything is read or sent, --dry-run included.
  if (built.schema && options.sampleIgnore) checkIgnored({ columns: options.sampleIgnore, where: '--sample-ignore' }, built.schema);
  const stream = streamConnectionOf(settings, streamPassword);
  const given: Omit<TableCreateInputs, 'client'> = {
    table: built.table,
    topic: built.topic,
    olapSegment: requireWord(settings, 'olapSegment'),
    schema: built.schema,
    schemaName: built.schemaName,
    schemaGiven: inputs.schema,
    templateFile: options.template,
    preflight: mode === 'off' ? undefined : new StreamPreflight(stream, { mode, timeoutMs: timeoutMs(settings), trace: reporter.options.verbose ? (line) => reporter.info(line) : undefined }),
    // Brokers out of reach: the stream's warning says the table is sent unchecked, this check included.
    sampleCheck: options.sampleCheck === false || mode === 'off' ? undefined : { stream, limit: options.sample, timeoutMs: timeoutMs(settings), mode },
    ignore: options.sampleIgnore ? { columns: options.sampleIgnore, where: '--sample-ignore' } : undefined,
    waitMs: options.waitConsuming * 1000,
    info: (line) => reporter.info(line),
    warn: (line) => reporter.warn(line),
    success: (line) => reporter.success(line),
  };
  if (options.dryRun === true) return dryRunOfCreate(context, given);
  // provision's steps, walked as provision walks them: the stream pre-flight, the sample check, the table, the consumption check;
  // a table the store holds is compared first, so a re-run of the same request sends nothing and touches no broker.
  const applied: TableCreateInputs = { ...given, client: await context.gateway() };
  const control = await tableCreateControl(applied);
  const walked = await walkSteps('apply', TABLE_CREATE_STEPS, applied, control);
  const tableName = built.table.tableName;
  if (control.settledBeforeRun) {
    reporter.success(control.settledBeforeRun.reason);
    return { data: { tableName, schemaName: built.schemaName, topic: built.topic, change: 'none', status: null, response: null }, human: () => [] };
  }
  const data = (consumption: Consumption | undefined) => ({
    tableName,
    schemaName: built.schemaName,
    topic: built.topic,
    status: applied.answer!.status,
    response: applied.answer!.body ?? null,
    stream: applied.stream?.facts ? { checked: true, partitions: applied.stream.facts.partitions } : { checked: false, ...(applied.stream?.skippedBecause !== undefined ? { skipped: applied.stream.skippedBecause } : {}) },
    consumption,
  });
  const failure = failureOf(walked);
  // A table created that does not consume: the failure carries what was created, for --json.
  if (failure instanceof DpgwError && failure.errorCode === 'NOT_CONSUMING') {
    const { consumption, diagnosis } = failure.details as { consumption: Consumption; diagnosis?: unknown };
    throw new DpgwError(failure.errorCode, failure.message, { hint: failure.hint, details: { ...data(consumption), ...(diagnosis !== undefined ? { diagnosis } : {}) } });
  }
  if (failure !== undefined) throw failure;
  const consumed = recordOf(walked, 'consume');
  if (consumed.status === 'passed') reporter.success(consumed.reason);
  else reporter.warn(`table ${tableName}: ${consumptionText(applied.consumption!)}`);
  reporter.next(`dpgw storage touch --dataset ${built.dataSet}${inputs.enablement ? ` --enablement ${inputs.enablement}` : ''}`);
  return { data: data(applied.consumption), human: () => [] };
};

/** create --dry-run: the steps' plan, read as the run would; with the gateway out of reach, the table's POST not compared. */
async function dryRunOfCreate(context: ContextOf<TableCreateCommand>, given: Omit<TableCreateInputs, 'client'>) {
  try {
    const planned = await plannedWithReads(
      async () => {
        const inputs = { ...given, client: await context.gateway() };
        return (await walkSteps('plan', TABLE_CREATE_STEPS, inputs, await tableCreateControl(inputs))).steps;
      },
      (why) => [uncomparedTableCreate(given.table, given.olapSegment, why)],
      (line) => context.reporter.warn(line),
    );
    return renderPlannedSteps(planned, { topic: given.topic });
  } finally {
    await given.preflight?.close();
  }
}

export const render: HandlerOf<TableRenderCommand> = async (context) => {
  const built = await build(context, await tableInputs(context), true);
  // Shown as `table get` shows the store's copy (YAML; --json: JSON), so the two read side by side.
  const table = maskSecrets(built.table);
  return { data: table, human: () => yamlLines(table) };
};

export const get: HandlerOf<TableGetCommand> = async (context) => shownFromStore(context.gateway, 'table', await tableNameArgument(context));

export const remove: HandlerOf<TableDeleteCommand> = async (context) => deleteFromStore(context, 'table', await tableNameArgument(context));
