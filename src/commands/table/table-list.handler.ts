/** `dpgw table list`: the store's tables with their schema, the manifest whose mark each carries, and whether it consumes. */
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { TableListCommand } from './table.flags.js';
import { shownMark } from '../../olap/manifest-mark.js';
import { shownStoreName, tableInventory, type ListedTable } from '../../olap/store-inventory.js';
import { terminalWidth } from '../../output/terminal-width.js';
import { textTable } from '../../output/text-table.js';

/** A column the gateway would not let dpgw read (a warning says why). */
const UNKNOWN_CELL = '—';

export const list: HandlerOf<TableListCommand> = async (context) => {
  const { items, unknown } = await tableInventory(await context.gateway(), { consumption: true });
  for (const line of unknown) context.reporter.warn(line);
  if (items.length === 0) context.reporter.info('no tables in the analytics store');
  return {
    data: items,
    human: (style) => (items.length === 0 ? [] : textTable(['TABLE', 'SCHEMA', 'OWNER', 'CONSUMING'], items.map(row), { width: terminalWidth(context.io.stdout), style })),
  };
};

function row(table: ListedTable): string[] {
  const { read } = table;
  // The owner as every message shows a mark (shownMark): a name taken from a file or folder says so, and a mark that is
  // no manifest name is quoted, so no table passes for a named manifest's by a mark that only looks like its name.
  const owner = table.owner ? shownMark(table.owner) : read ? 'none' : UNKNOWN_CELL;
  return [shownStoreName('table', table.name), table.schema !== null ? shownStoreName('schema', table.schema) : read ? 'none' : UNKNOWN_CELL, owner, consumingCell(table)];
}

function consumingCell({ consuming, partitions }: ListedTable): string {
  if (consuming === null || partitions === null) return UNKNOWN_CELL;
  if (consuming) return 'yes';
  return partitions.listed === 0 ? 'no (no segment)' : `no (${partitions.consuming} of ${partitions.listed} partitions)`;
}
