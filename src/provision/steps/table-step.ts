/**
 * Step 5 of the contract by what the store holds: a new table is created; one that exists
 * is compared with the manifest and updated where it differs, or — for `dpgw table create`
 * and `provision --fail-on-exists` — is an error. Without reads it is "not compared", never
 * "unchanged". `dpgw table create` and both provision modes use it.
 */
import { createTableOnce } from '../../catalog/table-and-storage-steps.js';
import { paths } from '../../contract/paths.js';
import type { RealtimeTableDefinition } from '../../contract/types.js';
import type { Accepted, GatewayClient } from '../../gateway/gateway-client.js';
import { maskSecrets } from '../../secrets/redaction.js';
import { compareTable, updateTable } from '../live-state.js';
import type { StepRecord } from './step-record.js';

export async function planTable(client: GatewayClient, table: RealtimeTableDefinition, inputs: { olapSegment: string; secretsKnown: boolean }): Promise<StepRecord> {
  const live = await compareTable(client, table, inputs.secretsKnown);
  const name = table.tableName;
  const difference = live.lines.length ? { difference: live.lines } : {};
  switch (live.change) {
    case 'create':
      return { step: 'table', action: 'create', reason: `POST table ${name} (new)`, request: { method: 'POST', path: paths.olapTables(inputs.olapSegment), body: maskSecrets(table) } };
    case 'none':
      return { step: 'table', action: 'none', reason: `table ${name}: no changes` };
    case 'update':
      return { step: 'table', action: 'update', reason: `PUT table ${name}: update what differs`, ...difference, request: { method: 'PUT', path: paths.olapTable(name, inputs.olapSegment), body: maskSecrets(table) } };
    case 'incompatible':
    case 'not-compared':
      return { step: 'table', action: 'not-compared', reason: `POST table ${name}; if it exists, not compared: ${live.why}` };
  }
}

export interface TableApplyInputs {
  /** `fail`: a table that exists is an error (with this hint); `converge`: it is compared and updated. */
  existing: { fail: string } | 'converge';
}

export async function applyTable(client: GatewayClient, table: RealtimeTableDefinition, inputs: TableApplyInputs): Promise<{ record: StepRecord; answer?: Accepted }> {
  const name = table.tableName;
  if (inputs.existing !== 'converge') {
    const { answer } = await createTableOnce(client, table, 'failure', inputs.existing.fail);
    return { answer, record: { step: 'table', action: 'create', status: 'changed', reason: `table ${name} created` } };
  }
  const outcome = await createTableOnce(client, table, 'unchanged');
  if (outcome.created) return { answer: outcome.answer, record: { step: 'table', action: 'create', status: 'changed', reason: `table ${name} created` } };
  // It exists (409): "unchanged" only when read back and equal; a difference is updated; without reads, "not compared".
  const live = await compareTable(client, table, true);
  if (live.change === 'none') return { record: { step: 'table', action: 'none', status: 'unchanged', reason: `table ${name} exists and matches the manifest` } };
  if (live.change === 'update') {
    const answer = await updateTable(client, table, live.lines);
    return { answer, record: { step: 'table', action: 'update', status: 'changed', reason: `table ${name} updated: ${live.lines.join('; ')}`, difference: live.lines } };
  }
  const why = live.change === 'create' ? 'the store answered 409 for the table but does not return it' : live.why;
  return { record: { step: 'table', action: 'not-compared', status: 'not-compared', reason: `table ${name} exists, not compared: ${why}` } };
}
