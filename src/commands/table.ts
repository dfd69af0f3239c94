/** `dpgw table create` and `dpgw table render`: step 5 of the contract. */
import type { CommandContext, Handler, HandlerModule } from '../cli/command-context.js';
import { topicOfDataSet } from '../catalog/resolve-data-set.js';
import { paths } from '../contract/paths.js';
import { createTableOnce } from '../catalog/table-and-storage-steps.js';
import { buildTable, type BuiltTable } from '../olap/build-table.js';
import { maskSecrets } from '../secrets/redaction.js';
import { requireWord } from '../settings/setting-values.js';
import { renderDryRun } from './dry-run.js';
import { hiddenPrompt } from './prompts.js';

async function build(context: CommandContext, maskStreamPassword: boolean): Promise<BuiltTable & { dataSet: string; topic: string }> {
  const { options } = context;
  const settings = await context.settings();
  const dataSetName = String(options.dataset);
  const topic = typeof options.topic === 'string' ? options.topic : await topicOfDataSet(await context.gateway(), dataSetName, typeof options.enablement === 'string' ? options.enablement : undefined);
  const built = await buildTable({
    settings,
    env: context.io.env,
    topic,
    schema: String(options.schema),
    tableName: typeof options.name === 'string' ? options.name : undefined,
    templateFile: typeof options.template === 'string' ? options.template : undefined,
    timeColumn: typeof options.timeColumn === 'string' ? options.timeColumn : undefined,
    maskStreamPassword,
    prompt: context.canPrompt ? (message) => hiddenPrompt(context, message) : undefined,
    warn: (message) => context.reporter.warn(message),
  });
  return { ...built, dataSet: dataSetName, topic };
}

const create: Handler = async (context) => {
  const built = await build(context, false);
  if (context.options.dryRun === true) {
    return renderDryRun([{ method: 'POST', path: paths.olapTables(requireWord(await context.settings(), 'olapSegment')), body: built.table }], { topic: built.topic });
  }
  const { answer } = await createTableOnce(await context.gateway(), built.table, 'failure', 'use it as it is, or choose another name with --name');
  context.reporter.success(`table ${built.table.tableName} created, consuming topic ${built.topic} (${answer.status})`);
  context.reporter.next(`dpgw storage touch --dataset ${built.dataSet}`);
  return { data: { tableName: built.table.tableName, schemaName: built.schemaName, topic: built.topic, status: answer.status, response: answer.body ?? null }, human: () => '' };
};

const render: Handler = async (context) => {
  const built = await build(context, true);
  return { data: maskSecrets(built.table), human: () => JSON.stringify(maskSecrets(built.table), null, 2) };
};

export const handlers: HandlerModule['handlers'] = { 'table create': create, 'table render': render };
