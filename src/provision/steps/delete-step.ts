/**
 * Deleting a table or a schema of the analytics store (assumed endpoints, docs/gateway-api.md):
 * planned with reads — does it exist, does a table still use the schema — applied with a
 * DELETE, and then, as the store drops a table in the background, read until it is gone, so
 * that a table of the same name can be created right after. `dpgw table delete`, `dpgw schema
 * delete` and `provision --prune` use it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { paths } from '../../contract/paths.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import type { GatewayClient, StoreRead } from '../../gateway/gateway-client.js';
import { nameProblem } from '../../names/platform-names.js';
import { manifestMarkOf, schemaNameOf } from '../../olap/manifest-mark.js';
import type { PlannedRequest, StepRecord } from './step-record.js';

export interface DeletionTarget {
  kind: 'table' | 'schema';
  name: string;
}

/** The request that deletes it: a table by its REALTIME type only (an OFFLINE table of that name is not dpgw's). */
export function deletionRequest(target: DeletionTarget, olapSegment: string): PlannedRequest {
  return { method: 'DELETE', path: target.kind === 'table' ? paths.olapRealtimeTableDeletion(target.name, olapSegment) : paths.olapSchema(target.name, olapSegment) };
}

/** A planned deletion, as the plan shows it. */
export function plannedDeletion(target: DeletionTarget, olapSegment: string, why: string): StepRecord {
  return { step: target.kind, action: 'delete', reason: `DELETE ${target.kind} ${target.name}: ${why}`, request: deletionRequest(target, olapSegment) };
}

/**
 * The plan of `table delete` and `schema delete`: the thing must exist (exit 9 when the store
 * has none) and a schema must be used by no table (refused, naming it). A gateway without
 * reads cannot tell: the DELETE then answers for itself.
 */
export async function planDeletion(client: GatewayClient, target: DeletionTarget, olapSegment: string): Promise<{ record: StepRecord; seen: boolean }> {
  const live = await read(client, target);
  if (live.kind === 'not-found') throw notFoundError(target);
  if (live.kind === 'not-exposed') return { seen: false, record: plannedDeletion(target, olapSegment, `not read first: ${live.why}`) };
  if (target.kind === 'schema') {
    const users = await tablesUsingSchema(client, target.name);
    if (users.tables.length) throw schemaInUseError(target.name, users.tables);
    return { seen: true, record: plannedDeletion(target, olapSegment, `no table uses it (${users.checked})`) };
  }
  // Deleting by name is the person's own act, whoever's table it is; the record says whose it was.
  return { seen: true, record: { ...plannedDeletion(target, olapSegment, 'the store holds it'), owner: manifestMarkOf(live.body)?.name ?? null } };
}

/** How the tables that use a schema were looked for: the store's list of tables, or only the table of the schema's name. */
export type UsageCheck = 'every table of the store checked' | 'the table of its name checked; the gateway does not list tables';

/**
 * The tables whose segmentsConfig names the schema: the table of the schema's own name first
 * (how dpgw names tables), then every table the store lists. Without the listing only the
 * first is known; the store's own refusal (409) still stands behind it.
 */
export async function tablesUsingSchema(client: GatewayClient, schemaName: string): Promise<{ tables: string[]; checked: UsageCheck }> {
  const uses = (live: StoreRead<Record<string, unknown>>) => live.kind === 'found' && schemaNameOf(live.body) === schemaName;
  const sameName = await client.getTable(schemaName);
  // The store refuses to delete a schema while a table of its name exists, whatever schema that table names.
  const tables = sameName.kind === 'found' ? [schemaName] : [];
  const listing = await client.listTables();
  if (listing.kind !== 'found') return { tables, checked: 'the table of its name checked; the gateway does not list tables' };
  // A listed name dpgw's rule refuses is no table dpgw could name: it never goes into a path or a message.
  const others = [...new Set(listing.body.map(bareTableName))].filter((name) => name !== schemaName && nameProblem('table', name) === undefined);
  // A few at a time: a store of many tables is not asked all at once.
  for (let start = 0; start < others.length; start += 8) {
    const batch = others.slice(start, start + 8);
    const reads = await Promise.all(batch.map((name) => client.getTable(name)));
    batch.forEach((name, index) => uses(reads[index]!) && tables.push(name));
  }
  return { tables, checked: 'every table of the store checked' };
}

/** A table's name as the store lists it, without the type suffix it may carry. */
export function bareTableName(name: string): string {
  return name.replace(/_(REALTIME|OFFLINE)$/, '');
}

export interface DeletionApplyInputs {
  /** How long to wait for the store to drop it (the run's --timeout). */
  timeoutMs: number;
  /**
   * Reads found it just before. A DELETE is retried after a lost answer, so its 404 may
   * answer the retry of a DELETE that did its work: then the reads after it decide, not "no such".
   */
  seenBefore?: boolean;
  /** Told while waiting, for a progress line. */
  waiting?: (text: string) => void;
}

/**
 * DELETE, then read until the store no longer holds it. Not found, not exposed and a schema
 * in use are errors of their own; a store that still holds it when the time is up fails the
 * step (DELETE_NOT_FINISHED), so nobody creates the same name over a table being dropped.
 */
export async function applyDeletion(client: GatewayClient, target: DeletionTarget, inputs: DeletionApplyInputs): Promise<StepRecord> {
  const { kind, name } = target;
  const answer = kind === 'table' ? await client.deleteTable(name) : await client.deleteSchema(name);
  // Seen just before, a 404 is the answer to a retry of a DELETE whose answer was lost: the reads below say whether it is gone.
  if (answer.kind === 'not-found' && !inputs.seenBefore) throw notFoundError(target);
  if (answer.kind === 'in-use') throw schemaInUseError(name, tableOfRefusal(answer.message), answer.message);
  if (answer.kind === 'not-exposed') {
    throw new DpgwError('STORE_DELETES_NOT_EXPOSED', `this gateway does not expose deletes of the analytics store: DELETE ${answer.url} answered ${answer.why}`, {
      hint: `nothing was deleted; ask the platform team to pass DELETE /api/internal/<olap>/${kind}s/{name} on to the store, or check --olap-segment`,
    });
  }
  const started = Date.now();
  let pause = 250;
  for (;;) {
    const live = await read(client, target);
    const seconds = `${((Date.now() - started) / 1000).toFixed(1)} s`;
    if (live.kind === 'not-found') return { step: kind, action: 'delete', status: 'changed', reason: `${kind} ${name} deleted; the store no longer holds it (after ${seconds})` };
    if (live.kind === 'not-exposed') return { step: kind, action: 'delete', status: 'changed', reason: `${kind} ${name} deleted; not read back: ${live.why}` };
    if (Date.now() - started + pause > inputs.timeoutMs) {
      throw new DpgwError('DELETE_NOT_FINISHED', `${kind} ${name} was deleted, but the analytics store still holds it after ${seconds}: it drops it in the background`, {
        hint: `see whether it is gone with \`dpgw ${kind} get ${name}\` before creating a ${kind} of that name; wait longer with --timeout <seconds>`,
      });
    }
    inputs.waiting?.(`waiting for the analytics store to drop ${kind} ${name} (${seconds})`);
    await sleep(pause);
    pause = Math.min(pause * 2, 1000);
  }
}

async function read(client: GatewayClient, target: DeletionTarget): Promise<StoreRead<Record<string, unknown>>> {
  return target.kind === 'table' ? client.getTable(target.name) : client.getSchema(target.name);
}

function notFoundError(target: DeletionTarget): DpgwError {
  return new DpgwError(target.kind === 'schema' ? 'SCHEMA_NOT_FOUND' : 'TABLE_NOT_FOUND', `the analytics store has no ${target.kind} "${target.name}"; nothing was deleted`, {
    hint: `check the name (\`dpgw ${target.kind} get ${target.name}\`)`,
  });
}

/** The table the store's refusal names: Pinot's "Cannot delete schema s, as it is associated with table t_REALTIME". Only a name by dpgw's rule is taken from it. */
function tableOfRefusal(message: string): string[] {
  const named = /associated with table:? ([A-Za-z0-9_-]+)/.exec(message)?.[1];
  return named === undefined ? [] : [bareTableName(named)];
}

/** A schema a table still uses: refused before anything is sent when the reads show it, and the store's own refusal (409) said the same way. */
export function schemaInUseError(schemaName: string, tables: string[], storeSaid?: string): DpgwError {
  const users = tables.length === 1 ? `table ${tables[0]} uses it` : tables.length ? `tables ${tables.join(', ')} use it` : `a table uses it (the store refused: ${storeSaid ?? '409'})`;
  return new DpgwError('SCHEMA_IN_USE', `schema ${schemaName} cannot be deleted: ${users}; nothing was deleted`, {
    hint:
      tables.length === 1
        ? `delete the table first (dpgw table delete ${tables[0]}), or keep the schema`
        : tables.length
          ? `delete those tables first (${tables.map((t) => `dpgw table delete ${t}`).join('; ')}), or keep the schema`
          : 'delete the tables that use it first, or keep the schema',
    details: { schema: schemaName, tables },
  });
}
