/**
 * The read side of the catalog (contract, "What the service does", item 2): data sources,
 * what each offers, their enablements with groups, and the enabled data sets with their
 * topic, storages and self link — joined by the ids in each data set's self href. GET
 * requests only: the data sources once, each named source's offers and enablements once,
 * and one listing of the enabled data sets (narrowed to a source and enablement when
 * both are given; beside the others when nothing narrows it).
 */
import { CATALOG_ALL, DEFAULT_STORAGE_NAME } from '../contract/constants.js';
import { paths } from '../contract/paths.js';
import type { CatalogDataSet, CatalogDataSource, Enablement, OfferedDataSet } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { closestMatch } from '../text/closest-match.js';
import { serverText } from '../text/terminal-text.js';
import { parseSelfHref, selfHrefOf, topicOf } from './data-set-facts.js';
import { LISTING_FAN_OUT } from '../net/answer-bounds.js';

export interface CatalogFilter {
  /** A data source's name or id. */
  dataSource?: string;
  /** An enablement's name or id. */
  enablement?: string;
  /** A data set name, with `*` and `?` as wildcards. */
  name?: string;
}

/** One enabled data set, with the names of what its ids point at. */
export interface EnabledDataSetView {
  name: string;
  dataSource: { id: string; name?: string };
  enablement: { id: string; name?: string; groups?: string[] };
  topic?: string;
  storages: Array<{ name: string; id: string; default: boolean }>;
  selfHref?: string;
  /** The catalog's own record, as the gateway answered it. */
  record: CatalogDataSet;
}

/** The path `storage touch` asks for (the self href and the default storage), or undefined without either. */
export function storagePathOf(view: EnabledDataSetView): string | undefined {
  const defaultStorage = view.storages.find((s) => s.default);
  return view.selfHref && defaultStorage ? paths.dataSetStorage(view.selfHref, defaultStorage.id) : undefined;
}

export interface EnablementView {
  dataSource: { id: string; name: string };
  enablement: Enablement;
}

export interface OfferView {
  dataSource: { id: string; name: string };
  offered: OfferedDataSet;
  /** The enablements it is enabled in. */
  enabledIn: Array<{ id: string; name?: string }>;
}

export async function catalogDataSources(client: GatewayClient): Promise<CatalogDataSource[]> {
  return client.listDataSources();
}

/** The data sources a filter names: one (by name or id), or all of them; an unknown one is a usage error with the nearest name. */
export async function selectDataSources(client: GatewayClient, nameOrId: string | undefined, where = '--datasource'): Promise<CatalogDataSource[]> {
  const sources = await client.listDataSources();
  if (nameOrId === undefined) return sources;
  const found = sources.find((s) => s.id === nameOrId) ?? sources.find((s) => s.name === nameOrId);
  if (found) return [found];
  const near = closestMatch(nameOrId, sources.map((s) => s.name));
  throw new DpgwError('DATA_SOURCE_NOT_FOUND', `no data source "${nameOrId}" in the catalog`, {
    where,
    hint: serverText(near ? `did you mean "${near}"?` : `the catalog has: ${sources.map((s) => s.name).join(', ') || 'no data sources'}`),
  });
}

export async function catalogEnablements(client: GatewayClient, filter: CatalogFilter): Promise<EnablementView[]> {
  const sources = await selectDataSources(client, filter.dataSource);
  const listed = await fanOut(sources, async (source) => (await client.listEnablements(source.id)).map((enablement) => ({ dataSource: { id: source.id, name: source.name }, enablement })));
  const views = listed.flat();
  if (filter.enablement === undefined) return views;
  const chosen = views.filter((v) => v.enablement.id === filter.enablement || v.enablement.name === filter.enablement);
  if (chosen.length === 0) throw unknownEnablement(filter.enablement, views.map((v) => v.enablement.name));
  return chosen;
}

export async function catalogOffers(client: GatewayClient, filter: CatalogFilter): Promise<OfferView[]> {
  const sources = await selectDataSources(client, filter.dataSource);
  const matches = namePattern(filter.name);
  const [offers, enabled] = await Promise.all([
    fanOut(sources, async (source) => ({ source, offered: await client.listOfferedDataSets(source.id) })),
    enabledDataSets(client, { dataSource: filter.dataSource }),
  ]);
  return offers.flatMap(({ source, offered }) =>
    offered
      .filter((o) => matches(o.name))
      .map((o) => ({
        dataSource: { id: source.id, name: source.name },
        offered: o,
        enabledIn: enabled.filter((e) => e.dataSource.id === source.id && e.name === o.name).map((e) => ({ id: e.enablement.id, name: e.enablement.name })),
      })),
  );
}

/** The enabled data sets the filter selects, with names and groups joined in. */
export async function enabledDataSets(client: GatewayClient, filter: CatalogFilter): Promise<EnabledDataSetView[]> {
  // With no source or enablement named, the listing of every data set needs nothing else first: asked side by side.
  const everything = filter.dataSource === undefined && filter.enablement === undefined ? client.listDataSets() : undefined;
  everything?.catch(() => undefined);
  const sources = await selectDataSources(client, filter.dataSource);
  const enablements = (await fanOut(sources, async (source) => ({ source, enablements: await client.listEnablements(source.id) }))).flatMap(({ source, enablements: list }) =>
    list.map((enablement) => ({ source, enablement })),
  );
  const chosenEnablement = filter.enablement === undefined ? undefined : chooseEnablement(enablements, filter.enablement);
  // One listing: of one enablement when it is known, else of every one, narrowed here.
  const records = await (everything ?? client.listDataSets(chosenEnablement ? { dataSourceId: chosenEnablement.source.id, enablementId: chosenEnablement.enablement.id } : { dataSourceId: sources.length === 1 ? sources[0]!.id : CATALOG_ALL }));
  const known: KnownCatalog = {
    sourceIds: new Set(sources.map((s) => s.id)),
    byEnablement: new Map(enablements.map((e) => [e.enablement.id, e])),
    sourceById: new Map(sources.map((s) => [s.id, s])),
  };
  const matches = namePattern(filter.name);
  return records.flatMap((record) => {
    if (!matches(record.name)) return [];
    const view = enabledView(record, known, filter.enablement);
    return view ? [view] : [];
  });
}

interface SourceEnablement {
  source: CatalogDataSource;
  enablement: Enablement;
}

/** The data sources and enablements a listing's records are joined with. */
interface KnownCatalog {
  sourceIds: Set<string>;
  byEnablement: Map<string, SourceEnablement>;
  sourceById: Map<string, CatalogDataSource>;
}

const isEnablement = (enablement: Enablement, nameOrId: string): boolean => enablement.id === nameOrId || enablement.name === nameOrId;

/** The one enablement named (by id or name); undefined when the name is shared by several, whose listing is then narrowed record by record. */
function chooseEnablement(enablements: SourceEnablement[], nameOrId: string): SourceEnablement | undefined {
  const chosen = enablements.filter(({ enablement }) => isEnablement(enablement, nameOrId));
  if (chosen.length === 0) throw unknownEnablement(nameOrId, enablements.map(({ enablement }) => enablement.name));
  return chosen.length === 1 ? chosen[0] : undefined;
}

/** A listed record as shown, with its source's and enablement's names; undefined when it is of a source or enablement not selected. */
function enabledView(record: CatalogDataSet, known: KnownCatalog, enablementFilter: string | undefined): EnabledDataSetView | undefined {
  const selfHref = selfHrefOf(record);
  const ids = selfHref ? parseSelfHref(selfHref) : undefined;
  if (ids && !known.sourceIds.has(ids.dataSourceId)) return undefined;
  const found = ids ? known.byEnablement.get(ids.enablementId) : undefined;
  if (enablementFilter !== undefined && !(found && isEnablement(found.enablement, enablementFilter))) return undefined;
  const storages = (record.storage ?? []).map((s) => ({ name: s.name, id: s.id, default: s.name === DEFAULT_STORAGE_NAME }));
  // The storage path (storagePathOf) is made when shown: a listing of thousands prints none.
  return {
    name: record.name,
    dataSource: { id: ids?.dataSourceId ?? '?', name: ids ? known.sourceById.get(ids.dataSourceId)?.name : undefined },
    enablement: { id: ids?.enablementId ?? '?', name: found?.enablement.name, groups: found?.enablement.groups },
    topic: topicOf(record),
    storages,
    selfHref,
    record,
  };
}

/** `*` any run of characters, `?` one; everything else as written. No pattern matches all. */
export function namePattern(pattern: string | undefined): (name: string) => boolean {
  if (pattern === undefined) return () => true;
  const expression = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  return (name) => expression.test(name);
}

function unknownEnablement(nameOrId: string, names: string[]): DpgwError {
  const near = closestMatch(nameOrId, names);
  return new DpgwError('ENABLEMENT_NOT_FOUND', `no enablement "${nameOrId}" in the catalog`, {
    where: '--enablement',
    hint: serverText(near ? `did you mean "${near}"?` : `its enablements: ${[...new Set(names)].join(', ') || 'none'}`),
  });
}

/** One request per data source, LISTING_FAN_OUT at a time (in order): a listing of thousands of sources queues no thousands of requests. */
export async function fanOut<T, R>(items: readonly T[], request: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await request(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LISTING_FAN_OUT, items.length) }, worker));
  return results;
}
