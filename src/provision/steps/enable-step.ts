/**
 * Step 2 of the contract: the enablement (created when missing) and the data set enabled
 * in it, then the wait for its topic. `dpgw enable` and both provision modes use it.
 */
import { enableDataSet, type EnableRequest, type EnableResult } from '../../catalog/enable-data-set.js';
import { parseSelfHref, selfHrefOf, topicOf } from '../../catalog/data-set-facts.js';
import type { CatalogDataSet } from '../../contract/types.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import type { GatewayClient } from '../../gateway/gateway-client.js';
import type { StepRecord } from './step-record.js';
import { StepInterrupted } from './step-interrupted.js';

export interface EnablePlan {
  record: StepRecord;
  enablement: string;
  /** The data source and the enablement as the catalog's reads found them (`enable --dry-run --json` shows them). */
  found: Pick<EnableResult, 'dataSource' | 'enablement'>;
  /** The topic, when the data set is enabled already. */
  topic?: string;
}

/** What the step would do, from the catalog's reads (the data sets listed once per plan, or, for one data set, after its source's reads). */
export async function planEnable(client: GatewayClient, request: EnableRequest, listed: readonly CatalogDataSet[] | (() => Promise<readonly CatalogDataSet[]>)): Promise<EnablePlan> {
  const { dataSource, enablement, planned = [] } = await enableDataSet(client, { ...request, dryRun: true });
  const enabledAlready = (typeof listed === 'function' ? await listed() : listed).find((d) => d.name === request.dataSet && parseSelfHref(selfHrefOf(d) ?? '')?.enablementId === enablement.id);
  const topic = enabledAlready ? topicOf(enabledAlready) : undefined;
  const enablementPart = enablement.created ? `create enablement ${enablement.name} for ${enablement.groups.join(', ')}` : `reuse enablement ${enablement.name}`;
  return {
    enablement: enablement.name,
    found: { dataSource, enablement },
    topic,
    record: {
      step: 'enable',
      action: enablement.created || topic === undefined ? 'create' : 'none',
      reason: `${enablementPart}; ${topic ? `${request.dataSet} is enabled already (topic ${topic})` : `enable ${request.dataSet} and wait for its topic`}`,
      // Enabled already in an enablement that exists: nothing is sent.
      ...(topic !== undefined ? {} : planned.length === 1 ? { request: planned[0] } : { requests: planned }),
    },
  };
}

/** Enables the data set and waits for its topic; a stop during the wait is a StepInterrupted that tells what was sent. */
export async function applyEnable(client: GatewayClient, request: EnableRequest): Promise<{ record: StepRecord; result: EnableResult }> {
  let result: EnableResult;
  try {
    result = await enableDataSet(client, request);
  } catch (error) {
    if (error instanceof DpgwError && error.kind === 'interrupted') {
      const done = error.details as { enablement?: string; enablementCreated?: boolean; enabled?: boolean } | undefined;
      if (done?.enabled) {
        throw new StepInterrupted({
          step: 'enable',
          action: 'create',
          status: 'sent',
          reason: `${done.enablementCreated ? 'created' : 'reused'} enablement ${done.enablement}; enabled ${request.dataSet}; stopped before its topic appeared, so the outcome is unknown`,
        });
      }
    }
    throw error;
  }
  const changed = result.enablement.created || result.change === 'enabled';
  return {
    result,
    record: {
      step: 'enable',
      action: changed ? 'create' : 'none',
      status: changed ? 'changed' : 'unchanged',
      reason: `${result.enablement.created ? 'created' : 'reused'} enablement ${result.enablement.name}; ${result.change === 'already' ? 'already enabled' : 'enabled'}; topic ${result.topic}`,
    },
  };
}
