/** `dpgw schema list`: the store's schemas, the tables that use each, and the manifests whose marks those tables carry. */
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { SchemaListCommand } from './schema.flags.js';
import { shownMark } from '../../olap/manifest-mark.js';
import { schemaInventory, shownStoreName, type ListedSchema } from '../../olap/store-inventory.js';
import { terminalWidth } from '../../output/terminal-width.js';
import { textTable } from '../../output/text-table.js';

/** A column the gateway would not let dpgw read (a warning says why), as `table list` shows it. */
const UNKNOWN_CELL = '—';

export const list: HandlerOf<SchemaListCommand> = async (context) => {
  const { items, unknown } = await schemaInventory(await context.gateway());
  for (const line of unknown) context.reporter.warn(line);
  if (items.length === 0) context.reporter.info('no schemas in the analytics store');
  return {
    data: items,
    human: (style) => (items.length === 0 ? [] : textTable(['SCHEMA', 'TABLES', 'OWNERS'], items.map(row), { width: terminalWidth(context.io.stdout), style })),
  };
};

function row(schema: ListedSchema): string[] {
  const listed = (names: string[] | undefined) => (names === undefined ? UNKNOWN_CELL : names.join(', ') || 'none');
  return [shownStoreName('schema', schema.name), listed(schema.tables?.map((table) => shownStoreName('table', table))), listed(schema.owners?.map(shownMark))];
}
