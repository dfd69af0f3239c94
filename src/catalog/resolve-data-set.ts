/**
 * Finds an enabled data set in the catalog by name: its self link, default
 * storage and topic. Says what to do when it is not enabled yet, or when it is
 * enabled in several enablements.
 */
import type { CatalogDataSet } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { closestMatch } from '../text/closest-match.js';
import { serverText } from '../text/terminal-text.js';
import { defaultStorageOf, parseSelfHref, selfHrefOf, topicOf, unplainSelfLink } from './data-set-facts.js';

export interface ResolvedDataSet {
  dataSet: CatalogDataSet;
  selfHref: string;
  dataSourceId: string;
  enablementId: string;
  /** Known when the catalog was asked for enablement names. */
  enablementName?: string;
  storageId?: string;
  topic?: string;
}

export async function resolveDataSet(client: GatewayClient, name: string, enablement?: string): Promise<ResolvedDataSet> {
  const all = await client.listDataSets();
  const listed = all.filter((d) => d.name === name);
  const candidates = listed.flatMap((dataSet): ResolvedDataSet[] => {
    const selfHref = selfHrefOf(dataSet);
    const ids = selfHref ? parseSelfHref(selfHref) : undefined;
    // A link dpgw will not follow is the gateway's fault, said as such, not "not enabled".
    if (selfHref && !ids) throw unplainSelfLink(name, selfHref);
    if (!selfHref || !ids) return [];
    return [{ dataSet, selfHref, dataSourceId: ids.dataSourceId, enablementId: ids.enablementId, storageId: defaultStorageOf(dataSet)?.id, topic: topicOf(dataSet) }];
  });
  if (candidates.length === 0) {
    // A misspelt name (`trak`) gets the nearest enabled one, not advice to enable what the user never meant.
    const near = listed.length ? undefined : closestMatch(name, [...new Set(all.filter((d) => selfHrefOf(d)).map((d) => d.name))]);
    throw new DpgwError('DATA_SET_NOT_ENABLED', `data set "${name}" is not enabled: the catalog lists no enabled data set of that name${listed.length ? ' with a self link' : ''}`, {
      where: '--dataset',
      hint: near ? serverText(`did you mean "${near}"?`) : `run \`dpgw enable --datasource <source> --dataset ${name} --group <group>\` first (it waits for the topic)`,
    });
  }
  if (candidates.length === 1 && enablement === undefined) return candidates[0]!;

  // Several enablements (or one was named): name them, which needs the enablements' names.
  const names = await enablementNames(client, candidates);
  for (const candidate of candidates) candidate.enablementName = names.get(candidate.enablementId);
  if (enablement !== undefined) {
    const chosen = candidates.filter((c) => c.enablementId === enablement || c.enablementName === enablement);
    if (chosen.length === 1) return chosen[0]!;
    throw new DpgwError('ENABLEMENT_NOT_FOUND', `data set "${name}" is not enabled in an enablement "${enablement}"`, { where: '--enablement', hint: `it is enabled in: ${describe(candidates)}` });
  }
  throw new DpgwError('ENABLEMENT_AMBIGUOUS', `data set "${name}" is enabled in ${candidates.length} enablements`, { where: '--dataset', hint: `choose one with --enablement: ${describe(candidates)}` });
}

/** The topic feeding an enabled data set: its catalog label, or a one-line error that says to pass --topic. */
export async function topicOfDataSet(client: GatewayClient, name: string, enablement?: string): Promise<string> {
  const { topic } = await resolveDataSet(client, name, enablement);
  if (topic === undefined) throw new DpgwError('TOPIC_LABEL_MISSING', `data set "${name}" has no topic label (a label whose key ends in /dataset)`, { where: '--dataset', hint: 'pass the topic with --topic <name>' });
  return topic;
}

async function enablementNames(client: GatewayClient, candidates: ResolvedDataSet[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const dataSourceId of new Set(candidates.map((c) => c.dataSourceId))) {
    try {
      for (const enablement of await client.listEnablements(dataSourceId)) names.set(enablement.id, enablement.name);
    } catch {
      // Names only make the message friendlier; ids work as well.
    }
  }
  return names;
}

function describe(candidates: ResolvedDataSet[]): string {
  return candidates.map((c) => (c.enablementName ? `${c.enablementName} (${c.enablementId})` : c.enablementId)).join(', ');
}
