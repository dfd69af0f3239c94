/** `dpgw table create` and `dpgw table render`: step 5 of the contract. */
import type { ContextOf, HandlerOf } from '../../cli/command-definition.js';
import type { TableCreateCommand, TableGetCommand, TableRenderCommand } from './table.command.js';
import { shownFromStore } from '../shared/store-read.js';
import { topicOfDataSet } from '../../catalog/resolve-data-set.js';
import { paths } from '../../contract/paths.js';
import { createTableOnce } from '../../catalog/table-and-storage-steps.js';
import { buildTable, type BuiltTable } from '../../olap/build-table.js';
import { maskSecrets } from '../../secrets/redaction.js';
import { requireWord } from '../../settings/setting-values.js';
import { renderDryRun } from '../shared/dry-run.js';
import { hiddenPrompt } from '../shared/prompts.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { consumptionText, waitUntilConsuming, type Consumption } from '../../olap/consumption.js';
import { timeoutMs } from '../../settings/setting-values.js';
import { streamCheckModeOf, streamConnectionOf, streamPasswordOf, tableSettingsOf } from '../../settings/core-options.js';
import { SKIP_STREAM_CHECK_FLAG, StreamPreflight, streamCheckSkipped, type PreflightOutcome, type TopicFacts } from '../../stream/stream-preflight.js';
import { plural } from '../../text/plural.js';

/** create and render: the same options (create adds --dry-run); render shows the stream password masked, so it is not read. */
async function build(context: ContextOf<TableRenderCommand>, maskStreamPassword: boolean): Promise<BuiltTable & { dataSet: string; topic: string; streamPassword?: string }> {
  const { options } = context;
  const settings = await context.settings();
  const table = tableSettingsOf(settings);
  const dataSetName = options.dataset;
  const topic = options.topic ?? (await topicOfDataSet(await context.gateway(), dataSetName, options.enablement));
  // Read once the topic is known (a catalog answer is checked before any secret is read), and
  // once only: the table carries it, and create's stream pre-flight signs in with it.
  const prompt = context.canPrompt ? (message: string) => hiddenPrompt(context, message) : undefined;
  const streamPassword = maskStreamPassword || table.streamUser === undefined ? undefined : await streamPasswordOf(settings, context.io.env, prompt);
  const built = await buildTable({
    settings: table,
    topic,
    schema: options.schema,
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
  const built = await build(context, false);
  const { streamPassword } = built;
  if (options.dryRun === true) {
    return renderDryRun([{ method: 'POST', path: paths.olapTables(requireWord(settings, 'olapSegment')), body: built.table }], { topic: built.topic });
  }
  const tableName = built.table.tableName;
  let topicFacts: TopicFacts | undefined;
  let skippedBecause: string | undefined;
  if (mode !== 'off') {
    const preflight = new StreamPreflight(streamConnectionOf(settings, streamPassword), { mode, timeoutMs: timeoutMs(settings), trace: reporter.options.verbose ? (line) => reporter.info(line) : undefined });
    let outcome: PreflightOutcome;
    try {
      outcome = await preflight.check(built.topic, tableName);
    } finally {
      await preflight.close();
    }
    if (outcome.kind === 'passed') {
      topicFacts = outcome.facts;
      reporter.info(`stream checked: ${preflight.describe()} signed in; topic ${built.topic} has ${plural(topicFacts.partitions, 'partition')}`);
    } else {
      skippedBecause = outcome.why;
      reporter.warn(streamCheckSkipped(outcome.why, 'one'));
    }
  } else {
    reporter.warn(`stream not checked (${SKIP_STREAM_CHECK_FLAG}): nothing tells whether the store can consume topic ${built.topic} before the table is sent`);
  }
  const client = await context.gateway();
  const { answer } = await createTableOnce(client, built.table, 'failure', 'use it as it is, or choose another name with --name');
  reporter.success(`table ${tableName} created for topic ${built.topic}`);
  const consumption: Consumption =
    options.waitConsuming > 0
      ? await waitUntilConsuming(client, tableName, { partitions: topicFacts?.partitions, timeoutMs: options.waitConsuming * 1000 })
      : { state: 'not-checked', why: 'not asked (--wait-consuming 0)' };
  const data = { tableName, schemaName: built.schemaName, topic: built.topic, status: answer.status, response: answer.body ?? null, stream: topicFacts ? { checked: true, partitions: topicFacts.partitions } : { checked: false, ...(skippedBecause ? { skipped: skippedBecause } : {}) }, consumption };
  if (consumption.state === 'not-consuming') {
    throw new DpgwError('failure', `table ${tableName} was created but does not consume topic ${built.topic}: ${consumptionText(consumption)}`, {
      code: 'NOT_CONSUMING',
      hint: `the store's server log says why; check the stream settings the table carries (dpgw table get ${tableName}), or wait longer with --wait-consuming <seconds>`,
      details: data,
    });
  }
  if (consumption.state === 'consuming') reporter.success(`table ${tableName} is ${consumptionText(consumption)} of topic ${built.topic}`);
  else reporter.warn(`table ${tableName}: ${consumptionText(consumption)}`);
  reporter.next(`dpgw storage touch --dataset ${built.dataSet}${options.enablement ? ` --enablement ${options.enablement}` : ''}`);
  return { data, human: () => '' };
};

export const render: HandlerOf<TableRenderCommand> = async (context) => {
  const built = await build(context, true);
  return { data: maskSecrets(built.table), human: () => JSON.stringify(maskSecrets(built.table), null, 2) };
};

export const get: HandlerOf<TableGetCommand> = async (context) => shownFromStore(context.gateway, 'table', context.args[0]);
