/** `dpgw schema push` and `dpgw schema validate`: step 4 of the contract. */
import type { Handler, HandlerModule } from '../cli/command-context.js';
import { paths } from '../contract/paths.js';
import { ExitCode } from '../errors/exit-code.js';
import { loadSchema, schemaIssues } from '../olap/load-schema.js';
import { requireWord } from '../settings/setting-values.js';
import { renderDryRun } from './dry-run.js';

const push: Handler = async (context) => {
  const [file] = context.args as [string];
  const schema = await loadSchema(file);
  if (context.options.dryRun === true) {
    const settings = await context.settings();
    return renderDryRun([{ method: 'POST', path: paths.olapSchemas(requireWord(settings, 'olapSegment')), body: schema }]);
  }
  const gateway = await context.gateway();
  const answer = await gateway.createSchema(schema);
  context.reporter.success(`schema ${schema.schemaName} stored (${answer.status}) — a schema sent again replaces the stored one`);
  context.reporter.next(`dpgw table create --dataset <data set> --schema ${file}`);
  return { data: { schemaName: schema.schemaName, status: answer.status, response: answer.body ?? null }, human: () => '' };
};

const validate: Handler = async (context) => {
  const [file] = context.args as [string];
  const { schema, issues } = await schemaIssues(file);
  return {
    data: { file, valid: issues.length === 0, schemaName: schema?.schemaName ?? null, issues },
    exitCode: issues.length === 0 ? ExitCode.Ok : ExitCode.Usage,
    human: (style) =>
      issues.length === 0
        ? `${style.green('✓')} ${file}: schema ${schema!.schemaName} is valid`
        : issues.map((i) => `${i.where}: ${i.field}: ${i.message}`).join('\n'),
  };
};

export const handlers: HandlerModule['handlers'] = { 'schema push': push, 'schema validate': validate };
