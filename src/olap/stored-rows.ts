/**
 * How many rows a table holds, for what a replacement loses: the broker's count per segment
 * through the gateway's query passthrough (ASSUMED, the read `dpgw table status` sends,
 * olap/table-status.ts), summed. Pinot 0.11's controller counts only completed segments
 * (its /tables/{name}/metadata says 0 for a table that is still in its first consuming
 * segments), so the broker is asked. Unknown — never 0 — when the store does not answer.
 */
import type { GatewayClient } from '../gateway/gateway-client.js';
import { serverText } from '../text/terminal-text.js';
import { segmentRowsQuery, segmentRowsShape } from './table-status.js';

export type StoredRows = { known: true; rows: number } | { known: false; why: string };

export async function storedRows(client: GatewayClient, tableName: string): Promise<StoredRows> {
  try {
    const read = await client.tableStatusRead(segmentRowsQuery(tableName), tableName);
    if (read.kind === 'not-exposed') return { known: false, why: `the gateway does not pass queries on (${read.why})` };
    if (read.kind !== 'found') return { known: false, why: read.message };
    const answer = segmentRowsShape.safeParse(read.body);
    if (!answer.success) return { known: false, why: "the store's broker answered in an unknown shape" };
    const exception = answer.data.exceptions?.[0];
    if (exception) return { known: false, why: `the store's broker answered: ${serverText((exception.message ?? 'an exception').slice(0, 200))}` };
    return { known: true, rows: (answer.data.resultTable?.rows ?? []).reduce((sum, [, count]) => sum + count, 0) };
  } catch (error) {
    return { known: false, why: `the count failed: ${serverText((error as Error).message.slice(0, 200))}` };
  }
}

/** "rows stored: 1,234" or "rows stored: unknown (why)". */
export function storedRowsText(stored: StoredRows): string {
  return stored.known ? `rows stored: ${stored.rows.toLocaleString('en-US')}` : `rows stored: unknown (${stored.why})`;
}
