/**
 * Data source and data set names for Tab completion, from the live catalog, and the names of
 * the analytics store's tables and schemas, from its listings (`table list`, `schema list`). A Tab must
 * never wait, prompt or print: the names come from a short-lived cache (a minute), else
 * from one GET within COMPLETION_BUDGET_MS with the token at hand (DPGW_TOKEN or an
 * unexpired cached one; never a refresh, never a sign-in). Offline, signed out or slow:
 * no names, and nothing said.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionOptions } from '../auth/session.js';
import { cacheDirectory } from '../files/cache-directory.js';
import { nameProblem } from '../names/platform-names.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import type { fanOut as FanOutFunction } from './catalog-lookup.js';

type FanOut = typeof FanOutFunction;

/** `offered data set`: what a source offers (to enable); `data set`: what is enabled; `table`, `schema`: what the store holds. */
export type CatalogNameKind = 'data source' | 'data set' | 'offered data set' | 'table' | 'schema';

/** What a Tab may spend on the network; a person notices more. */
export const COMPLETION_BUDGET_MS = 250;
const FRESH_MS = 60_000;

/** Where a Tab asks: the profile's gateway, and DPGW_TOKEN when set. */
export interface CatalogNamesSource {
  gateway?: string;
  profile: string;
  token?: string;
  /** Which cached session may serve: the one of the identity and gateway the settings name, as for any command. */
  session: SessionOptions;
}

/**
 * `dataSource` (a name or id, as --datasource takes it) narrows data sets to that source's:
 * `enable --datasource A --dataset <Tab>` offers A's, not every source's. A source the catalog
 * does not have has none. Data source names are never narrowed.
 */
export async function catalogNames(kind: CatalogNameKind, source: () => Promise<CatalogNamesSource>, env: NodeJS.ProcessEnv, dataSource?: string): Promise<string[]> {
  try {
    const { gateway, profile, token: givenToken, session } = await source();
    if (!gateway) return [];
    const narrowedTo = kind === 'data source' || kind === 'table' || kind === 'schema' ? undefined : dataSource;
    // Each source's names are cached apart from the unnarrowed ones.
    const key = `${gateway}\n${profile}\n${kind}${narrowedTo === undefined ? '' : `\0${narrowedTo}`}`;
    const file = join(cacheDirectory(env), 'completion', `${createHash('sha256').update(key).digest('hex').slice(0, 16)}.json`);
    const cached = await readFile(file, 'utf8')
      .then((text) => JSON.parse(text) as { at: number; names: string[] })
      .catch(() => undefined);
    // The cache is a file anyone who can write the cache folder may edit: its names are held to the catalog's name rule again, so none can carry a line break into the shell.
    if (cached && Date.now() - cached.at < FRESH_MS && Array.isArray(cached.names)) return cached.names.filter((name): name is string => typeof name === 'string' && isCatalogName(kind, name));

    const token = givenToken ?? (await unexpiredCachedToken(env, session));
    if (!token) return [];
    const { GatewayClient } = await import('../gateway/gateway-client.js');
    const { fanOut } = await import('./catalog-lookup.js');
    const client = new GatewayClient({ baseUrl: gateway, timeoutMs: COMPLETION_BUDGET_MS, retry: { limit: 0 }, tokenSupplier: async () => token });
    try {
      const listed = await namesOf(client, kind, narrowedTo, fanOut);
      // Candidates go to the shell raw: only names the platform's rule allows (no control character, no space).
      const names = listed.filter((name) => isCatalogName(kind, name));
      await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
      await writeFileAtomic(file, JSON.stringify({ at: Date.now(), names }), 0o600);
      return names;
    } finally {
      client.close();
    }
  } catch {
    // A Tab says nothing about what went wrong: the shell then completes file names.
    return [];
  }
}

/** One listing, or the sources and then the one listing: a Tab's budget has room for no more (enabled data sets of every source: no sources first). */
async function namesOf(client: GatewayClient, kind: CatalogNameKind, dataSource: string | undefined, fanOut: FanOut): Promise<string[]> {
  if (kind === 'table' || kind === 'schema') {
    // A gateway that does not pass the listing on offers none: the name is then typed.
    const listing = kind === 'table' ? await client.listTables() : await client.listSchemas();
    const { bareTableName } = await import('../provision/steps/delete-step.js');
    return listing.kind === 'found' ? [...new Set(kind === 'table' ? listing.body.map(bareTableName) : listing.body)].sort() : [];
  }
  if (kind === 'data set' && dataSource === undefined) return [...new Set((await client.listDataSets()).map((d) => d.name))];
  const sources = await client.listDataSources();
  if (kind === 'data source') return sources.map((s) => s.name);
  // The named source, by id or else name, as --datasource finds it (catalog-lookup.ts selectDataSources); every one when none is named.
  const named = dataSource === undefined ? sources : [sources.find((s) => s.id === dataSource) ?? sources.find((s) => s.name === dataSource)].flatMap((s) => (s ? [s] : []));
  if (named.length === 0) return [];
  if (kind === 'offered data set') return [...new Set((await fanOut(named, (s) => client.listOfferedDataSets(s.id))).flat().map((d) => d.name))];
  return [...new Set((await client.listDataSets({ dataSourceId: named[0]!.id })).map((d) => d.name))];
}

async function unexpiredCachedToken(env: NodeJS.ProcessEnv, session: SessionOptions): Promise<string | undefined> {
  const { cachedSession } = await import('../auth/session.js');
  const cached = await cachedSession({ session, env, warn: () => undefined });
  return cached && Date.parse(cached.accessTokenExpiresAt) > Date.now() ? cached.accessToken : undefined;
}

/** A name the catalog could have given: one the platform's name rule takes. */
function isCatalogName(kind: CatalogNameKind, name: string): boolean {
  return nameProblem(kind === 'offered data set' ? 'data set' : kind, name) === undefined;
}
