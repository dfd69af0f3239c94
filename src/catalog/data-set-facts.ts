/** What the workflow reads off a catalog data set: its topic, its self link, its default storage. */
import { DEFAULT_STORAGE_NAME, SELF_LINK_REL, TOPIC_LABEL_KEY_SUFFIX } from '../contract/constants.js';
import { CATALOG_BASE } from '../contract/paths.js';
import type { CatalogDataSet, Storage } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { nameProblem } from '../names/platform-names.js';
import { holdsControlCharacter, quotedServerText, serverText } from '../text/terminal-text.js';

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
        throw new DpgwError('ANSWER_UNUSABLE', `the catalog's topic label of data set ${serverText(String(dataSet.name))} is not usable: ${problem}`, {
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

/** One segment of a link as written: URL path characters (RFC 3986 pchar), percent-escapes included; never `?`, `#`, `/` or a space. */
const RAW_SEGMENT = "[A-Za-z0-9._~!$&'()*+,;=:@%-]+";
/** A self link: `/datasources/{id}/enablements/{id}/datasets/{id}`, perhaps after the catalog base (and a proxy's prefix) or absolute; nothing after. */
const SELF_LINK = new RegExp(`^(?:https?://[A-Za-z0-9.:\\[\\]-]+)?(?:(?:/${RAW_SEGMENT})*${CATALOG_BASE.replace(/\//g, '\\/')})?/datasources/(${RAW_SEGMENT})/enablements/(${RAW_SEGMENT})/datasets/(${RAW_SEGMENT})/?$`);

/**
 * The self links a gateway writes (no host, no prefix but the catalog base), matched without SELF_LINK's
 * `(?:/segment)*`, which backtracks through every character of a link that has no prefix: 1.7 µs a link,
 * 17 ms of a 10,000-data-set listing (docs/benchmarks.md, "Catalog listing"). Every link it matches,
 * SELF_LINK matches with the same ids (the three ids are the last segments either way).
 */
const PLAIN_SELF_LINK = new RegExp(`^(?:${CATALOG_BASE.replace(/\//g, '\\/')})?/datasources/(${RAW_SEGMENT})/enablements/(${RAW_SEGMENT})/datasets/(${RAW_SEGMENT})/?$`);

/**
 * The ids in a self href, decoded, or undefined when it is not a plain catalog path: `?` or `#` (which would
 * swallow the path a request adds, and the gateway would answer for another resource), anything after the data
 * set, or an id that is not plain once decoded (an encoded `/` or `..`). Such a link is never followed.
 */
export function parseSelfHref(href: string): { dataSourceId: string; enablementId: string; dataSetId: string } | undefined {
  const match = PLAIN_SELF_LINK.exec(href) ?? SELF_LINK.exec(href);
  if (!match) return undefined;
  const dataSourceId = plainId(match[1]);
  const enablementId = plainId(match[2]);
  const dataSetId = plainId(match[3]);
  if (dataSourceId === undefined || enablementId === undefined || dataSetId === undefined) return undefined;
  return { dataSourceId, enablementId, dataSetId };
}

/** One id of a self link, decoded, if it stands as a plain segment. */
function plainId(raw: string | undefined): string | undefined {
  const id = decodedSegment(raw);
  return id !== undefined && isPlainSegment(id) ? id : undefined;
}

function decodedSegment(raw: string | undefined): string | undefined {
  try {
    // Without a `%` there is nothing to decode: 30,000 calls saved on a 10,000-data-set listing.
    return raw === undefined ? undefined : raw.includes('%') ? decodeURIComponent(raw) : raw;
  } catch {
    return undefined;
  }
}

/**
 * Whether an id (decoded) can stand as one segment of a path dpgw requests, once encoded: not empty, `.` or `..`,
 * and no `/`, `\`, `?`, `#`, `%`, white space at its ends or control character, which a proxy or a server could
 * read as structure.
 */
export function isPlainSegment(id: string): boolean {
  return id !== '' && id !== '.' && id !== '..' && !/[/\\?#%]/.test(id) && id.trim() === id && !holdsControlCharacter(id);
}

/** The refusal of a self link that is not a plain catalog path. */
export function unplainSelfLink(dataSet: string, href: string): DpgwError {
  return new DpgwError('ANSWER_UNUSABLE', `the self link ${quotedServerText(href)} of data set ${serverText(dataSet)} is not a plain catalog path (/datasources/{id}/enablements/{id}/datasets/{id}, nothing after)`, {
    hint: 'the gateway answered a link dpgw does not follow; nothing was sent to it — ask the platform\'s operators',
  });
}
