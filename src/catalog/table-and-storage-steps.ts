/**
 * Steps 5 and 6 of the contract as one piece of domain code for `dpgw table create`,
 * `dpgw storage touch` and `dpgw provision`: separate copies drift (one could ask for
 * `…/storages/undefined`).
 */
import { storageTouchNeeded } from '../contract/platform-version.js';
import type { RealtimeTableDefinition } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { Accepted, GatewayClient } from '../gateway/gateway-client.js';
import { GatewayError } from '../gateway/gateway-error.js';
import { quotedServerText, serverText } from '../text/terminal-text.js';
import { isPlainSegment, parseSelfHref, unplainSelfLink } from './data-set-facts.js';

export type TableCreation = { created: true; answer: Accepted } | { created: false; message: string };

/**
 * POST the table. The store answers 409 for a table that exists: that is "exists
 * already" (unchanged), not a failure, unless the caller says it is one.
 */
export async function createTableOnce(client: GatewayClient, table: RealtimeTableDefinition, existing: 'failure', hint: string): Promise<TableCreation & { created: true }>;
export async function createTableOnce(client: GatewayClient, table: RealtimeTableDefinition, existing: 'unchanged' | 'failure', hint?: string): Promise<TableCreation>;
export async function createTableOnce(client: GatewayClient, table: RealtimeTableDefinition, existing: 'unchanged' | 'failure', hint?: string): Promise<TableCreation> {
  try {
    return { created: true, answer: await client.createTable(table) };
  } catch (error) {
    if (!(error instanceof GatewayError) || error.status !== 409) throw error;
    const message = `table ${table.tableName} exists already; nothing was changed (${error.bodyMessage || '409 Conflict'})`;
    if (existing === 'failure') throw new DpgwError('TABLE_EXISTS', message, { hint, details: error.details });
    return { created: false, message };
  }
}

/** The data set's default storage as the catalog lists it; a data set without one cannot be touched. */
export interface StorageOf {
  dataSet: string;
  selfHref?: string;
  storageId?: string;
}

export type StorageDecision = { touch: false; reason: 'not-needed' } | { touch: true; versionKnown: boolean };

/** Step 6 is needed below 1.15.165; with the version unknown it is made anyway (a harmless GET). */
export function storageDecision(version: string | undefined, force = false): StorageDecision {
  const need = storageTouchNeeded(version);
  if (need === 'not-needed' && !force) return { touch: false, reason: 'not-needed' };
  return { touch: true, versionKnown: need !== 'unknown' };
}

/** The GET of step 6, sent only with both parts of its path. */
export async function touchDefaultStorage(client: GatewayClient, storage: StorageOf): Promise<Accepted> {
  return client.touchStorage(...storagePathParts(storage));
}

export function storagePathParts(storage: StorageOf): [selfHref: string, storageId: string] {
  if (!storage.selfHref) throw new DpgwError('STORAGE_NOT_LISTED', `data set ${storage.dataSet} has no self link in the catalog, so its storage cannot be touched`, { hint: 'check the catalog entry of the data set' });
  const ids = parseSelfHref(storage.selfHref);
  if (!ids) throw unplainSelfLink(storage.dataSet, storage.selfHref);
  if (!storage.storageId) throw new DpgwError('STORAGE_NOT_LISTED', `data set ${storage.dataSet} lists no storage named "default"`, { hint: 'check the catalog entry of the data set' });
  if (!isPlainSegment(storage.storageId)) {
    throw new DpgwError('ANSWER_UNUSABLE', `the default storage id ${quotedServerText(storage.storageId)} of data set ${serverText(storage.dataSet)} is not a plain path segment`, {
      hint: 'the gateway answered an id dpgw does not put into a path; no request was sent for it — ask the platform\'s operators',
    });
  }
  // Built from the ids, not from the link's text: the request is exactly the storage of this data set.
  const seg = encodeURIComponent;
  return [`/datasources/${seg(ids.dataSourceId)}/enablements/${seg(ids.enablementId)}/datasets/${seg(ids.dataSetId)}`, storage.storageId];
}

