/**
 * Which catalog data set a table of the store serves, found through its topic: the table's
 * stream configs name the topic (`stream.<streamType>.topic.name`), and the catalog's data
 * sets carry theirs as a label (data-set-facts.ts `topicOf`); the data set's self link gives
 * its data source and enablement. A table whose topic no data set carries, or several do,
 * cannot be put back into a manifest: the caller leaves it out with the reason.
 */
import { parseSelfHref, selfHrefOf, topicOf } from '../catalog/data-set-facts.js';
import type { CatalogDataSet, CatalogDataSource, Enablement } from '../contract/types.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { nameProblem } from '../names/platform-names.js';
import { quotedServerText, serverText } from '../text/terminal-text.js';

export interface TableOrigin {
  /** The data source as a manifest names it: its name, or its id where the name is not unique. */
  datasource: string;
  dataset: string;
  enablement: string;
  groups: string[];
  topic: string;
}

export type OriginFound = { kind: 'found'; origin: TableOrigin } | { kind: 'unmapped'; reason: string };

/** The catalog, read once for every table: every enabled data set by topic, the data sources, each source's enablements when first needed. */
export class CatalogByTopic {
  private readonly enablements = new Map<string, Promise<Enablement[]>>();

  private constructor(
    private readonly client: GatewayClient,
    private readonly byTopic: Map<string, CatalogDataSet[]>,
    private readonly sources: CatalogDataSource[],
  ) {}

  static async read(client: GatewayClient): Promise<CatalogByTopic> {
    const [dataSets, sources] = await Promise.all([client.listDataSets(), client.listDataSources()]);
    const byTopic = new Map<string, CatalogDataSet[]>();
    for (const dataSet of dataSets) {
      let topic: string | undefined;
      try {
        topic = topicOf(dataSet);
      } catch {
        // A label that is no topic name names no table's topic either: such a data set maps nothing.
        continue;
      }
      if (topic !== undefined) byTopic.set(topic, [...(byTopic.get(topic) ?? []), dataSet]);
    }
    return new CatalogByTopic(client, byTopic, sources);
  }

  /** The data set whose topic the table consumes, with its data source, enablement and groups. */
  async originOf(topic: string): Promise<OriginFound> {
    const candidates = this.byTopic.get(topic) ?? [];
    if (candidates.length === 0) return { kind: 'unmapped', reason: `its topic ${serverText(topic)} is the topic of no data set in the catalog` };
    if (candidates.length > 1) return { kind: 'unmapped', reason: `its topic ${serverText(topic)} is the topic of ${candidates.length} data sets in the catalog (${candidates.map((d) => serverText(String(d.name))).join(', ')})` };
    const dataSet = candidates[0]!;
    const name = String(dataSet.name);
    const ids = parseSelfHref(selfHrefOf(dataSet) ?? '');
    if (!ids) return { kind: 'unmapped', reason: `data set ${quotedServerText(name)} of its topic has no plain self link, so its data source and enablement are unknown` };
    const source = this.sources.find((s) => s.id === ids.dataSourceId);
    if (!source) return { kind: 'unmapped', reason: `the data source ${quotedServerText(ids.dataSourceId)} of data set ${quotedServerText(name)} is not in the catalog's list of data sources` };
    let enablements = this.enablements.get(source.id);
    if (!enablements) this.enablements.set(source.id, (enablements = this.client.listEnablements(source.id)));
    const enablement = (await enablements).find((e) => e.id === ids.enablementId);
    if (!enablement) return { kind: 'unmapped', reason: `the enablement ${quotedServerText(ids.enablementId)} of data set ${quotedServerText(name)} is not among data source ${quotedServerText(source.name)}'s enablements` };
    // A manifest names the source by name unless another source has that name, or has it as its id (dpgw looks ids up first).
    const nameIsUnique = this.sources.filter((s) => s.name === source.name || s.id === source.name).length === 1;
    const origin: TableOrigin = { datasource: nameIsUnique ? source.name : source.id, dataset: name, enablement: enablement.name, groups: [...enablement.groups], topic };
    // Every name goes into the manifest, which refuses names outside the platform's rule: such a data set is left out rather than written unloadable.
    const problem =
      nameProblem('data source', origin.datasource) ?? nameProblem('data set', origin.dataset) ?? nameProblem('enablement', origin.enablement) ?? origin.groups.map((group) => nameProblem('group', group)).find((p) => p !== undefined);
    if (problem !== undefined) return { kind: 'unmapped', reason: `a manifest cannot name its data set: ${serverText(problem)}` };
    return { kind: 'found', origin };
  }
}
