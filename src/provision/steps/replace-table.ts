/**
 * The table step's replacement (issue #47 §2): a table whose difference from the manifest lies
 * in a field the store cannot change in place (olap/replacement-fields.ts) is deleted, waited
 * for until the store no longer holds it (the delete step's wait), and created anew; the
 * consumption proof follows as after any creation. Its rows are lost, so it is planned as
 * `replace` with the rows stored, and a run applies it only with --allow-replace (or, at a
 * terminal, once the table's name is typed): otherwise the step is refused, REPLACE_NEEDED,
 * found before anything of the data set is sent (provision/replacements-before-run.ts).
 */
import { createTableOnce } from '../../catalog/table-and-storage-steps.js';
import { paths } from '../../contract/paths.js';
import type { RealtimeTableDefinition } from '../../contract/types.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import type { Accepted, GatewayClient } from '../../gateway/gateway-client.js';
import { diffTable, tableDiffLines } from '../../olap/live-diff.js';
import { ADOPT_FLAG, manifestMarkOf, shownMark, tableOwnership } from '../../olap/manifest-mark.js';
import { forcedFieldsText, replacementFields, type ForcedReplacement } from '../../olap/replacement-fields.js';
import { storedRows, storedRowsText, type StoredRows } from '../../olap/stored-rows.js';
import { maskSecrets } from '../../secrets/redaction.js';
import type { HalfDoneWork } from '../half-done-work.js';
import { applyDeletion, deletionRequest } from './delete-step.js';
import type { StepRecord } from './step-record.js';

/** What a run needs to replace a table. */
export const ALLOW_REPLACE_FLAG = '--allow-replace';

export interface Replacement {
  tableName: string;
  /** The fields that force it, with the store's reasons. */
  forced: ForcedReplacement[];
  /** The rows the table holds, lost with it. */
  rows: StoredRows;
  /** Every difference from the manifest, as the plan shows it. */
  difference: string[];
}

/**
 * The replacement a table needs to match the manifest, from the store's table (its read):
 * undefined when what differs can be updated in place. Counts the rows only when one is needed.
 */
export async function replacementOf(client: GatewayClient, table: RealtimeTableDefinition, live: Record<string, unknown>, secretsKnown = true): Promise<Replacement | undefined> {
  const changes = diffTable(table, live, { secretsKnown });
  const forced = replacementFields(changes);
  if (forced.length === 0) return undefined;
  return { tableName: table.tableName, forced, rows: await storedRows(client, table.tableName), difference: tableDiffLines(changes) };
}

/** "the stream topic (…) cannot change in place; rows stored: 1,234, lost with the table". */
export function replacementText(replacement: Replacement): string {
  return `${forcedFieldsText(replacement.forced)} cannot change in place; ${storedRowsText(replacement.rows)}, lost with the table`;
}

/** A replacement the run may not make: refused, naming the fields, the rows and the way to allow it. */
export function replaceNeededError(replacement: Replacement, inputs: { unsent: string; where?: string }): DpgwError {
  const { tableName, forced, rows } = replacement;
  return new DpgwError('REPLACE_NEEDED', `table ${tableName} must be replaced (deleted and created anew): ${replacementText(replacement)}; ${inputs.unsent}`, {
    where: inputs.where,
    hint: `see the whole difference with --plan; pass ${ALLOW_REPLACE_FLAG} to replace it (at a terminal, provision asks for the table's name instead), undo the change in the manifest, or give this data set another table name (table.name); why each field forces it: docs/replacement.md`,
    details: { fields: forced.map((f) => f.field), rows: rows.known ? rows.rows : null },
  });
}

/**
 * A replacement deletes the table with its rows, so it is made only of a table this manifest's
 * mark proves its own: one no manifest marked (made by hand, or by `dpgw table create`) is
 * replaced only when the run takes it over with --adopt as well; one another manifest marked,
 * never — --adopt lets a run update such a table, not delete another manifest's rows with it
 * (taken over first in a run of its own, it is this manifest's). The refusal (with the owner
 * in `details.owner` for another manifest's table), or undefined when it may be replaced.
 */
export function unprovenReplacement(replacement: Replacement, table: RealtimeTableDefinition, live: Record<string, unknown>, inputs: { adopt: boolean; unsent: string; where?: string }): DpgwError | undefined {
  const mark = manifestMarkOf(table as unknown as Record<string, unknown>);
  if (mark === undefined) return undefined;
  const ownership = tableOwnership(live, mark);
  if (ownership.kind === 'own') return undefined;
  const { tableName, forced, rows } = replacement;
  if (ownership.kind === 'other') {
    return new DpgwError('REPLACE_NEEDED', `table ${tableName} must be replaced (deleted and created anew) for ${forcedFieldsText(forced)}, and it belongs to manifest ${shownMark(ownership.owner)} by its mark: a replacement deletes its rows, so it is made only of this manifest's own table, with ${ADOPT_FLAG} or without; ${inputs.unsent}`, {
      where: inputs.where,
      hint: `give this data set another table name (table.name), or undo the change in the manifest; to take the table over, run with ${ADOPT_FLAG} and the field as the store holds it first, then replace it in a run of its own (${storedRowsText(rows)}, lost with it)`,
      details: { fields: forced.map((f) => f.field), rows: rows.known ? rows.rows : null, owner: ownership.owner.name },
    });
  }
  if (inputs.adopt) return undefined;
  return new DpgwError('REPLACE_NEEDED', `table ${tableName} must be replaced (deleted and created anew) for ${forcedFieldsText(forced)}, and no manifest's mark proves this manifest manages it: it is replaced only when the run takes it over with ${ADOPT_FLAG} too; ${inputs.unsent}`, {
    where: inputs.where,
    hint: `pass ${ADOPT_FLAG} ${ALLOW_REPLACE_FLAG} to take it over and replace it (${storedRowsText(rows)}, lost with it), undo the change in the manifest, or give this data set another table name (table.name)`,
    details: { fields: forced.map((f) => f.field), rows: rows.known ? rows.rows : null },
  });
}

/** The table step of a data set whose replacement is refused: in a plan (never reached: a plan shows `replace`), or failed in a run. */
export function refusedReplaceRecord(refusal: DpgwError, run: boolean): StepRecord {
  // Another manifest's table: no flag replaces it, and the record names its owner.
  const owner = typeof refusal.details?.owner === 'string' ? { owner: refusal.details.owner } : undefined;
  if (run) return { step: 'table', action: 'refused', status: 'failed', reason: refusal.toLine(), ...owner };
  return owner ? { step: 'table', action: 'refused', reason: `refused: ${refusal.message}`, ...owner } : { step: 'table', action: 'refused', reason: `refused: ${refusal.message}; ${ALLOW_REPLACE_FLAG} replaces it` };
}

/** The plan's `replace`: the DELETE and the POST the run would send, and whether it may. */
export function plannedReplacement(table: RealtimeTableDefinition, replacement: Replacement, olapSegment: string, { allowed, proven }: { allowed: boolean; proven: boolean }): StepRecord {
  const name = table.tableName;
  const may = !proven
    ? `no manifest's mark proves this manifest manages it: the run needs ${ADOPT_FLAG} and ${ALLOW_REPLACE_FLAG}, or it refuses this data set (REPLACE_NEEDED)`
    : allowed
      ? `allowed by ${ALLOW_REPLACE_FLAG}`
      : `the run needs ${ALLOW_REPLACE_FLAG} (at a terminal: the table's name typed), or it refuses this data set (REPLACE_NEEDED)`;
  return {
    step: 'table',
    action: 'replace',
    reason: `DELETE table ${name}, wait until the store no longer holds it, POST it anew: ${replacementText(replacement)}; ${may}`,
    difference: replacement.difference,
    requests: [deletionRequest({ kind: 'table', name }, olapSegment), { method: 'POST', path: paths.olapTables(olapSegment), body: maskSecrets(table) }],
  };
}

/** Delete → wait until the store no longer holds it → create. The consume step after it proves the new table consumes. */
export async function applyReplacement(client: GatewayClient, table: RealtimeTableDefinition, replacement: Replacement, inputs: { timeoutMs: number; halfDone?: HalfDoneWork }): Promise<{ record: StepRecord; answer: Accepted }> {
  const name = table.tableName;
  // From the DELETE until the table exists again, a quit at once says what it leaves behind.
  const whole = inputs.halfDone?.begin(`table ${name} was being replaced: its DELETE was sent (${storedRowsText(replacement.rows)}, lost with it) and it was not created anew; run provision again: it creates the table`);
  let deleted: StepRecord;
  let answer: Accepted;
  try {
    // Read just before: a 404 to the DELETE answers a retry of one whose answer was lost.
    deleted = await applyDeletion(client, { kind: 'table', name }, { timeoutMs: inputs.timeoutMs, seenBefore: true }).catch((error: unknown) => {
      // Its own words say what became of the table (nothing deleted, or deleted and still held); the record says it was a replacement.
      throw failedReplacement(error, (cause) => cause.message, (cause) => cause.hint);
    });
    try {
      ({ answer } = await createTableOnce(client, table, 'failure', `the store holds table ${name} again right after dropping it: another run may have created it; run provision again`));
    } catch (error) {
      throw deletedNotCreated(name, replacement, error);
    }
  } finally {
    whole?.();
  }
  const gone = deleted.reason.replace(/^table \S+ deleted; /, '');
  return {
    answer,
    record: {
      step: 'table',
      action: 'replace',
      status: 'changed',
      reason: `table ${name} replaced: deleted (${gone}) and created anew, for ${forcedFieldsText(replacement.forced)}; ${storedRowsText(replacement.rows)} before, lost`,
      difference: replacement.difference,
    },
  };
}

/** Marks the error of a replacement that failed part way (failedReplacementRecord reads it). */
const FAILED_REPLACEMENT = 'failed';

/** A replacement's error: the cause's code and exit, in the words given; marked so that the step's record says `replace`. */
function failedReplacement(error: unknown, message: (cause: DpgwError) => string, hint: (cause: DpgwError) => string | undefined): DpgwError {
  const cause = error instanceof DpgwError ? error : new DpgwError('UNEXPECTED_FAILURE', (error as Error).message, { cause: error });
  return new DpgwError(cause.errorCode, message(cause), { where: cause.where, hint: hint(cause), details: { ...cause.details, replacement: FAILED_REPLACEMENT }, cause });
}

/**
 * The create after the delete failed: the table and its rows are gone, which the create's
 * own words ("POST … failed", "nothing was changed") would hide. Its code and exit stay the
 * cause's; the words say what was done and what is left.
 */
function deletedNotCreated(name: string, replacement: Replacement, error: unknown): DpgwError {
  return failedReplacement(
    error,
    (cause) => `table ${name} was deleted to be replaced (${storedRowsText(replacement.rows)}, lost with it) but not created anew: ${cause.message}`,
    (cause) => `the store holds no table ${name} now: run provision again to create it (its plan shows create)${cause.hint ? `; ${cause.hint}` : ''}`,
  );
}

/** The table step's record of a replacement that failed part way (its delete, or its create after the delete); undefined for any other error. */
export function failedReplacementRecord(error: DpgwError): StepRecord | undefined {
  return error.details?.replacement === FAILED_REPLACEMENT ? { step: 'table', action: 'replace', status: 'failed', reason: error.toLine() } : undefined;
}
