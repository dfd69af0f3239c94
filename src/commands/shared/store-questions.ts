/**
 * Questions about what the analytics store holds (issue #36): a table chosen from the
 * store's listing when the gateway passes it on, else typed; a schema's name typed (the
 * gateway offers no listing of schemas). Either is checked as the argument would be.
 */
import type { CommandContext } from '../../command-kit/command-context.js';
import type { GatewayClient } from '../../gateway/gateway-client.js';
import { nameProblem } from '../../names/platform-names.js';
import { choosePrompt, textPrompt } from './prompts.js';
import { Questions } from './questions.js';

type Asking = Pick<CommandContext, 'io'>;
type Arguments = Pick<CommandContext, 'io' | 'name' | 'argv' | 'canPrompt' | 'reporter' | 'gateway'> & { args: readonly unknown[] };

/** A table of the store: chosen from its listing (searchable), typed when the gateway does not list tables or the store has none. */
export async function askTableName(context: Asking, gateway: GatewayClient): Promise<string> {
  const listing = await gateway.listTables();
  const names = listing.kind === 'found' ? [...new Set(listing.body)].sort() : [];
  if (names.length === 0) {
    const why = listing.kind === 'found' ? 'the store lists no tables' : 'this gateway does not list the tables';
    return textPrompt(context, `Table name (${why}; type it):`, { check: (typed) => nameProblem('table', typed) });
  }
  return choosePrompt(
    context,
    'Table:',
    names.map((name) => ({ value: name, name, ...(nameProblem('table', name) !== undefined ? { disabled: 'a name dpgw cannot send' } : {}) })),
    { searchable: true },
  );
}

/** A schema's name, typed: the gateway passes no listing of the store's schemas on. */
export async function askSchemaName(context: Asking): Promise<string> {
  return textPrompt(context, 'Schema name:', { check: (typed) => nameProblem('schema', typed) });
}

/** `<name>` of table get|delete|status: as given, else chosen from the store's tables at a terminal (without one: exit 2, nothing sent). */
export async function tableNameArgument(context: Arguments & { args: readonly [string | undefined, ...unknown[]] }): Promise<string> {
  const questions = new Questions(context);
  const name = await questions.operand('<name>', context.args[0], async () => askTableName(context, await context.gateway()));
  questions.done();
  return name;
}

/** `<name>` of schema get|delete: as given, else typed at a terminal. */
export async function schemaNameArgument(context: Arguments & { args: readonly [string | undefined, ...unknown[]] }): Promise<string> {
  const questions = new Questions(context);
  const name = await questions.operand('<name>', context.args[0], () => askSchemaName(context));
  questions.done();
  return name;
}
