/**
 * Step 5 of the contract by what the store holds: a new table is created; one that exists
 * is compared with the manifest and updated where it differs, or — for `dpgw table create`
 * and `provision --fail-on-exists` — is an error. Without reads it is "not compared", never
 * "unchanged". `dpgw table create` and both provision modes use it.
 *
 * A manifest's table (one that carries its mark) changes only a table that is its own or
 * nobody's: one another manifest marked is refused, unless the run adopts it (`--adopt`). The
 * provision run asks this before it sends anything of the data set (ownershipRefusal), and
 * the step asks again on the read it compares with, so a mark set in between is not missed.
 */
import { createTableOnce } from '../../catalog/table-and-storage-steps.js';
import { paths } from '../../contract/paths.js';
import type { RealtimeTableDefinition } from '../../contract/types.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import type { Accepted, GatewayClient, StoreRead } from '../../gateway/gateway-client.js';
import { ADOPT_FLAG, MANIFEST_MARK_KEY, manifestMarkOf, shownMark, tableOwnership, type ManifestMark } from '../../olap/manifest-mark.js';
import { maskSecrets } from '../../secrets/redaction.js';
import { compareTable, updateTable } from '../live-state.js';
import type { HalfDoneWork } from '../half-done-work.js';
import { forcedFieldsText, replacementFields } from '../../olap/replacement-fields.js';
import { ALLOW_REPLACE_FLAG, applyReplacement, plannedReplacement, refusedReplaceRecord, replaceNeededError, replacementOf, unprovenReplacement } from './replace-table.js';
import type { StepRecord } from './step-record.js';


/**
 * The refusal of a live table another manifest marked, for the manifest `mark`;
 * undefined when it may change it (its own, unmarked, or adopted). `unsent` says what the
 * refusal left unsent. The owner is in `details.owner`, for the step's record.
 */
export function ownershipRefusal(tableName: string, live: Record<string, unknown>, mark: ManifestMark, inputs: { adopt: boolean; unsent: string; where?: string }): DpgwError | undefined {
  const ownership = tableOwnership(live, mark);
  if (ownership.kind !== 'other' || inputs.adopt) return undefined;
  return new DpgwError('TABLE_OWNED_ELSEWHERE', `${ownedElsewhere(tableName, ownership.owner, mark)}; ${inputs.unsent}`, {
    where: inputs.where,
    hint: `pass ${ADOPT_FLAG} to update it and mark it ${MANIFEST_MARK_KEY}: ${mark.name} (manifest ${shownMark(ownership.owner)} then no longer owns or prunes it), or give this data set another table name (table.name)`,
    details: { owner: ownership.owner.name },
  });
}

function ownedElsewhere(tableName: string, owner: ManifestMark, mark: ManifestMark): string {
  // "manifest track …, not to this manifest, track" reads as a contradiction unless it says why the same words are two owners.
  const sameWords = owner.name === mark.name ? ' (the same words, but one manifest gave its name with name: and the other took it from its file or folder: two owners)' : '';
  return `table ${tableName} belongs to manifest ${shownMark(owner)}, not to this manifest, ${shownMark(mark)}, by its mark (metadata.customConfigs["${MANIFEST_MARK_KEY}"])${sameWords}`;
}

/** The table step of a data set refused for its owner (ownershipRefusal): in a plan, or failed in a run. */
export function refusedTableRecord(refusal: DpgwError, run: boolean): StepRecord {
  const owner = typeof refusal.details?.owner === 'string' ? refusal.details.owner : null;
  return run
    ? { step: 'table', action: 'refused', status: 'failed', reason: refusal.toLine(), owner }
    : { step: 'table', action: 'refused', reason: `refused: ${refusal.message}; ${ADOPT_FLAG} takes it over`, owner };
}

/** Who a live table belongs to when this step takes it over (another manifest's with --adopt, or nobody's); undefined when it is the manifest's own, or the step sets no mark. */
function adoptedFrom(table: RealtimeTableDefinition, read: StoreRead<Record<string, unknown>>): { owner: string | null; words: string } | undefined {
  const mark = manifestMarkOf(table as unknown as Record<string, unknown>);
  if (mark === undefined || read.kind !== 'found') return undefined;
  const ownership = tableOwnership(read.body, mark);
  if (ownership.kind === 'own') return undefined;
  return ownership.kind === 'other'
    ? { owner: ownership.owner.name, words: `from manifest ${shownMark(ownership.owner)} (${ADOPT_FLAG})` }
    : { owner: null, words: 'that no manifest marked (made by hand, or by dpgw table create)' };
}

export interface TablePlanInputs {
  olapSegment: string;
  secretsKnown: boolean;
  /** `--adopt`: a table another manifest marked is updated and marked as this one's. */
  adopt?: boolean;
  /** The store's table, read before the run already. */
  read?: StoreRead<Record<string, unknown>>;
  /** `--allow-replace`: a table that differs in a field the store cannot change in place may be replaced (replace-table.ts). */
  allowReplace?: boolean;
}

export async function planTable(client: GatewayClient, table: RealtimeTableDefinition, inputs: TablePlanInputs): Promise<StepRecord> {
  const name = table.tableName;
  const read = inputs.read ?? (await client.getTable(name));
  const mark = manifestMarkOf(table as unknown as Record<string, unknown>);
  const refusal = mark !== undefined && read.kind === 'found' ? ownershipRefusal(name, read.body, mark, { adopt: inputs.adopt === true, unsent: 'nothing of this data set was sent' }) : undefined;
  if (refusal) return refusedTableRecord(refusal, false);
  const live = await compareTable(client, table, inputs.secretsKnown, read);
  const difference = live.lines.length ? { difference: live.lines } : {};
  const adopted = adoptedFrom(table, read);
  switch (live.change) {
    case 'create':
      return { step: 'table', action: 'create', reason: `POST table ${name} (new)`, request: { method: 'POST', path: paths.olapTables(inputs.olapSegment), body: maskSecrets(table) } };
    case 'none':
      return { step: 'table', action: 'none', reason: `table ${name}: no changes` };
    case 'update': {
      // A field the store cannot change in place: deleted and created anew, not updated.
      const replacement = read.kind === 'found' ? await replacementOf(client, table, read.body, inputs.secretsKnown) : undefined;
      if (replacement) {
        const unproven = read.kind === 'found' ? unprovenReplacement(replacement, table, read.body, { adopt: inputs.adopt === true, unsent: 'nothing of this data set would be sent' }) : undefined;
        // Another manifest's table is refused whatever the flags; one nobody marked shows what the run needs.
        if (unproven?.details?.owner !== undefined) return refusedReplaceRecord(unproven, false);
        const proven = unproven === undefined;
        return { ...plannedReplacement(table, replacement, inputs.olapSegment, { allowed: inputs.allowReplace === true, proven }), ...(adopted ? { owner: adopted.owner } : {}) };
      }
      return {
        step: 'table',
        action: 'update',
        reason: adopted ? `PUT table ${name}: adopt it ${adopted.words}, and update what differs` : `PUT table ${name}: update what differs`,
        ...difference,
        ...(adopted ? { owner: adopted.owner } : {}),
        request: { method: 'PUT', path: paths.olapTable(name, inputs.olapSegment), body: maskSecrets(table) },
      };
    }
    case 'incompatible':
    case 'not-compared':
      return { step: 'table', action: 'not-compared', reason: `POST table ${name}; if it exists, not compared: ${live.why}` };
  }
}

export interface TableApplyInputs {
  /** `fail`: a table that exists is an error (with this hint); `converge`: it is compared and updated. */
  existing: { fail: string } | 'converge';
  /** `--adopt`: a table another manifest marked is updated and marked as this one's. */
  adopt?: boolean;
  /** A table that differs in a field the store cannot change in place: replaced when allowed (--allow-replace, or its name typed), else refused (REPLACE_NEEDED); `timeoutMs` bounds the wait for the store to drop it. */
  replace?: { allowed: boolean; timeoutMs: number; halfDone?: HalfDoneWork };
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
  const read = await client.getTable(name);
  // Read before the run too; a mark another manifest set since is refused here, before the PUT.
  const mark = manifestMarkOf(table as unknown as Record<string, unknown>);
  const refusal = mark !== undefined && read.kind === 'found' ? ownershipRefusal(name, read.body, mark, { adopt: inputs.adopt === true, unsent: 'the table was not changed' }) : undefined;
  if (refusal) throw refusal;
  const live = await compareTable(client, table, true, read);
  if (live.change === 'none') return { record: { step: 'table', action: 'none', status: 'unchanged', reason: `table ${name} exists and matches the manifest` } };
  if (live.change === 'update') {
    const adopted = adoptedFrom(table, read);
    const replacement = read.kind === 'found' ? await replacementOf(client, table, read.body) : undefined;
    if (replacement && read.kind === 'found') {
      // Found here only when the run's check before it could not tell (the topic not known before enabling): the table is left as it is.
      const unproven = unprovenReplacement(replacement, table, read.body, { adopt: inputs.adopt === true, unsent: 'the table was not changed' });
      if (unproven) throw unproven;
      if (inputs.replace?.allowed !== true) throw replaceNeededError(replacement, { unsent: 'the table was not changed' });
      const replaced = await applyReplacement(client, table, replacement, inputs.replace);
      return { answer: replaced.answer, record: { ...replaced.record, ...(adopted ? { owner: adopted.owner } : {}) } };
    }
    const answer = await updateTable(client, table, live.lines);
    const what = adopted ? `adopted ${adopted.words} and updated` : 'updated';
    return { answer, record: { step: 'table', action: 'update', status: 'changed', reason: `table ${name} ${what}: ${live.lines.join('; ')}`, difference: live.lines, ...(adopted ? { owner: adopted.owner } : {}) } };
  }
  const why = live.change === 'create' ? 'the store answered 409 for the table but does not return it' : live.why;
  return { record: { step: 'table', action: 'not-compared', status: 'not-compared', reason: `table ${name} exists, not compared: ${why}` } };
}

/**
 * The plan of `dpgw table create`, which creates and never converges: a table the store holds
 * is refused (the run would fail with TABLE_EXISTS, and change nothing); without reads, the POST
 * is sent and the store answers for itself.
 */
export async function planTableCreate(client: GatewayClient, table: RealtimeTableDefinition, olapSegment: string, existingHint: string): Promise<StepRecord> {
  const name = table.tableName;
  const read = await client.getTable(name);
  if (read.kind === 'found') return { step: 'table', action: 'refused', reason: `table ${name} exists: the run would fail (TABLE_EXISTS) and change nothing; ${existingHint}` };
  if (read.kind === 'not-exposed') return uncomparedTableCreate(table, olapSegment, read.why);
  return { step: 'table', action: 'create', reason: `POST table ${name} (new)`, request: { method: 'POST', path: paths.olapTables(olapSegment), body: maskSecrets(table) } };
}

/** `table create`'s plan where the store's table could not be read (not exposed, or the gateway out of reach): the POST, not compared. */
export function uncomparedTableCreate(table: RealtimeTableDefinition, olapSegment: string, why: string): StepRecord {
  return { step: 'table', action: 'not-compared', reason: `POST table ${table.tableName}; if it exists, not compared: ${why}`, request: { method: 'POST', path: paths.olapTables(olapSegment), body: maskSecrets(table) } };
}

/**
 * `dpgw table create` of a table the store holds, compared as provision compares it
 * (compareTable), before the stream and sample checks: a re-run with the same request is
 * settled with nothing sent (as `schema push` of the same schema), and one that differs is
 * refused with the difference and the way to apply it, as `table create` creates and never
 * changes a table. Undefined when the store holds no such table or cannot be read: the
 * walk goes on, and its POST answers for the store.
 */
export type ExistingTable = { settled: StepRecord; refused?: undefined } | { refused: DpgwError; settled?: undefined };

export async function existingTableBeforeCreate(client: GatewayClient, table: RealtimeTableDefinition, secretsKnown: boolean): Promise<ExistingTable | undefined> {
  const name = table.tableName;
  const read = await client.getTable(name);
  if (read.kind !== 'found') return undefined;
  const live = await compareTable(client, table, secretsKnown, read);
  const owner = manifestMarkOf(read.body);
  // The request makes a table no manifest marks (withoutManifestMark) and compares only the fields it sets: a table a
  // manifest marked matches it field for field yet is that manifest's, to change and to delete with its --prune. Said.
  // (A manifest without name: may not prune, so only a named one's --prune is said.)
  const whose = owner ? ` (it belongs to manifest ${shownMark(owner)}, whose runs change it${owner.named ? ' and whose --prune deletes it' : ''})` : '';
  if (live.change === 'none') return { settled: { step: 'table', action: 'none', status: 'unchanged', reason: `table ${name} matches the store${whose}; nothing was sent` } };
  const forced = replacementFields(live.tableChanges ?? []);
  // Who may change it: the manifest that marked it, else a manifest that lists its data set (provision updates a table nobody marked in place).
  const change = owner
    ? `it belongs to manifest ${shownMark(owner)}: change it there and run dpgw provision on that manifest`
    : forced.length > 0
      ? `${forcedFieldsText(forced)} cannot change in place (docs/replacement.md): dpgw provision ${ADOPT_FLAG} ${ALLOW_REPLACE_FLAG} with a manifest entry for its data set replaces it, losing its rows`
      : 'dpgw provision with a manifest entry for its data set updates it in place';
  return {
    refused: new DpgwError('TABLE_DIFFERS', `table ${name} exists and differs from this request: ${live.lines.join('; ')}; nothing was sent`, {
      hint: `dpgw table create makes a table and never changes one: ${change}; or keep it as it is and give this one another name with --name`,
      details: { difference: live.lines, ...(forced.length ? { replace: forced.map((f) => f.field) } : {}) },
    }),
  };
}

/** The table step of `table create` refused for a table that differs (existingTableBeforeCreate): in a plan, or failed in a run. */
export function differingTableRecord(refusal: DpgwError, run: boolean): StepRecord {
  const lines = Array.isArray(refusal.details?.difference) ? (refusal.details.difference as string[]) : undefined;
  return { step: 'table', action: 'refused', ...(run ? { status: 'failed' as const, reason: refusal.toLine() } : { reason: `refused: ${refusal.message}; ${refusal.hint}` }), ...(lines?.length ? { difference: lines } : {}) };
}
