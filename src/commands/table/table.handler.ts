/** `dpgw table create` and `dpgw table render`: step 5 of the contract. */
import type { ContextOf, HandlerOf } from '../../command-kit/command-definition.js';
import type { TableCreateCommand, TableDeleteCommand, TableGetCommand, TableRenderCommand } from './table.flags.js';
import { deleteFromStore } from '../shared/store-delete.js';
import { shownFromStore } from '../shared/store-read.js';
import { topicOfDataSet } from '../../catalog/resolve-data-set.js';
import { paths } from '../../contract/paths.js';
import { buildTable, type BuiltTable } from '../../olap/build-table.js';
import { maskSecrets } from '../../secrets/redaction.js';
import { requireWord } from '../../settings/setting-values.js';
import { renderDryRun } from '../shared/dry-run.js';
import { hiddenPrompt } from '../shared/prompts.js';
import { Questions } from '../shared/questions.js';
import { DATA_SET_FLAG, dataSetFlag } from '../shared/data-set-question.js';
import { askSchemaFile } from '../shared/file-questions.js';
import { tableNameArgument } from '../shared/store-questions.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { consumptionText, type Consumption } from '../../olap/consumption.js';
import { applyStream } from '../../provision/steps/stream-step.js';
import { applyTable } from '../../provision/steps/table-step.js';
import { applySample, checkIgnored, sampleCheckSkipped } from '../../provision/steps/sample-step.js';
import type { GatewayClient } from '../../gateway/gateway-client.js';
import type { AnalyticsSchema } from '../../contract/types.js';
import { applyConsume } from '../../provision/steps/consume-step.js';
import { timeoutMs } from '../../settings/setting-values.js';
import { streamCheckModeOf, streamConnectionOf, streamPasswordOf, tableSettingsOf } from '../../settings/core-options.js';
import { SKIP_STREAM_CHECK_FLAG, StreamPreflight, streamCheckSkipped } from '../../stream/stream-preflight.js';
import { plural } from '../../text/plural.js';
import { jsonLines } from '../../output/document-lines.js';

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
  if (options.dryRun === true) {
    return renderDryRun([{ method: 'POST', path: paths.olapTables(requireWord(settings, 'olapSegment')), body: built.table }], { topic: built.topic });
  }
  const tableName = built.table.tableName;
  // The steps of provision, one by one: the stream pre-flight, the table, the consumption check.
  const preflight = mode === 'off' ? undefined : new StreamPreflight(streamConnectionOf(settings, streamPassword), { mode, timeoutMs: timeoutMs(settings), trace: reporter.options.verbose ? (line) => reporter.info(line) : undefined });
  let stream;
  try {
    stream = await applyStream(preflight, built.topic, tableName);
  } finally {
    await preflight?.close();
  }
  if (stream.facts) reporter.info(`stream checked: ${preflight!.describe()} signed in; topic ${built.topic} has ${plural(stream.facts.partitions, 'partition')}`);
  else if (stream.skippedBecause !== undefined) reporter.warn(streamCheckSkipped(stream.skippedBecause, 'one'));
  else reporter.warn(`stream not checked (${SKIP_STREAM_CHECK_FLAG}): nothing tells whether the store can consume topic ${built.topic} before the table is sent`);
  const client = await context.gateway();
  // The topic's messages held against the schema before the table is sent: a column none carries would stay empty.
  // Brokers out of reach: the stream's warning says the table is sent unchecked, this check included.
  if (options.sampleCheck !== false && mode !== 'off' && stream.skippedBecause === undefined) {
    const schema = built.schema ?? (await storedSchema(client, built.schemaName));
    const check = { stream: streamConnectionOf(settings, streamPassword), limit: options.sample, timeoutMs: timeoutMs(settings), mode };
    if (!schema) reporter.warn(sampleCheckSkipped(`schema ${built.schemaName} could not be read back from the store`));
    else {
      const ignore = options.sampleIgnore ? { columns: options.sampleIgnore, where: '--sample-ignore' } : undefined;
      const sample = await applySample(check, built.topic, schema, built.table, '--no-sample-check', inputs.schema, ignore);
      if (sample.warning !== undefined) reporter.warn(sample.warning);
      if (sample.skippedBecause !== undefined) reporter.warn(sampleCheckSkipped(sample.skippedBecause));
      else reporter.info(`messages checked: ${sample.record.reason}`);
    }
  }
  // The store links the table to the schema it holds: a schema file not pushed yet would be refused in the store's
  // own words; said here, after the checks that may still change the schema, with the command that pushes it.
  // A gateway that does not pass schema reads on (not-exposed) is left to the store.
  if (built.schema && typeof inputs.schema === 'string') {
    const stored = await client.getSchema(built.schemaName);
    if (stored.kind === 'not-found') {
      throw new DpgwError('SCHEMA_NOT_FOUND', `the store holds no schema ${built.schemaName}: the table would be refused`, { where: stored.url, hint: `push it first: dpgw schema push ${inputs.schema}; nothing was sent` });
    }
  }
  const { answer } = await applyTable(client, built.table, { existing: { fail: 'use it as it is, or choose another name with --name' } });
  reporter.success(`table ${tableName} created for topic ${built.topic}`);
  const data = (consumption: Consumption) => ({
    tableName,
    schemaName: built.schemaName,
    topic: built.topic,
    status: answer!.status,
    response: answer!.body ?? null,
    stream: stream.facts ? { checked: true, partitions: stream.facts.partitions } : { checked: false, ...(stream.skippedBecause !== undefined ? { skipped: stream.skippedBecause } : {}) },
    consumption,
  });
  let consumed;
  try {
    consumed = await applyConsume(client, { tableName, topic: built.topic, waitMs: options.waitConsuming * 1000, partitions: stream.facts?.partitions, created: true });
  } catch (error) {
    // The failure carries what was created, for --json.
    if (error instanceof DpgwError && error.errorCode === 'NOT_CONSUMING') {
      throw new DpgwError(error.errorCode, error.message, { hint: error.hint, details: data((error.details as { consumption: Consumption }).consumption) });
    }
    throw error;
  }
  const { consumption, record } = consumed;
  if (record.status === 'passed') reporter.success(record.reason);
  else reporter.warn(`table ${tableName}: ${consumptionText(consumption)}`);
  reporter.next(`dpgw storage touch --dataset ${built.dataSet}${inputs.enablement ? ` --enablement ${inputs.enablement}` : ''}`);
  return { data: data(consumption), human: () => [] };
};

/** A schema given by name: the store's, to hold the messages against (undefined when it cannot be read). */
async function storedSchema(client: GatewayClient, name: string): Promise<AnalyticsSchema | undefined> {
  const live = await client.getSchema(name);
  return live.kind === 'found' ? (live.body as unknown as AnalyticsSchema) : undefined;
}

export const render: HandlerOf<TableRenderCommand> = async (context) => {
  const built = await build(context, await tableInputs(context), true);
  return { data: maskSecrets(built.table), human: () => jsonLines(maskSecrets(built.table)) };
};

export const get: HandlerOf<TableGetCommand> = async (context) => shownFromStore(context.gateway, 'table', await tableNameArgument(context));

export const remove: HandlerOf<TableDeleteCommand> = async (context) => deleteFromStore(context, 'table', await tableNameArgument(context));
