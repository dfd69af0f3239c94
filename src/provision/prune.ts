/**
 * `provision --prune`: the tables that carry this manifest's mark (olap/manifest-mark.ts) and
 * that it no longer lists, then their schemas when no table uses them any more. Found with
 * reads — the store's list of tables and each table — and deleted by the delete step, tables
 * first, schemas after. A table without the mark, or with another manifest's, is never
 * touched, whatever its name or topic; nor is anything without `--prune`. Only a manifest
 * with a `name:` prunes (provision.handler.ts refuses the others before anything is sent): a
 * name taken from its path is every same-named folder's, so its mark proves nothing.
 */
import { DpgwError } from '../errors/dpgw-error.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { nameProblem } from '../names/platform-names.js';
import { MANIFEST_MARK_KEY, manifestMarkOf, schemaNameOf, type ManifestMark } from '../olap/manifest-mark.js';
import { applyDeletion, bareTableName, plannedDeletion, type DeletionTarget } from './steps/delete-step.js';
import { blockedStep, type StepRecord } from './steps/step-record.js';

/** Said once in every prune's plan and result. */
export const ENABLEMENTS_KEPT = 'enablements are not deleted: the gateway contract offers no way to remove one';

export interface PruneInputs {
  manifestName: string;
  /** The tables and schemas the manifest lists: never pruned. */
  keptTables: ReadonlySet<string>;
  keptSchemas: ReadonlySet<string>;
  olapSegment: string;
}

export interface PrunePlan {
  /** The mark looked for. */
  manifest: string;
  /** The tables to delete, then the schemas: the order of `steps`. */
  tables: string[];
  schemas: string[];
  /** One `delete` step per table, then per schema, in the order they would be deleted. */
  steps: StepRecord[];
  note: string;
}

interface LiveTable {
  name: string;
  mark?: ManifestMark;
  schema?: string;
}

/** What a prune would delete, found with GET requests only. */
export async function planPrune(client: GatewayClient, inputs: PruneInputs): Promise<PrunePlan> {
  const live = await liveTables(client);
  // Only a name the manifest gave itself proves a table its own (olap/manifest-mark.ts): one taken from a folder is every such folder's.
  const pruned = live.filter((table) => table.mark?.named === true && table.mark.name === inputs.manifestName && !inputs.keptTables.has(table.name));
  const staying = live.filter((table) => !pruned.includes(table));
  // A schema goes when no staying table names it, or is named like it (the store refuses those too).
  const inUse = (schema: string) => staying.some((table) => table.schema === schema || table.name === schema);
  const schemas = [...new Set(pruned.flatMap((table) => (table.schema === undefined ? [] : [table.schema])))].filter((schema) => !inputs.keptSchemas.has(schema) && !inUse(schema));
  const mark = `${MANIFEST_MARK_KEY}: ${inputs.manifestName}`;
  const steps = [
    ...pruned.map((table) => ({ ...plannedDeletion({ kind: 'table', name: table.name }, inputs.olapSegment, `marked ${mark}, and the manifest no longer lists it`), owner: inputs.manifestName })),
    ...schemas.map((schema) => {
      const of = pruned.filter((table) => table.schema === schema).map((table) => table.name);
      return plannedDeletion({ kind: 'schema', name: schema }, inputs.olapSegment, `the schema of table ${of.join(', table ')}, and no other table uses it`);
    }),
  ];
  return { manifest: inputs.manifestName, tables: pruned.map((table) => table.name), schemas, steps, note: ENABLEMENTS_KEPT };
}

/** Every table the store lists, with its mark and schema, read a few at a time. */
async function liveTables(client: GatewayClient): Promise<LiveTable[]> {
  const listing = await client.listTables();
  if (listing.kind !== 'found') {
    throw new DpgwError('STORE_LISTING_NOT_EXPOSED', `--prune needs the store's list of tables to find the tables this manifest marked, and this gateway does not expose it: GET ${listing.url} answered ${listing.kind === 'not-exposed' ? listing.why : listing.message}`, {
      hint: 'nothing was sent; run without --prune, or ask the platform team to pass GET /api/internal/<olap>/tables on to the store',
    });
  }
  // A name dpgw could not have sent is no table dpgw made (and never goes into a path).
  const names = [...new Set(listing.body.map(bareTableName))].filter((name) => nameProblem('table', name) === undefined);
  const tables: LiveTable[] = [];
  for (let start = 0; start < names.length; start += 8) {
    const batch = names.slice(start, start + 8);
    const reads = await Promise.all(batch.map((name) => client.getTable(name)));
    batch.forEach((name, index) => {
      const read = reads[index]!;
      // A schema name dpgw could not have sent is never deleted (nor shown raw).
      const schema = read.kind === 'found' ? schemaNameOf(read.body) : undefined;
      if (read.kind === 'found') tables.push({ name, mark: manifestMarkOf(read.body), schema: schema !== undefined && nameProblem('schema', schema) === undefined ? schema : undefined });
    });
  }
  return tables;
}

/**
 * The planned deletions, in order. A failed table deletion blocks the schema deletions after
 * it (the store would refuse them while the table stays); the error of the first failure is returned.
 */
export async function applyPrune(client: GatewayClient, plan: PrunePlan, inputs: { timeoutMs: number; interrupted: () => boolean }): Promise<{ steps: StepRecord[]; error?: DpgwError }> {
  const steps: StepRecord[] = [];
  let error: DpgwError | undefined;
  // The plan's steps are its tables, then its schemas, in this order.
  const targets: DeletionTarget[] = [...plan.tables.map((name) => ({ kind: 'table' as const, name })), ...plan.schemas.map((name) => ({ kind: 'schema' as const, name }))];
  for (const target of targets) {
    if (error || inputs.interrupted()) {
      steps.push(error ? { ...blockedStep(target.kind, 'table', true), reason: `${target.kind} ${target.name}: not deleted, an earlier deletion failed` } : { step: target.kind, action: 'skipped', status: 'skipped', reason: `${target.kind} ${target.name}: not deleted, the run was interrupted` });
      continue;
    }
    try {
      // Each was read just before, by planPrune.
      const deleted = await applyDeletion(client, target, { timeoutMs: inputs.timeoutMs, seenBefore: true });
      steps.push(target.kind === 'table' ? { ...deleted, owner: plan.manifest } : deleted);
    } catch (caught) {
      error = caught instanceof DpgwError ? caught : new DpgwError('UNEXPECTED_FAILURE', (caught as Error).message, { cause: caught });
      steps.push({ step: target.kind, action: 'delete', status: 'failed', reason: error.toLine() });
    }
  }
  return { steps, error };
}

/** A prune not run (a data set failed, or the run was interrupted): each planned deletion, skipped with why. */
export function skippedPrune(plan: PrunePlan, why: string): StepRecord[] {
  return [...plan.tables.map((name) => ['table', name] as const), ...plan.schemas.map((name) => ['schema', name] as const)].map(([step, name]) => ({ step, action: 'skipped', status: 'skipped', reason: `${step} ${name}: not deleted, ${why}` }));
}
