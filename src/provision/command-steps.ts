/**
 * The step lists of the single commands — `schema push`, `storage touch`, `table delete`,
 * `enable`, `table create` — for the one executor (executor.ts) to walk: in plan mode for
 * `--dry-run` (the records' requests are printed), in apply mode for the run. Each step is the
 * same plan and apply halves (steps/*.ts) provision's data sets walk (data-set-steps.ts), with
 * the command's own inputs; what a half returns besides its record (the gateway's answer) is
 * kept on the inputs, as provision keeps its facts on its data set's work.
 */
import type { AnalyticsSchema } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { Accepted, GatewayClient } from '../gateway/gateway-client.js';
import type { StorageOf } from '../catalog/table-and-storage-steps.js';
import type { Step, StepWalk } from './executor.js';
import { applySchema, planSchema, refusedSchemaRecord } from './steps/schema-step.js';
import { applyStorage, planStorage } from './steps/storage-step.js';
import { applyDeletion, planDeletion, type DeletionApplyInputs, type DeletionTarget } from './steps/delete-step.js';
import type { StepRecord } from './steps/step-record.js';

/** The apply's error as the command's, as it was before the walk: the record is the walk's, the exit code the error's. */
export function failureOf(walked: StepWalk): unknown {
  if (walked.outcome === 'interrupted') {
    const stopped = walked.steps.find((record) => record.status === 'sent') ?? walked.steps[0];
    return new DpgwError('INTERRUPTED', `stopped: ${stopped?.reason ?? 'the command was interrupted'}`, { hint: 'run the same command again to finish: it is safe to repeat' });
  }
  if (!walked.error) return undefined;
  // A failure dpgw does not know is the original error, not the walk's wrapping of it.
  return walked.error.errorCode === 'UNEXPECTED_FAILURE' && walked.error.cause !== undefined ? walked.error.cause : walked.error;
}

/** The record of the step `name`, which the walk always holds. */
export function recordOf(walked: StepWalk, name: StepRecord['step']): StepRecord {
  return walked.steps.find((record) => record.step === name)!;
}

export interface SchemaPushInputs {
  client: GatewayClient;
  schema: AnalyticsSchema;
  olapSegment: string;
  /** The schema's file, for a refusal. */
  where: string;
  /** Set by the apply: the gateway's answer to the POST, when one was sent. */
  answer?: Accepted;
}

/** `schema push`: provision's schema step, compared with the store first, so the same schema sends nothing and one the store would refuse is refused. */
export const SCHEMA_PUSH_STEPS: readonly Step<SchemaPushInputs>[] = [
  {
    name: 'schema',
    needs: [],
    attempts: 'create',
    stopsBefore: true,
    plan: async (inputs) => (await planSchema(inputs.client, { schema: inputs.schema, olapSegment: inputs.olapSegment })).record,
    async apply(inputs) {
      const { record, answer } = await applySchema(inputs.client, { schema: inputs.schema, where: inputs.where, refusedHint: 'nothing was sent' });
      inputs.answer = answer;
      return record;
    },
    refusal: (error, mode) => (error.errorCode === 'SCHEMA_CHANGE_REFUSED' ? refusedSchemaRecord(error, mode === 'apply') : undefined),
  },
];

/** A schema push's plan when the store cannot be read: the POST, not compared (the plan half given what a gateway without reads gives). */
export async function unreadSchemaPush(inputs: Omit<SchemaPushInputs, 'client'>, why: string): Promise<StepRecord> {
  const noReads = undefined as unknown as GatewayClient;
  return (await planSchema(noReads, { schema: inputs.schema, olapSegment: inputs.olapSegment, known: { change: 'not-compared', lines: [], why } })).record;
}

export interface StorageTouchInputs {
  client: GatewayClient;
  storage: StorageOf;
  version: string | undefined;
  force: boolean;
  answer?: Accepted;
}

/** `storage touch`: provision's storage step, for the data set given. */
export const STORAGE_TOUCH_STEPS: readonly Step<StorageTouchInputs>[] = [
  {
    name: 'storage',
    needs: [],
    attempts: 'read',
    stopsBefore: true,
    plan: async (inputs) => planStorage(inputs.version, { storage: inputs.storage, force: inputs.force }),
    async apply(inputs) {
      const { record, answer } = await applyStorage(inputs.client, inputs.storage, { version: inputs.version, force: inputs.force });
      inputs.answer = answer;
      return record;
    },
  },
];

export interface DeletionInputs extends DeletionApplyInputs {
  client: GatewayClient;
  target: DeletionTarget;
  olapSegment: string;
  /** Set by the plan: the record, with the request and the owner, that the apply's record is shown with. */
  planned?: StepRecord;
}

/** `table delete` and `schema delete`: read first (exit 9 for nothing of that name, a schema in use refused), then DELETE and wait until the store has dropped it. */
export const DELETION_STEPS = (kind: DeletionTarget['kind']): readonly Step<DeletionInputs>[] => [
  {
    name: kind,
    needs: [],
    attempts: 'delete',
    stopsBefore: true,
    async plan(inputs) {
      const { record, seen } = await planDeletion(inputs.client, inputs.target, inputs.olapSegment);
      inputs.planned = record;
      inputs.seenBefore = seen;
      return record;
    },
    apply: async (inputs) => applyDeletion(inputs.client, inputs.target, inputs),
  },
];
