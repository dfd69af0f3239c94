/**
 * Step 2 of the contract: an enablement of a data source (created, or reused by
 * name) with the data set enabled in it, then a wait until the catalog lists the
 * data set with its topic (the platform creates topics asynchronously).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CATALOG_ALL } from '../contract/constants.js';
import { paths } from '../contract/paths.js';
import type { CatalogDataSet, CatalogDataSource, Enablement, OfferedDataSet } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { GatewayError } from '../gateway/gateway-error.js';
import { closestMatch } from '../text/closest-match.js';
import { defaultStorageOf, parseSelfHref, selfHrefOf, topicOf } from './data-set-facts.js';

export interface EnableRequest {
  dataSource: string;
  dataSet: string;
  groups: string[];
  /** Default: the data set's name. */
  enablement?: string;
  waitTimeoutMs: number;
  dryRun?: boolean;
  /** Told about the wait, for a spinner. */
  onWaiting?: (elapsedMs: number) => void;
  warn?: (message: string) => void;
  /** Shared by the data sets of one run: data sources and what they offer do not change during it. */
  catalogCache?: CatalogCache;
  /** Aborted by Ctrl-C or SIGTERM: the wait for the topic ends at once. */
  signal?: AbortSignal;
}

/**
 * What one run learns from the catalog once and shares between its data sets, so a
 * data set costs only the contract's own requests (docs/benchmarks.md): the data
 * sources, what each offers, each source's enablements (one listing, then the ones
 * this run creates), and which data sets are enabled already.
 */
export interface CatalogCache {
  /** 'run': many data sets share it, so the catalog's one listing of every data set is read once; 'call': one data set, its enablement's listing. */
  scope: 'run' | 'call';
  dataSources?: Promise<CatalogDataSource[]>;
  offered: Map<string, Promise<OfferedDataSet[]>>;
  enablements: Map<string, Promise<Enablement[]>>;
  /** Enablements this run is creating, by data source and name: two data sets naming one create it once. */
  creating: Map<string, Promise<{ enablement: Enablement; created: boolean }>>;
  /** The catalog's data sets as listed before this run enabled any, by listing path. */
  listed: Map<string, Promise<CatalogDataSet[]>>;
}

export function newCatalogCache(scope: CatalogCache['scope'] = 'run'): CatalogCache {
  return { scope, offered: new Map(), enablements: new Map(), creating: new Map(), listed: new Map() };
}

export interface PlannedRequest {
  method: string;
  path: string;
  body?: unknown;
}

export interface EnableResult {
  dataSource: { id: string; name: string };
  enablement: { id?: string; name: string; groups: string[]; created: boolean };
  dataSet: string;
  /** 'enabled' now, 'already' enabled before; 'planned' in a dry run. */
  change: 'enabled' | 'already' | 'planned';
  topic?: string;
  selfHref?: string;
  storageId?: string;
  planned?: PlannedRequest[];
}

export async function enableDataSet(client: GatewayClient, request: EnableRequest): Promise<EnableResult> {
  const cache = request.catalogCache ?? newCatalogCache('call');
  // What the source offers and its enablements do not depend on each other: asked side by side.
  const [source, enablements] = await Promise.all([findOffered(client, request.dataSource, request.dataSet, cache), enablementsOf(client, request.dataSource, cache)]);
  const enablementName = request.enablement ?? request.dataSet;
  const creatingKey = `${source.id}\u0000${enablementName}`;
  const existing = enablements.find((e) => e.name === enablementName);
  const beingCreated = existing ? undefined : cache.creating.get(creatingKey);
  checkGroups(request, enablementName, existing, beingCreated !== undefined);
  if (request.dryRun) return plannedEnable(request, source, enablementName, existing);

  let enablement: Enablement;
  let created = false;
  if (existing) enablement = existing;
  else if (beingCreated) enablement = (await beingCreated).enablement;
  else ({ enablement, created } = await once(cache.creating, creatingKey, () => createEnablement(client, source.id, enablementName, request.groups)));
  const done = (listed: CatalogDataSet, change: EnableResult['change']): EnableResult => ({
    dataSource: { id: source.id, name: source.name },
    enablement: { id: enablement.id, name: enablement.name, groups: enablement.groups, created },
    dataSet: request.dataSet,
    change,
    topic: topicOf(listed),
    selfHref: selfHrefOf(listed),
    storageId: defaultStorageOf(listed)?.id,
  });

  // A data set in an enablement created just now cannot be enabled yet; in an existing
  // one, the catalog's listing says whether it is, and with a topic nothing is left to do.
  const before = created || beingCreated ? undefined : await listedBefore(client, cache, source.id, enablement.id, request.dataSet);
  if (before && topicOf(before) && selfHrefOf(before)) return done(before, 'already');
  await client.enableDataSet(source.id, enablement.id, request.dataSet);
  return done(await waitForTopic(client, request, source.id, { enablement, created }), before ? 'already' : 'enabled');
}

/** A new enablement needs the groups that may read; an existing one is not changed, so groups that differ are only warned of. */
function checkGroups(request: EnableRequest, enablementName: string, existing: Enablement | undefined, beingCreated: boolean): void {
  if (!existing && !beingCreated && request.groups.length === 0) {
    throw new DpgwError('MISSING_ARGUMENT', `enablement "${enablementName}" does not exist yet and needs the groups that may read the data set`, { where: '--group', hint: 'pass --group <group> (once per group)' });
  }
  if (existing && request.groups.length > 0 && !sameSet(existing.groups, request.groups)) {
    request.warn?.(`enablement "${enablementName}" exists with groups ${existing.groups.join(', ')}; --group ${request.groups.join(', ')} was not applied (dpgw does not change an existing enablement)`);
  }
}

/** A dry run: the requests an enable would send, nothing sent. */
function plannedEnable(request: EnableRequest, source: { id: string; name: string }, enablementName: string, existing: Enablement | undefined): EnableResult {
  const planned: PlannedRequest[] = [];
  if (!existing) planned.push({ method: 'POST', path: paths.enablements(source.id), body: { name: enablementName, groups: request.groups } });
  planned.push({ method: 'PUT', path: paths.enablementDataSet(source.id, existing?.id ?? '<new enablement id>', request.dataSet), body: {} });
  return {
    dataSource: { id: source.id, name: source.name },
    enablement: { id: existing?.id, name: enablementName, groups: existing?.groups ?? request.groups, created: !existing },
    dataSet: request.dataSet,
    change: 'planned',
    planned,
  };
}

/** The data set as the catalog lists it once its topic is there; the platform creates topics asynchronously. */
async function waitForTopic(client: GatewayClient, request: EnableRequest, dataSourceId: string, { enablement, created }: { enablement: Enablement; created: boolean }): Promise<CatalogDataSet> {
  const started = Date.now();
  // Topics usually appear within a fraction of a second: ask every 100 ms for the first
  // second (a cheap GET), then back off to every 2 s.
  for (let attempt = 1; ; attempt++) {
    const delay = attempt <= 10 ? 100 : Math.min(100 * 2 ** (attempt - 9), 2_000);
    const listed = (await client.listDataSets({ dataSourceId, enablementId: enablement.id })).find((d) => d.name === request.dataSet);
    if (listed && topicOf(listed)) return listed;
    const elapsed = Date.now() - started;
    if (elapsed >= request.waitTimeoutMs) {
      throw new DpgwError('TOPIC_NOT_READY', `data set ${request.dataSet} is enabled in enablement ${enablement.name}, but its topic did not appear within ${Math.round(request.waitTimeoutMs / 1000)} s`, {
        hint: 'the platform may still be creating it: run the same command again later (it is safe to repeat), or raise --wait-timeout',
      });
    }
    request.onWaiting?.(elapsed);
    try {
      await sleep(Math.min(delay, request.waitTimeoutMs - elapsed), undefined, { signal: request.signal });
    } catch (error) {
      if (!request.signal?.aborted) throw error;
      throw new DpgwError('INTERRUPTED', `stopped while waiting for the topic of ${request.dataSet} (enabled in enablement ${enablement.name})`, {
        hint: 'run the same command again to finish: it is safe to repeat',
        // What was done before the stop, for a summary that tells it (provision).
        details: { enablement: enablement.name, enablementCreated: created, enabled: true },
      });
    }
  }
}

async function createEnablement(client: GatewayClient, dataSourceId: string, name: string, groups: string[]): Promise<{ enablement: Enablement; created: boolean }> {
  let answer: Enablement | undefined;
  try {
    answer = await client.createEnablement(dataSourceId, { name, groups });
  } catch (error) {
    // Created meanwhile by another run (two pipelines provisioning side by side): reuse it, as one found before.
    if (!(error instanceof GatewayError && error.status === 409)) throw error;
    const found = (await client.listEnablements(dataSourceId)).find((e) => e.name === name);
    if (!found) throw error;
    return { enablement: found, created: false };
  }
  // A gateway that answers the POST without a body: find the new enablement by name.
  const enablement = answer ?? (await client.listEnablements(dataSourceId)).find((e) => e.name === name);
  if (!enablement) throw new DpgwError('ANSWER_UNUSABLE', `the gateway accepted enablement "${name}" but does not list it`, { hint: 'check the catalog, then run the command again' });
  return { enablement, created: true };
}

/**
 * The data set as the catalog listed it before this run touched it. A run reads the
 * listing of every data set once for all its data sets; a single call reads only its
 * enablement's listing.
 */
async function listedBefore(client: GatewayClient, cache: CatalogCache, dataSourceId: string, enablementId: string, dataSet: string): Promise<CatalogDataSet | undefined> {
  const listed = await (cache.scope === 'run' ? everyDataSetListed(client, cache) : once(cache.listed, `${dataSourceId}/${enablementId}`, () => client.listDataSets({ dataSourceId, enablementId })));
  return listed.find((d) => {
    if (d.name !== dataSet) return false;
    const ids = parseSelfHref(selfHrefOf(d) ?? '');
    return ids === undefined ? cache.scope === 'call' : ids.dataSourceId === dataSourceId && ids.enablementId === enablementId;
  });
}

/** The catalog's listing of every data set, read once for a run (before it enables any). */
export function everyDataSetListed(client: GatewayClient, cache: CatalogCache): Promise<CatalogDataSet[]> {
  return once(cache.listed, `${CATALOG_ALL}/${CATALOG_ALL}`, () => client.listDataSets({}));
}

/** A data source's enablements (the source named by its name or id), read once per run. */
export async function enablementsOf(client: GatewayClient, dataSource: string, cache: CatalogCache): Promise<Enablement[]> {
  const found = await findDataSource(client, dataSource, cache);
  return once(cache.enablements, found.id, () => client.listEnablements(found.id));
}

/** A value asked for once per key and shared; a failed ask is forgotten so the next caller asks again. */
function once<T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let pending = map.get(key);
  if (!pending) {
    pending = load();
    map.set(key, pending);
    pending.catch(() => map.delete(key));
  }
  return pending;
}

/** Starts the data source listing a run needs first, so it overlaps other start-up requests; its errors reach the data sets that use it. */
export function primeCatalog(client: GatewayClient, cache: CatalogCache): void {
  void dataSourcesOf(client, cache).catch(() => undefined);
}

function dataSourcesOf(client: GatewayClient, cache: CatalogCache): Promise<CatalogDataSource[]> {
  if (!cache.dataSources) {
    cache.dataSources = client.listDataSources();
    cache.dataSources.catch(() => (cache.dataSources = undefined));
  }
  return cache.dataSources;
}

/**
 * The data source, when it offers the data set; else a usage error with the nearest names.
 * GET requests only, each asked once per run: provision checks every data set of a
 * manifest this way before it changes anything.
 */
export async function findOffered(client: GatewayClient, dataSource: string, dataSet: string, cache: CatalogCache): Promise<CatalogDataSource> {
  const source = await findDataSource(client, dataSource, cache);
  const offered = await once(cache.offered, source.id, () => client.listOfferedDataSets(source.id));
  if (!offeredNames(offered).has(dataSet)) {
    const near = closestMatch(dataSet, offered.map((d) => d.name));
    throw new DpgwError('DATA_SET_NOT_FOUND', `data source ${source.name} offers no data set "${dataSet}"`, {
      where: '--dataset',
      hint: near ? `did you mean "${near}"? It offers: ${offered.map((d) => d.name).join(', ')}` : `it offers: ${offered.map((d) => d.name).join(', ') || 'nothing'}`,
    });
  }
  return source;
}

/** The names a listing offers, made once per listing: a run looks up each of its data sets in it (a scan each was quadratic). */
const offeredNameSets = new WeakMap<OfferedDataSet[], Set<string>>();

function offeredNames(offered: OfferedDataSet[]): Set<string> {
  let names = offeredNameSets.get(offered);
  if (!names) offeredNameSets.set(offered, (names = new Set(offered.map((d) => d.name))));
  return names;
}

async function findDataSource(client: GatewayClient, nameOrId: string, cache: CatalogCache): Promise<CatalogDataSource> {
  const sources = await dataSourcesOf(client, cache);
  const found = sources.find((s) => s.id === nameOrId) ?? sources.find((s) => s.name === nameOrId);
  if (found) return found;
  const near = closestMatch(nameOrId, sources.map((s) => s.name));
  throw new DpgwError('DATA_SOURCE_NOT_FOUND', `no data source "${nameOrId}" in the catalog`, {
    where: '--datasource',
    hint: near ? `did you mean "${near}"?` : `the catalog has: ${sources.map((s) => s.name).join(', ') || 'no data sources'}`,
  });
}

/** The same groups, in any order (an enablement's groups against the ones asked for). */
export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
