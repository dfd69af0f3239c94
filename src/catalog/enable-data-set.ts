/**
 * Step 2 of the contract: an enablement of a data source (created, or reused by
 * name) with the data set enabled in it, then a wait until the catalog lists the
 * data set with its topic (the platform creates topics asynchronously).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { paths } from '../contract/paths.js';
import type { CatalogDataSource, Enablement, OfferedDataSet } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { closestMatch } from '../text/closest-match.js';
import { defaultStorageOf, selfHrefOf, topicOf } from './data-set-facts.js';

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
}

export interface CatalogCache {
  dataSources?: Promise<CatalogDataSource[]>;
  offered: Map<string, Promise<OfferedDataSet[]>>;
}

export function newCatalogCache(): CatalogCache {
  return { offered: new Map() };
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
  const cache = request.catalogCache ?? newCatalogCache();
  const source = await findDataSource(client, request.dataSource, cache);
  let offeredList = cache.offered.get(source.id);
  if (!offeredList) {
    offeredList = client.listOfferedDataSets(source.id);
    cache.offered.set(source.id, offeredList);
    offeredList.catch(() => cache.offered.delete(source.id));
  }
  const offered = await offeredList;
  if (!offered.some((d) => d.name === request.dataSet)) {
    const near = closestMatch(request.dataSet, offered.map((d) => d.name));
    throw new DpgwError('usage', `data source ${source.name} offers no data set "${request.dataSet}"`, {
      where: '--dataset',
      hint: near ? `did you mean "${near}"? It offers: ${offered.map((d) => d.name).join(', ')}` : `it offers: ${offered.map((d) => d.name).join(', ') || 'nothing'}`,
    });
  }
  const enablementName = request.enablement ?? request.dataSet;
  const existing = (await client.listEnablements(source.id)).find((e) => e.name === enablementName);
  if (!existing && request.groups.length === 0) {
    throw new DpgwError('usage', `enablement "${enablementName}" does not exist yet and needs the groups that may read the data set`, { where: '--group', hint: 'pass --group <group> (once per group)' });
  }
  if (existing && request.groups.length > 0 && !sameSet(existing.groups, request.groups)) {
    request.warn?.(`enablement "${enablementName}" exists with groups ${existing.groups.join(', ')}; --group ${request.groups.join(', ')} was not applied (dpgw does not change an existing enablement)`);
  }

  if (request.dryRun) {
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

  let enablement: Enablement | undefined = existing;
  if (!enablement) {
    enablement = await client.createEnablement(source.id, { name: enablementName, groups: request.groups });
    // A gateway that answers the POST without a body: find the new enablement by name.
    enablement ??= (await client.listEnablements(source.id)).find((e) => e.name === enablementName);
    if (!enablement) throw new DpgwError('rejected', `the gateway accepted enablement "${enablementName}" but does not list it`, { hint: 'check the catalog, then run the command again' });
  }
  const already = (await client.listDataSets({ dataSourceId: source.id, enablementId: enablement.id })).some((d) => d.name === request.dataSet && topicOf(d));
  await client.enableDataSet(source.id, enablement.id, request.dataSet);

  const started = Date.now();
  for (let delay = 250; ; delay = Math.min(delay * 2, 2_000)) {
    const listed = (await client.listDataSets({ dataSourceId: source.id, enablementId: enablement.id })).find((d) => d.name === request.dataSet);
    const topic = listed ? topicOf(listed) : undefined;
    if (listed && topic) {
      return {
        dataSource: { id: source.id, name: source.name },
        enablement: { id: enablement.id, name: enablement.name, groups: enablement.groups, created: !existing },
        dataSet: request.dataSet,
        change: already ? 'already' : 'enabled',
        topic,
        selfHref: selfHrefOf(listed),
        storageId: defaultStorageOf(listed)?.id,
      };
    }
    const elapsed = Date.now() - started;
    if (elapsed >= request.waitTimeoutMs) {
      throw new DpgwError('failure', `data set ${request.dataSet} is enabled in enablement ${enablement.name}, but its topic did not appear within ${Math.round(request.waitTimeoutMs / 1000)} s`, {
        hint: 'the platform may still be creating it: run the same command again later (it is safe to repeat), or raise --wait-timeout',
      });
    }
    request.onWaiting?.(elapsed);
    await sleep(Math.min(delay, request.waitTimeoutMs - elapsed));
  }
}

async function findDataSource(client: GatewayClient, nameOrId: string, cache: CatalogCache): Promise<CatalogDataSource> {
  if (!cache.dataSources) {
    cache.dataSources = client.listDataSources();
    cache.dataSources.catch(() => (cache.dataSources = undefined));
  }
  const sources = await cache.dataSources;
  const found = sources.find((s) => s.id === nameOrId) ?? sources.find((s) => s.name === nameOrId);
  if (found) return found;
  const near = closestMatch(nameOrId, sources.map((s) => s.name));
  throw new DpgwError('usage', `no data source "${nameOrId}" in the catalog`, {
    where: '--datasource',
    hint: near ? `did you mean "${near}"?` : `the catalog has: ${sources.map((s) => s.name).join(', ') || 'no data sources'}`,
  });
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
