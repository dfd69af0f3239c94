/**
 * Whether the analytics store lacks a table, asked before a command waits on it or blames the
 * user: `verify --wait` would wait its whole time for a table that was never created, and the
 * dashboard's refusal would send the user to another profile. Asked only where it can be told:
 * with a gateway set, through its read of the table; a gateway not set, a read it does not pass
 * on, a sign-in it needs or any other failure leaves the question open (undefined), and the
 * command goes on as before.
 */
import type { CommandContext } from '../../command-kit/command-context.js';
import { DpgwError } from '../../errors/dpgw-error.js';

/** The not-found error (exit 9) when the store holds no table `table`; undefined when it holds it or that cannot be told. */
export async function storeTableMissing(context: Pick<CommandContext, 'settings' | 'gateway' | 'reporter'>, table: string, dataSet: string): Promise<DpgwError | undefined> {
  try {
    if ((await context.settings()).values.gateway.value === undefined) return undefined;
    const read = await (await context.gateway()).getTable(table);
    if (read.kind !== 'not-found') return undefined;
    return new DpgwError('TABLE_NOT_FOUND', `table ${table} does not exist in the analytics store`, {
      where: read.url,
      hint: `create it first: dpgw provision <manifest> (a manifest that lists ${dataSet}), or dpgw table create --dataset ${dataSet} --schema <file>`,
    });
  } catch (error) {
    if (!(error instanceof DpgwError)) throw error;
    if (context.reporter.options.verbose) context.reporter.trace(`whether the store holds table ${table} is not known: ${error.toLine()}`);
    return undefined;
  }
}
