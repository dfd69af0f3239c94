/**
 * The step lists of the single commands — `schema push`, `storage touch`, `table delete`,
 * `enable`, `table create` — for the one executor (executor.ts) to walk: in plan mode for
 * `--dry-run` (the records' requests are printed), in apply mode for the run. Each step is the
 * same plan and apply halves (steps/*.ts) provision's data sets walk (data-set-steps.ts), with
 * the command's own inputs; what a half returns besides its record (the gateway's answer) is
 * kept on the inputs, as provision keeps its facts on its data set's work.
 */
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { Accepted, GatewayClient } from '../gateway/gateway-client.js';
import type { StorageOf } from '../catalog/table-and-storage-steps.js';
import type { Step, StepWalk, StepWalkControl } from './executor.js';
import { applySchema, planSchema, refusedSchemaRecord, schemaPlanRecord } from './steps/schema-step.js';
import { applyReload, planReload, type ReloadSettings, type ReloadTarget } from './steps/reload-step.js';
import type { LiveComparison } from './live-state.js';
import { applyStorage, planStorage } from './steps/storage-step.js';
import { applyDeletion, planDeletion, type DeletionApplyInputs, type DeletionTarget } from './steps/delete-step.js';
import type { StepRecord } from './steps/step-record.js';
import { everyDataSetListed, newCatalogCache, type EnableRequest, type EnableResult } from '../catalog/enable-data-set.js';
import { applyEnable, planEnable, type EnablePlan } from './steps/enable-step.js';
import { applyStream, planStream, type StreamChecked } from './steps/stream-step.js';
import { applySample, planSample, SAMPLE_CHECK_OFF, sampleCheckSkipped, sampleSkippedWithStream, type SampleCheck, type SampleIgnore } from './steps/sample-step.js';
import { applyTable, differingTableRecord, existingTableBeforeCreate, planTableCreate } from './steps/table-step.js';
import { applyConsume, planConsume } from './steps/consume-step.js';
import { SKIP_STREAM_CHECK_FLAG, streamCheckSkipped, type StreamPreflight } from '../stream/stream-preflight.js';
import type { Consumption } from '../olap/consumption.js';
import { plural } from '../text/plural.js';
import { readLocatedDocument } from '../olap/located-document.js';
import { readTemplate } from '../olap/table-template.js';
import { StoreValidation, withSchemaJudgement, withStoreJudgement } from './store-validation.js';

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

export interface EnableInputs {
  client: GatewayClient;
  request: EnableRequest;
  /** Set by the apply: the enablement, the topic, the data set's links. */
  result?: EnableResult;
  /** Set by the plan: the data source and the enablement the catalog's reads found. */
  found?: EnablePlan['found'];
}

/** `enable`: provision's enable step, for the data set given. */
export const ENABLE_STEPS: readonly Step<EnableInputs>[] = [
  {
    name: 'enable',
    needs: [],
    attempts: 'create',
    stopsBefore: false,
    async plan(inputs) {
      const { client, request } = inputs;
      // The catalog's reads shared: the data source, its enablements and its data sets asked once.
      const catalogCache = request.catalogCache ?? newCatalogCache('call');
      const planned = { ...request, catalogCache };
      const plan = await planEnable(client, planned, () => everyDataSetListed(client, catalogCache));
      inputs.found = plan.found;
      return plan.record;
    },
    async apply(inputs) {
      const { record, result } = await applyEnable(inputs.client, inputs.request);
      inputs.result = result;
      return record;
    },
  },
];

export interface SchemaPushInputs {
  client: GatewayClient;
  schema: AnalyticsSchema;
  olapSegment: string;
  /** The schema's file, for a refusal. */
  where: string;
  /** `--wait-reload` (ms) and `--force-commit`: the reload of the schema's table when the push adds columns. */
  reload: { waitMs: number; forceCommit: boolean };
  /** The plan's warnings: properties the store does not recognise, or that it was not asked. */
  warn?: (line: string) => void;
  /** Set by the apply: the gateway's answer to the POST, when one was sent. */
  answer?: Accepted;
  /** Set by the schema step: the columns the push adds, and whether the store holds the table of the schema's name. */
  addedColumns?: readonly string[];
  tableFound?: boolean;
}

/** The columns a push adds, and (only then) whether the table of the schema's name is there: the store links a table to the schema of its name (build-table.ts). */
async function notePushed(inputs: SchemaPushInputs, live: LiveComparison): Promise<void> {
  inputs.addedColumns = live.change === 'update' ? (live.schemaDiff?.added.map((column) => column.name) ?? []) : [];
  if (inputs.addedColumns.length > 0) inputs.tableFound = (await inputs.client.getTable(inputs.schema.schemaName)).kind === 'found';
}

function pushReloadTarget(inputs: SchemaPushInputs): ReloadTarget {
  return { tableName: inputs.schema.schemaName, addedColumns: inputs.addedColumns ?? [] };
}

function pushReloadSettings(inputs: SchemaPushInputs): ReloadSettings {
  return { olapSegment: inputs.olapSegment, waitMs: inputs.reload.waitMs, forceCommit: inputs.reload.forceCommit };
}

/** `schema push`: provision's schema step, compared with the store first, so the same schema sends nothing and one the store would refuse is refused. */
export const SCHEMA_PUSH_STEPS: readonly Step<SchemaPushInputs>[] = [
  {
    name: 'schema',
    needs: [],
    attempts: 'create',
    stopsBefore: true,
    async plan(inputs) {
      const { record, live } = await planSchema(inputs.client, { schema: inputs.schema, olapSegment: inputs.olapSegment });
      await notePushed(inputs, live);
      // What the push would send, held against the store's own checks (issue #47 §3).
      const places = { schemaEntry: () => inputs.where, tableEntry: () => inputs.where, schemaSource: async () => ({ document: await readLocatedDocument(inputs.where, 'schema file'), prefix: [] }) };
      return withSchemaJudgement(record, inputs.schema, { validation: new StoreValidation(inputs.client, inputs.warn ?? (() => undefined)), places });
    },
    async apply(inputs) {
      const { record, answer, live } = await applySchema(inputs.client, { schema: inputs.schema, where: inputs.where, refusedHint: 'nothing was sent' });
      inputs.answer = answer;
      await notePushed(inputs, live);
      return record;
    },
    refusal: (error, mode) => (error.errorCode === 'SCHEMA_CHANGE_REFUSED' ? refusedSchemaRecord(error, mode === 'apply') : undefined),
  },
  {
    // provision's reload, for the table of the schema's name: a push that adds columns finishes as provision's does.
    name: 'reload',
    needs: ['schema'],
    attempts: 'update',
    stopsBefore: true,
    concerns: (inputs) => (inputs.addedColumns?.length ?? 0) > 0 && inputs.tableFound === true,
    plan: async (inputs) => planReload(pushReloadTarget(inputs), pushReloadSettings(inputs)),
    apply: async (inputs) => (await applyReload(inputs.client, pushReloadTarget(inputs), pushReloadSettings(inputs))).record,
  },
];

/** A schema push's plan when the store cannot be read: the POST, not compared. */
export function unreadSchemaPush(inputs: Pick<SchemaPushInputs, 'schema' | 'olapSegment'>, why: string): StepRecord {
  return schemaPlanRecord({ change: 'not-compared', lines: [], why }, { schema: inputs.schema, olapSegment: inputs.olapSegment });
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

export interface TableCreateInputs {
  client: GatewayClient;
  table: RealtimeTableDefinition;
  topic: string;
  olapSegment: string;
  /** The schema given as a file (the store must hold it before the table is sent); undefined when given by name. */
  schema?: AnalyticsSchema;
  schemaName: string;
  /** `--schema` as given, where a misfit of the messages is said. */
  schemaGiven: string;
  /** `--template`, where a property the store does not recognise is said. */
  templateFile?: string;
  /** The stream pre-flight; undefined with `--stream-check off`. */
  preflight?: StreamPreflight;
  /** The sample check; undefined when off (`--no-sample-check`, `--stream-check off`). */
  sampleCheck?: SampleCheck;
  ignore?: SampleIgnore;
  waitMs: number;
  /** What `table create` says as it goes. */
  info: (line: string) => void;
  warn: (line: string) => void;
  success: (line: string) => void;
  /** Set by the walk: the stream step's outcome, the gateway's answer to the POST, the consumption found. */
  stream?: StreamChecked;
  answer?: Accepted;
  consumption?: Consumption;
}

/** What a table that exists needs, as table create refuses it. */
export const TABLE_EXISTS_HINT = 'use it as it is, or choose another name with --name';

/**
 * `table create` of a table the store holds: compared before the walk's first step, so a
 * re-run of the same request touches neither brokers nor the store (settled), and one that
 * differs is refused with nothing sent; both modes walk with it (plan for --dry-run).
 */
export async function tableCreateControl(inputs: Pick<TableCreateInputs, 'client' | 'table'>): Promise<StepWalkControl> {
  // The stream password is read before the walk when the table needs one: the comparison sees it as the store holds it.
  const existing = await existingTableBeforeCreate(inputs.client, inputs.table, true);
  return existing?.settled ? { settledBeforeRun: existing.settled } : existing?.refused ? { refusedBeforeRun: existing.refused } : {};
}

/**
 * `table create`: provision's stream pre-flight, sample check, table and consumption steps,
 * with the check that the store holds the schema file's schema (the store would refuse the
 * table otherwise) as its schema step; a table that exists is an error, never updated.
 */
export const TABLE_CREATE_STEPS: readonly Step<TableCreateInputs>[] = [
  {
    name: 'stream',
    needs: [],
    attempts: 'check',
    stopsBefore: false,
    async plan(inputs) {
      const record = await planStream(inputs.preflight);
      inputs.stream = { record, ...(record.action === 'skipped' ? { skippedBecause: record.reason } : {}) };
      return record;
    },
    // Before anything of the table is sent: would the store consume its topic?
    async apply(inputs) {
      try {
        inputs.stream = await applyStream(inputs.preflight, inputs.topic, inputs.table.tableName);
      } finally {
        await inputs.preflight?.close();
      }
      const { facts, skippedBecause } = inputs.stream;
      if (facts) inputs.info(`stream checked: ${inputs.preflight!.describe()} signed in; topic ${inputs.topic} has ${plural(facts.partitions, 'partition')}`);
      else if (skippedBecause !== undefined) inputs.warn(streamCheckSkipped(skippedBecause, 'one'));
      else inputs.warn(`stream not checked (${SKIP_STREAM_CHECK_FLAG}): nothing tells whether the store can consume topic ${inputs.topic} before the table is sent`);
      return inputs.stream.record;
    },
  },
  {
    name: 'sample',
    needs: ['stream'],
    attempts: 'check',
    stopsBefore: false,
    async plan(inputs) {
      const skipped = sampleSkippedWithStream(inputs.stream?.skippedBecause, inputs.sampleCheck, 'plan');
      if (skipped) return skipped;
      if (!inputs.sampleCheck) return planSample(undefined, SAMPLE_CHECK_OFF, inputs.topic, inputs.schema, inputs.table, inputs.ignore);
      const schema = inputs.schema ?? (await storedSchema(inputs.client, inputs.schemaName));
      if (!schema) return { step: 'sample', action: 'skipped', reason: `would be skipped: schema ${inputs.schemaName} could not be read from the store` };
      return planSample(inputs.sampleCheck, SAMPLE_CHECK_OFF, inputs.topic, schema, inputs.table, inputs.ignore);
    },
    // The topic's messages held against the schema before the table is sent: a column none carries would stay empty.
    async apply(inputs) {
      const skipped = sampleSkippedWithStream(inputs.stream?.skippedBecause, inputs.sampleCheck, 'apply');
      if (skipped) return skipped;
      if (!inputs.sampleCheck) return (await applySample(undefined, inputs.topic, inputs.schema!, inputs.table, SAMPLE_CHECK_OFF)).record;
      const schema = inputs.schema ?? (await storedSchema(inputs.client, inputs.schemaName));
      if (!schema) {
        inputs.warn(sampleCheckSkipped(`schema ${inputs.schemaName} could not be read back from the store`));
        return { step: 'sample', action: 'skipped', status: 'skipped', reason: `not checked: schema ${inputs.schemaName} could not be read back from the store` };
      }
      const sample = await applySample(inputs.sampleCheck, inputs.topic, schema, inputs.table, SAMPLE_CHECK_OFF, inputs.schemaGiven, inputs.ignore);
      if (sample.warning !== undefined) inputs.warn(sample.warning);
      if (sample.skippedBecause !== undefined) inputs.warn(sampleCheckSkipped(sample.skippedBecause));
      else inputs.info(`messages checked: ${sample.record.reason}`);
      return sample.record;
    },
  },
  {
    // The store links the table to the schema it holds: a schema file not pushed yet would be refused in the store's
    // own words; said here, after the checks that may still change the schema, with the command that pushes it.
    name: 'schema',
    needs: ['sample'],
    attempts: 'read',
    stopsBefore: true,
    async plan(inputs) {
      const refusal = await schemaNotHeld(inputs);
      if (refusal) return { step: 'schema', action: 'refused', reason: `${refusal.message}; ${refusal.hint}` };
      return { step: 'schema', action: 'read', reason: schemaHeldReason(inputs) };
    },
    async apply(inputs) {
      const refusal = await schemaNotHeld(inputs);
      if (refusal) throw refusal;
      return { step: 'schema', action: 'read', status: 'passed', reason: schemaHeldReason(inputs) };
    },
  },
  {
    name: 'table',
    needs: ['schema'],
    attempts: 'create',
    stopsBefore: true,
    async plan(inputs) {
      const record = await planTableCreate(inputs.client, inputs.table, inputs.olapSegment, TABLE_EXISTS_HINT);
      // What the run would send, held against the store's own checks (issue #47 §3), with the schema the store holds.
      const subject = async () => {
        const schema = inputs.schema ?? (await storedSchema(inputs.client, inputs.schemaName));
        return schema && { schema, table: inputs.table, schemaStored: true };
      };
      const { schemaGiven, templateFile } = inputs;
      const places = {
        schemaEntry: () => schemaGiven,
        tableEntry: () => templateFile ?? 'the table dpgw builds from its own template',
        schemaSource: async () => (inputs.schema ? { document: await readLocatedDocument(schemaGiven, 'schema file'), prefix: [] } : undefined),
        tableSource: async () => (templateFile !== undefined ? { document: await readTemplate(templateFile), prefix: [] } : undefined),
      };
      return withStoreJudgement(record, undefined, subject, { validation: new StoreValidation(inputs.client, inputs.warn), places });
    },
    async apply(inputs) {
      const { record, answer } = await applyTable(inputs.client, inputs.table, { existing: { fail: TABLE_EXISTS_HINT } });
      inputs.answer = answer;
      // Said before the consumption wait, which may fail: the table is created either way.
      inputs.success(`${record.reason} for topic ${inputs.topic}`);
      return record;
    },
    refusal: (error, mode) => (error.errorCode === 'TABLE_DIFFERS' ? differingTableRecord(error, mode === 'apply') : undefined),
  },
  {
    name: 'consume',
    needs: ['table'],
    attempts: 'wait',
    stopsBefore: true,
    plan: async (inputs) => planConsume(inputs.waitMs),
    async apply(inputs) {
      const { table, topic, waitMs, stream } = inputs;
      const consumed = await applyConsume(inputs.client, { tableName: table.tableName, topic, waitMs, partitions: stream?.facts?.partitions, created: true });
      inputs.consumption = consumed.consumption;
      return consumed.record;
    },
  },
];

/** A schema given by name: the store's, to hold the messages against (undefined when it cannot be read). */
async function storedSchema(client: GatewayClient, name: string): Promise<AnalyticsSchema | undefined> {
  const live = await client.getSchema(name);
  return live.kind === 'found' ? (live.body as unknown as AnalyticsSchema) : undefined;
}

/** A schema file whose schema the store does not hold: the store would refuse the table. A gateway that does not pass schema reads on (not-exposed) is left to the store. */
async function schemaNotHeld(inputs: TableCreateInputs): Promise<DpgwError | undefined> {
  if (!inputs.schema) return undefined;
  const stored = await inputs.client.getSchema(inputs.schemaName);
  if (stored.kind !== 'not-found') return undefined;
  return new DpgwError('SCHEMA_NOT_FOUND', `the store holds no schema ${inputs.schemaName}: the table would be refused`, { where: stored.url, hint: `push it first: dpgw schema push ${inputs.schemaGiven}; nothing was sent` });
}

function schemaHeldReason(inputs: TableCreateInputs): string {
  return inputs.schema ? `the store holds schema ${inputs.schemaName}` : `schema ${inputs.schemaName}, as the store holds it`;
}
