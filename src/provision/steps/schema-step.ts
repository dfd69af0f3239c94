/**
 * Step 4 of the contract by what the store holds: the same schema is "unchanged" (nothing
 * sent), a new one is created, added columns are sent again (the store takes a
 * backward-compatible schema under its name), a change the store would refuse is refused
 * before anything is sent, and a gateway without reads gets the POST as before
 * ("accepted"). `dpgw schema push` and both provision modes use it.
 */
import { paths } from '../../contract/paths.js';
import type { AnalyticsSchema } from '../../contract/types.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import type { Accepted, GatewayClient } from '../../gateway/gateway-client.js';
import { compareSchema, incompatibleSchemaMessage, type LiveComparison } from '../live-state.js';
import type { PlanAction, StepRecord } from './step-record.js';

export function schemaAction(change: LiveComparison['change']): PlanAction {
  return change === 'incompatible' ? 'refused' : change;
}

/** The refusal of a schema the store would not take, as the error that fails its data set (or `schema push`). */
export function refusedSchemaError(schemaName: string, live: LiveComparison, where: string | undefined, hint: string): DpgwError {
  return new DpgwError('SCHEMA_CHANGE_REFUSED', incompatibleSchemaMessage(schemaName, live.lines), { where, hint, details: { difference: live.lines } });
}

/** The schema step of a data set refused for a schema the store would not take (refusedSchemaError): in a plan, or failed in a run. */
export function refusedSchemaRecord(refusal: DpgwError, run: boolean): StepRecord {
  const lines = Array.isArray(refusal.details?.difference) ? (refusal.details.difference as string[]) : undefined;
  return run
    ? { step: 'schema', action: 'refused', status: 'failed', reason: refusal.toLine(), ...(lines ? { difference: lines } : {}) }
    : { step: 'schema', action: 'refused', reason: `refused, nothing of this data set is sent: ${refusal.message}`, ...(lines?.length ? { difference: lines } : {}) };
}

export interface SchemaPlanInputs {
  schema: AnalyticsSchema;
  olapSegment: string;
  /** Compared before the run already (provision reads each schema once). */
  known?: LiveComparison;
  /** "inferred from 200 messages of topic …", and the schema as it would be sent. */
  inferred?: { detail: string; text: string };
}

export async function planSchema(client: GatewayClient, inputs: SchemaPlanInputs): Promise<{ record: StepRecord; live: LiveComparison }> {
  const live = inputs.known ?? (await compareSchema(client, inputs.schema));
  return { live, record: schemaPlanRecord(live, inputs) };
}

/** The plan's record once the store's schema is compared (or could not be): the request only when the run would send it. */
export function schemaPlanRecord(live: LiveComparison, inputs: Omit<SchemaPlanInputs, 'known'>): StepRecord {
  const { schema, inferred } = inputs;
  const sends = live.change === 'create' || live.change === 'update' || live.change === 'not-compared';
  return {
    step: 'schema',
    action: schemaAction(live.change),
    reason: `${schemaPlanText(live, schema.schemaName)}${inferred ? ` ${inferred.detail}` : ''}`,
    ...(live.lines.length ? { difference: live.lines } : {}),
    ...(sends ? { request: { method: 'POST', path: paths.olapSchemas(inputs.olapSegment), body: schema } } : {}),
    ...(inferred ? { shown: inferred.text } : {}),
  };
}

/** The plan's step for a schema inferred from a topic that does not exist yet. */
export function plannedInferredSchema(schemaName: string, dataSet: string, sample: number): StepRecord {
  return { step: 'schema', action: 'create', reason: `POST schema ${schemaName}, inferred from the first ${sample} messages of the topic once ${dataSet} is enabled` };
}

export interface SchemaApplyInputs {
  schema: AnalyticsSchema;
  known?: LiveComparison;
  inferred?: string;
  /** Where the schema comes from, for a refusal (a file, a manifest's line). */
  where?: string;
  /** What a refusal left unsent. */
  refusedHint: string;
}

export async function applySchema(client: GatewayClient, inputs: SchemaApplyInputs): Promise<{ record: StepRecord; answer?: Accepted; live: LiveComparison }> {
  const { schema } = inputs;
  const live = inputs.known ?? (await compareSchema(client, schema));
  const name = `schema ${schema.schemaName}${inputs.inferred ? ` ${inputs.inferred};` : ''}`;
  if (live.change === 'none') return { live, record: { step: 'schema', action: 'none', status: 'unchanged', reason: `${name} matches the store; nothing was sent` } };
  if (live.change === 'incompatible') throw refusedSchemaError(schema.schemaName, live, inputs.where, inputs.refusedHint);
  const answer = await client.createSchema(schema);
  if (live.change === 'create') return { answer, live, record: { step: 'schema', action: 'create', status: 'changed', reason: `${name} created` } };
  if (live.change === 'update') {
    return { answer, live, record: { step: 'schema', action: 'update', status: 'changed', reason: `${name} updated`, difference: live.lines } };
  }
  return { answer, live, record: { step: 'schema', action: 'not-compared', status: 'accepted', reason: `${name} accepted; not compared: ${live.why}` } };
}

function schemaPlanText(live: LiveComparison, schemaName: string): string {
  switch (live.change) {
    case 'create':
      return `POST schema ${schemaName} (new)`;
    case 'none':
      return `schema ${schemaName}: no changes`;
    case 'update':
      return `POST schema ${schemaName} again: the store takes added columns`;
    case 'incompatible':
      return `refused, nothing of this data set is sent: ${incompatibleSchemaMessage(schemaName, live.lines)}`;
    case 'not-compared':
      return `POST schema ${schemaName}; not compared: ${live.why}`;
  }
}
