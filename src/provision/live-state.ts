/**
 * What a data set's schema and table would change in the analytics store, read with GET
 * requests (the store reads of docs/gateway-api.md) and compared by olap/live-diff.ts:
 * the plan shows it, the run acts on it. "No change" only when the live state was read
 * and matches; a gateway without reads gives "not compared", never "no change".
 */
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { Accepted, GatewayClient, StoreRead } from '../gateway/gateway-client.js';
import { GatewayError } from '../gateway/gateway-error.js';
import { diffSchema, diffTable, isCompatible, schemaDiffLines, tableDiffLines, type FieldChange, type SchemaDiff } from '../olap/live-diff.js';

export type LiveChange = 'create' | 'update' | 'none' | 'not-compared' | 'incompatible';

export interface LiveComparison {
  change: LiveChange;
  /** The `+ / - / ~` lines of what differs. */
  lines: string[];
  /** Why it was not compared. */
  why?: string;
  schemaDiff?: SchemaDiff;
  /** A table's: each field that differs, for the fields that force a replacement (olap/replacement-fields.ts). */
  tableChanges?: FieldChange[];
}

/** `read`: the store's schema read already (or found missing from its listing). */
export async function compareSchema(client: GatewayClient, schema: AnalyticsSchema, read?: StoreRead<Record<string, unknown>>): Promise<LiveComparison> {
  const live = read ?? (await client.getSchema(schema.schemaName));
  if (live.kind === 'not-found') return { change: 'create', lines: [] };
  if (live.kind === 'not-exposed') return { change: 'not-compared', lines: [], why: `this gateway does not expose reads of the analytics store (${live.why})` };
  const diff = diffSchema(schema, live.body);
  const lines = schemaDiffLines(diff);
  return { change: lines.length === 0 ? 'none' : isCompatible(diff) ? 'update' : 'incompatible', lines, schemaDiff: diff };
}

/** `read`: the store's table read already (table-step.ts reads it once, for its owner too). */
export async function compareTable(client: GatewayClient, table: RealtimeTableDefinition, secretsKnown: boolean, read?: StoreRead<Record<string, unknown>>): Promise<LiveComparison> {
  const live = read ?? (await client.getTable(table.tableName));
  if (live.kind === 'not-found') return { change: 'create', lines: [] };
  if (live.kind === 'not-exposed') return { change: 'not-compared', lines: [], why: `this gateway does not expose reads of the analytics store (${live.why})` };
  const changes = diffTable(table, live.body, { secretsKnown });
  const lines = tableDiffLines(changes);
  return { change: lines.length === 0 ? 'none' : 'update', lines, tableChanges: changes };
}

/** The store's rule, in its own words, and the way out: for a schema the store would refuse. */
export function incompatibleSchemaMessage(schemaName: string, lines: string[]): string {
  return `schema ${schemaName} would remove or retype columns the analytics store holds (${lines.filter((l) => !l.startsWith('+')).join('; ')}); the store refuses a schema that "is not backward-compatible with the existing schema" and takes only added columns — give the schema and its table new names`;
}

/**
 * A table that differs from the manifest, updated with the store's PUT (an assumed
 * endpoint); a gateway that refuses it (404, 405, 501) fails the step with the fields.
 */
export async function updateTable(client: GatewayClient, table: RealtimeTableDefinition, lines: string[]): Promise<Accepted> {
  try {
    return await client.updateTable(table);
  } catch (error) {
    if (!(error instanceof GatewayError) || ![404, 405, 501].includes(error.status)) throw error;
    throw new DpgwError('TABLE_UPDATE_UNSUPPORTED', `table ${table.tableName} differs from the manifest; this gateway cannot update tables (PUT answered ${error.status}): ${lines.join('; ')}`, {
      hint: 'update it in the store by hand, or give the manifest another table name',
      details: { changes: lines },
    });
  }
}
