/**
 * What the analytics store holds, for `dpgw table list` and `dpgw schema list`: its listings
 * of tables and schemas, and per table its schema, the manifest whose mark it carries
 * (manifest-mark.ts) and whether it consumes (consumption.ts), read a few tables at a time.
 * The listings are the gateway's to pass on or not (docs/gateway-api.md): without them there
 * is nothing to list (STORE_LISTING_NOT_EXPOSED); a read by name it does not pass on leaves
 * its column unknown, said once, never guessed.
 */
import { DpgwError } from '../errors/dpgw-error.js';
import type { GatewayClient, StoreRead } from '../gateway/gateway-client.js';
import { nameProblem } from '../names/platform-names.js';
import { bareTableName } from '../provision/steps/delete-step.js';
import { partitionStates } from './consumption.js';
import { manifestMarkOf, schemaNameOf, type ManifestMark } from './manifest-mark.js';
import { quotedServerText } from '../text/terminal-text.js';

/** One table of `table list --json` (docs/tables.md, "table list"). */
export interface ListedTable {
  name: string;
  /** The table itself was read (false: the gateway does not pass the read on, or a name dpgw cannot send): schema and owner are unknown, not none. */
  read: boolean;
  /** segmentsConfig.schemaName; null when the store names none or the table could not be read. */
  schema: string | null;
  /** The mark a manifest left on it; null when none did (made by hand or by `table create`) or it could not be read. */
  owner: ManifestMark | null;
  /** Every partition the store lists has a consuming segment; null when the gateway does not pass that read on. */
  consuming: boolean | null;
  /** Partitions with a consuming segment, of those the store lists; null as consuming. */
  partitions: { consuming: number; listed: number } | null;
}

/** One schema of `schema list --json`. */
export interface ListedSchema {
  name: string;
  /** The tables whose segmentsConfig names it; null when the store's tables could not be listed or read. */
  tables: string[] | null;
  /** The manifests whose marks those tables carry, each once. */
  owners: ManifestMark[] | null;
}

/** A listing and the reads it could not make: each a line for stderr, once per kind of read. */
export interface Inventory<T> {
  items: T[];
  unknown: string[];
}

/** Tables read at once: the reads are GETs of a few KB, and a store of hundreds of tables should not wait on one at a time. */
const READS_AT_ONCE = 8;

export async function tableInventory(client: GatewayClient, options: { consumption: boolean }): Promise<Inventory<ListedTable>> {
  const names = listedOrRefused(await client.listTables(), 'tables').map(bareTableName);
  const unknown = new Map<string, string>();
  const items = await readEach([...new Set(names)].sort(), (name) => tableOf(client, name, options.consumption, unknown));
  return { items: items.filter((item): item is ListedTable => item !== undefined), unknown: [...unknown.values()] };
}

export async function schemaInventory(client: GatewayClient): Promise<Inventory<ListedSchema>> {
  const schemas = [...new Set(listedOrRefused(await client.listSchemas(), 'schemas'))].sort();
  const tablesListing = await client.listTables();
  if (tablesListing.kind !== 'found') {
    const why = tablesListing.kind === 'not-exposed' ? tablesListing.why : tablesListing.message;
    return { items: schemas.map((name) => ({ name, tables: null, owners: null })), unknown: [`tables: GET ${tablesListing.url} answered ${why}, so which tables use each schema is unknown`] };
  }
  const unknown = new Map<string, string>();
  const tables = (await readEach([...new Set(tablesListing.body.map(bareTableName))].sort(), (name) => tableOf(client, name, false, unknown))).filter((item): item is ListedTable => item !== undefined);
  // A table that could not be read may use any schema: then no schema's tables are known for sure.
  const complete = unknown.size === 0;
  const items = schemas.map((name) => {
    const using = tables.filter((table) => table.schema === name);
    const owners = [...new Map(using.flatMap((table) => (table.owner ? [[`${table.owner.name}\0${table.owner.named}`, table.owner] as const] : []))).values()];
    return complete ? { name, tables: using.map((table) => table.name), owners } : { name, tables: null, owners: null };
  });
  return { items, unknown: [...unknown.values()] };
}

/** The listing's names, or the refusal a list command gives when the gateway does not list them. */
function listedOrRefused(listing: StoreRead<string[]>, kind: 'tables' | 'schemas'): string[] {
  if (listing.kind === 'found') return listing.body;
  const why = listing.kind === 'not-exposed' ? listing.why : listing.message;
  throw new DpgwError('STORE_LISTING_NOT_EXPOSED', `this gateway does not list the store's ${kind}: GET ${listing.url} answered ${why}`, {
    hint: `ask the platform team to pass GET /api/internal/<olap>/${kind} on; one by name: dpgw ${kind === 'tables' ? 'table' : 'schema'} get <name>`,
  });
}

/** `unknown`: why a column could not be read, once per column (the first table's answer stands for all). */
async function tableOf(client: GatewayClient, name: string, consumption: boolean, unknown: Map<string, string>): Promise<ListedTable | undefined> {
  // A name dpgw could not have sent never goes into a path: listed, its columns unknown.
  if (nameProblem('table', name) !== undefined) {
    if (!unknown.has('name')) unknown.set('name', 'a table whose name dpgw cannot send is listed without its schema, owner or consumption');
    return { name, read: false, schema: null, owner: null, consuming: null, partitions: null };
  }
  const [read, segments] = await Promise.all([client.getTable(name), consumption ? client.consumingSegments(name) : undefined]);
  // Dropped between the listing and the read: no longer there to list.
  if (read.kind === 'not-found') return undefined;
  if (read.kind === 'not-exposed' && !unknown.has('table')) unknown.set('table', `schema, owner: unknown, this gateway does not pass reads of the store's tables on (GET ${read.url} answered ${read.why})`);
  let consuming: ListedTable['consuming'] = null;
  let partitions: ListedTable['partitions'] = null;
  if (segments?.kind === 'found') {
    const states = [...partitionStates(segments.body, name).values()];
    const count = states.filter((state) => state.consuming).length;
    partitions = { consuming: count, listed: states.length };
    consuming = states.length > 0 && count === states.length;
  } else if (segments !== undefined && !unknown.has('consuming')) {
    unknown.set('consuming', `consuming: unknown, this gateway does not pass the store's consuming segments on (GET ${segments.url} answered ${segments.kind === 'not-exposed' ? segments.why : segments.message})`);
  }
  const found = read.kind === 'found' ? read.body : undefined;
  return { name, read: found !== undefined, schema: (found && schemaNameOf(found)) ?? null, owner: (found && manifestMarkOf(found)) ?? null, consuming, partitions };
}

/**
 * A store's name as a list shows it: a name dpgw could send as it is, any other quoted (its controls escaped), as a
 * mark that is no manifest name is (shownMark). Else `a, b` in a comma list reads as two tables, and `track` with a
 * zero-width space after it as table track.
 */
export function shownStoreName(kind: 'table' | 'schema', name: string): string {
  return nameProblem(kind, name) === undefined ? name : quotedServerText(name);
}

/** `read` of each name, READS_AT_ONCE at a time, in the names' order. */
async function readEach<T>(names: readonly string[], read: (name: string) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(names.length);
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const index = next++;
      results[index] = await read(names[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, names.length) }, worker));
  return results;
}
