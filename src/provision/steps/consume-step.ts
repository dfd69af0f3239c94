/**
 * The proof after a table is created that the store consumes its topic: every partition
 * CONSUMING, or the first error the store reports (the step fails). `dpgw table create`
 * and both provision modes use it.
 */
import { DpgwError } from '../../errors/dpgw-error.js';
import type { GatewayClient } from '../../gateway/gateway-client.js';
import { consumptionText, waitUntilConsuming, type Consumption } from '../../olap/consumption.js';
import { diagnoseNoRows, findingLine, type Finding } from '../../olap/no-rows-diagnosis.js';
import { readPauseState } from '../../olap/pause-state.js';
import { readTableStatus } from '../../olap/table-status.js';
import type { StepRecord } from './step-record.js';
import { StepInterrupted } from './step-interrupted.js';

export function planConsume(waitMs: number): StepRecord {
  if (waitMs <= 0) return { step: 'consume', action: 'skipped', reason: 'consumption not checked (--wait-consuming 0)' };
  return { step: 'consume', action: 'wait', reason: `wait up to ${waitMs / 1000} s for the store to consume every partition of the topic` };
}

export interface ConsumeInputs {
  tableName: string;
  topic: string;
  waitMs: number;
  /** The topic's partitions, when the stream pre-flight found them. */
  partitions?: number;
  signal?: AbortSignal;
  /** How the failure begins: "table t does not consume" or "table t was created but does not consume". */
  created?: boolean;
}

export async function applyConsume(client: GatewayClient, inputs: ConsumeInputs): Promise<{ record: StepRecord; consumption: Consumption }> {
  const { tableName, topic } = inputs;
  if (inputs.waitMs <= 0) {
    const consumption: Consumption = { state: 'not-checked', why: 'not asked (--wait-consuming 0)' };
    return { consumption, record: { step: 'consume', action: 'skipped', status: 'skipped', reason: 'consumption not checked (--wait-consuming 0)' } };
  }
  const consumption = await waitUntilConsuming(client, tableName, { partitions: inputs.partitions, timeoutMs: inputs.waitMs, signal: inputs.signal });
  if (consumption.state === 'consuming') {
    return { consumption, record: { step: 'consume', action: 'wait', status: 'passed', reason: `table ${tableName} is ${consumptionText(consumption)} of topic ${topic}`, facts: { consuming: consumption.consuming, partitions: consumption.partitions } } };
  }
  if (consumption.state === 'not-checked') return { consumption, record: { step: 'consume', action: 'wait', status: 'skipped', reason: consumptionText(consumption) } };
  // Ctrl-C or SIGTERM cut the wait short: the table was sent, whether it consumes is not known.
  if (inputs.signal?.aborted) throw new StepInterrupted({ step: 'consume', action: 'wait', status: 'sent', reason: `stopped while waiting for table ${tableName} to consume topic ${topic}: the outcome is unknown` });
  const diagnosis = await storeDiagnosis(client, tableName);
  throw new DpgwError('NOT_CONSUMING', `table ${tableName}${inputs.created ? ' was created but' : ''} does not consume topic ${topic}: ${consumptionText(consumption)}`, {
    // The first finding is the hint; the reporter lists the rest, one line each (details.diagnosis).
    hint: diagnosis.length > 0 ? `diagnosis: ${findingLine(diagnosis[0]!)}` : `the store's server log says why; check the stream settings the table carries (dpgw table get ${tableName}), or wait longer with --wait-consuming <seconds>`,
    details: { consumption, ...(diagnosis.length > 0 ? { diagnosis } : {}) },
  });
}

/**
 * Why the table does not consume, from the store's own reads only (`table status`'s rules
 * without the topic's offsets or a sample: the step has no stream reader of its own). A read
 * that fails leaves no finding: the step's failure is the answer, the diagnosis its help.
 */
async function storeDiagnosis(client: GatewayClient, tableName: string): Promise<Finding[]> {
  try {
    const [status, pause] = await Promise.all([readTableStatus(client, tableName), readPauseState(client, tableName)]);
    return await diagnoseNoRows({ status, pause, streamFromHere: { read: false, why: 'not read by the consumption check' } });
  } catch (error) {
    // A read the store refused or does not expose: no finding. Anything else is a fault of dpgw's, not an answer.
    if (!(error instanceof DpgwError)) throw error;
    return [];
  }
}
