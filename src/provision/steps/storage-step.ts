/**
 * Step 6 of the contract: the GET of the data set's default storage that makes the
 * gateway create the store's permissions for the enablement's groups, on platforms older
 * than 1.15.165 (and when the version is unknown: a harmless GET). `dpgw storage touch`
 * and both provision modes use it.
 */
import { storageDecision, storagePathParts, touchDefaultStorage, type StorageOf } from '../../catalog/table-and-storage-steps.js';
import { paths } from '../../contract/paths.js';
import type { Accepted, GatewayClient } from '../../gateway/gateway-client.js';
import type { StepRecord } from './step-record.js';

/** `touch`: the data set's storage, known once it is enabled (`storage touch`), for the plan's request; `force` as the apply's. */
export function planStorage(version: string | undefined, touch?: { storage: StorageOf; force?: boolean }): StepRecord {
  const decision = storageDecision(version, touch?.force);
  if (!decision.touch) return { step: 'storage', action: 'skipped', reason: `not needed on platform ${version}` };
  const request = touch ? { request: { method: 'GET', path: paths.dataSetStorage(...storagePathParts(touch.storage)) } } : {};
  return { step: 'storage', action: 'read', reason: decision.versionKnown ? `GET the default storage (platform ${version})` : 'GET the default storage (platform version unknown)', ...request };
}

export interface StorageApplyInputs {
  version: string | undefined;
  /** --force: touch even where the platform creates the permissions itself. */
  force?: boolean;
  /** The enablement or the table was created in this run (this touch creates the permissions), or not; undefined: not known. */
  afterChange?: boolean;
}

export async function applyStorage(client: GatewayClient, storage: StorageOf, inputs: StorageApplyInputs): Promise<{ record: StepRecord; answer?: Accepted }> {
  const decision = storageDecision(inputs.version, inputs.force);
  if (!decision.touch) return { record: { step: 'storage', action: 'skipped', status: 'skipped', reason: `not needed on platform ${inputs.version}` } };
  const answer = await touchDefaultStorage(client, storage);
  // The answer does not say whether permissions were created ("response: not shown").
  const unknownVersion = decision.versionKnown ? '' : '; platform version unknown';
  return {
    answer,
    record:
      inputs.afterChange === true
        ? { step: 'storage', action: 'read', status: 'changed', reason: `touched the default storage: the store's permissions for the enablement's groups are created${unknownVersion}` }
        : { step: 'storage', action: 'read', status: 'accepted', reason: `touched the default storage${inputs.afterChange === false ? ' again' : ''}; the gateway does not say whether permissions were missing${unknownVersion}` },
  };
}
