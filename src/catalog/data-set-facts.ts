/** What the workflow reads off a catalog data set: its topic, its self link, its default storage. */
import { DEFAULT_STORAGE_NAME, SELF_LINK_REL, TOPIC_LABEL_KEY_SUFFIX } from '../contract/constants.js';
import type { CatalogDataSet, Storage } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { nameProblem } from '../names/platform-names.js';
import { serverText } from '../text/terminal-text.js';

/**
 * The topic name: the label whose key ends in `/dataset` (in `labels` or `metadata.labels`).
 * It goes into a table definition and onto the terminal, so a label that is no topic name
 * (a quote that would end the JSON string, a control character) is refused, not used.
 */
export function topicOf(dataSet: CatalogDataSet): string | undefined {
  for (const labels of [dataSet.labels, dataSet.metadata?.labels]) {
    if (!labels) continue;
    for (const [key, value] of Object.entries(labels)) {
      if (!(key.endsWith(TOPIC_LABEL_KEY_SUFFIX) && typeof value === 'string' && value !== '')) continue;
      const problem = nameProblem('topic', value);
      if (problem !== undefined) {
        throw new DpgwError('rejected', `the catalog's topic label of data set ${serverText(String(dataSet.name))} is not usable: ${problem}`, {
          hint: "the gateway answered a topic label no table can consume; nothing was sent for this data set's table — ask the platform's operators",
        });
      }
      return value;
    }
  }
  return undefined;
}

/** The href of the `self` link: `/datasources/{ds}/enablements/{en}/datasets/{id}`. */
export function selfHrefOf(dataSet: CatalogDataSet): string | undefined {
  return dataSet.links?.find((link) => link.rel === SELF_LINK_REL)?.href;
}

/** The storage named `default`, the one the workflow uses. */
export function defaultStorageOf(dataSet: CatalogDataSet): Storage | undefined {
  return dataSet.storage?.find((storage) => storage.name === DEFAULT_STORAGE_NAME);
}

/** The ids in a self href, for messages and for choosing among enablements. */
export function parseSelfHref(href: string): { dataSourceId: string; enablementId: string; dataSetId: string } | undefined {
  const match = /\/datasources\/([^/]+)\/enablements\/([^/]+)\/datasets\/([^/]+)\/?$/.exec(href);
  if (!match) return undefined;
  const [, dataSourceId, enablementId, dataSetId] = match.map((part) => decodeURIComponent(part));
  return { dataSourceId: dataSourceId!, enablementId: enablementId!, dataSetId: dataSetId! };
}
