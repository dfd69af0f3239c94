/**
 * Whether the store has paused a table's consumption: the controller's GET
 * /tables/{t}/pauseStatus through the gateway (PinotRealtimeTableResource#getPauseStatus, Pinot
 * 0.11+: `{"pauseFlag": bool, "consumingSegments": [...]}`; 1.3+ adds `reasonCode` and
 * `comment`, and the store may pause a table itself, e.g. STORAGE_QUOTA_EXCEEDED). No other
 * read says it: consumingSegmentsInfo and the ideal-state view carry no pause field.
 */
import type { GatewayClient } from '../gateway/gateway-client.js';
import { GatewayError } from '../gateway/gateway-error.js';
import { serverText } from '../text/terminal-text.js';
import type { PauseState } from './no-rows-diagnosis.js';

export async function readPauseState(client: GatewayClient, table: string): Promise<PauseState> {
  let read;
  try {
    read = await client.pauseStatus(table);
  } catch (error) {
    // A refusal or a store's failure leaves the flag unknown, as the status's other reads; a 401 and an unreachable gateway end the command.
    if (error instanceof GatewayError && error.status !== 401) return { unknown: `GET ${error.url} answered ${error.status}${error.bodyMessage ? `: ${serverText(error.bodyMessage)}` : ''}` };
    throw error;
  }
  if (read.kind === 'not-exposed') return { unknown: `GET ${read.url} answered ${serverText(read.why)}` };
  if (read.kind === 'not-found') return { unknown: `GET ${read.url}: ${serverText(read.message)}` };
  const { body } = read;
  const segments = Array.isArray(body.consumingSegments) ? body.consumingSegments.length : 0;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return { paused: body.pauseFlag === true, consumingSegments: segments, ...(text(body.reasonCode) ? { reasonCode: text(body.reasonCode) } : {}), ...(text(body.comment) ? { comment: text(body.comment) } : {}) };
}
