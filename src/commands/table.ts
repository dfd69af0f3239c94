/** `dpgw table create` and `dpgw table render`: step 5 of the contract. */
import type { CommandContext, HandlerModule, HandlerOf } from '../cli/command-context.js';
import type { OptionsOf } from '../cli/program.js';
import { topicOfDataSet } from '../catalog/resolve-data-set.js';
import { paths } from '../contract/paths.js';
import { createTableOnce } from '../catalog/table-and-storage-steps.js';
import { buildTable, type BuiltTable } from '../olap/build-table.js';
import { maskSecrets } from '../secrets/redaction.js';
import { requireWord } from '../settings/setting-values.js';
import { renderDryRun } from './dry-run.js';
import { hiddenPrompt } from './prompts.js';

/** create and render: the same options (create adds --dry-run). */
async function build(context: CommandContext<OptionsOf<'table render'>>, maskStreamPassword: boolean): Promise<BuiltTable & { dataSet: string; topic: string }> {
  const { options } = context;
  const settings = await context.settings();
  const dataSetName = options.dataset;
  const topic = options.topic ?? (await topicOfDataSet(await context.gateway(), dataSetName, options.enablement));
  const built = await buildTable({
    settings,
    env: context.io.env,
    topic,
    schema: options.schema,
    tableName: options.name,
    templateFile: options.template,
    timeColumn: options.timeColumn,
    maskStreamPassword,
    prompt: context.canPrompt ? (message) => hiddenPrompt(context, message) : undefined,
    warn: (message) => context.reporter.warn(message),
  });
  return { ...built, dataSet: dataSetName, topic };
}

const create: HandlerOf<'table create'> = async (context) => {
  const built = await build(context, false);
  if (context.options.dryRun === true) {
    return renderDryRun([{ method: 'POST', path: paths.olapTables(requireWord(await context.settings(), 'olapSegment')), body: built.table }], { topic: built.topic });
  }
  const { answer } = await createTableOnce(await context.gateway(), built.table, 'failure', 'use it as it is, or choose another name with --name');
  context.reporter.success(`table ${built.table.tableName} created, consuming topic ${built.topic} (${answer.status})`);
  context.reporter.next(`dpgw storage touch --dataset ${built.dataSet}${context.options.enablement ? ` --enablement ${context.options.enablement}` : ''}`);
  return { data: { tableName: built.table.tableName, schemaName: built.schemaName, topic: built.topic, status: answer.status, response: answer.body ?? null }, human: () => '' };
};

const render: HandlerOf<'table render'> = async (context) => {
  const built = await build(context, true);
  return { data: maskSecrets(built.table), human: () => JSON.stringify(maskSecrets(built.table), null, 2) };
};

export const handlers: HandlerModule['handlers'] = { 'table create': create, 'table render': render };
