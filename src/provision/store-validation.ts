/**
 * The store's own validation in the plan (issue #47 §3). dpgw checks schemas and tables
 * locally; the store has rules of its own (transform functions, index configs, stream keys,
 * tenants on newer stores). Where the gateway passes the store's validate calls on (ASSUMED,
 * docs/gateway-api.md), the plan sends each data set's schema and table there — read-only,
 * nothing is stored — and a refusal refuses the step with the store's own words, at the
 * manifest's line. Properties the store does not recognise are warnings at their line: a typo
 * in a schema or template is found before anything is stored.
 *
 * Which call the gateway passes on is learnt once per run: the combined call
 * (`tableConfigs/validate`, a schema with its table) first, else the schema's and the table's
 * own (`schemas/validate`, `tables/validate`), else none — said once per run, not per data set.
 */
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';
import { whereText, type Where } from '../errors/source-location.js';
import type { GatewayClient, StoreVerdict } from '../gateway/gateway-client.js';
import type { LocatedDocument, PathPart } from '../olap/located-document.js';
import { fieldPath } from '../olap/schema-validation.js';
import { maskSecrets } from '../secrets/redaction.js';
import { serverText } from '../text/terminal-text.js';
import type { StepRecord } from './steps/step-record.js';

/** What the store judges: a schema and the table built on it. */
export interface ValidationSubject {
  schema: AnalyticsSchema;
  table: RealtimeTableDefinition;
  /**
   * The store holds this schema as it is: its `tables/validate`, which reads the table's schema
   * from what the store holds (PinotTableRestletResource#checkTableConfig → getTableSchema), can judge the table.
   */
  schemaStored: boolean;
  /** The store holds the table already (the run would update it, not create it). */
  tableExists?: boolean;
}

/** Where a part the store judged was written, for its unrecognised properties: a document and the path of the part in it. */
export interface PartSource {
  document: LocatedDocument;
  prefix: readonly PathPart[];
}

/** Where the parts of one data set were written: each found only when a property of it needs a line. */
export interface SubjectPlaces {
  /** The schema's entry in the manifest (a refusal of the schema is said there); found only when asked. */
  schemaEntry: () => Where;
  /** The table's entry, or the data set's when it has none (a refusal of the table is said there). */
  tableEntry: () => Where;
  schemaSource?: () => Promise<PartSource | undefined>;
  tableSource?: () => Promise<PartSource | undefined>;
}

/** The store's refusal: its own words, which part it judged, and where in the manifest that part is. */
export interface StoreRefusal {
  part: 'schema' | 'table';
  message: string;
  where: Where;
  url: string;
}

export interface StoreJudgement {
  refusal?: StoreRefusal;
  /** Set when the store judged only part, or nothing: why (shown with the step's reason). */
  unjudged?: string;
}

type Form = 'tableConfigs' | 'separate' | 'none';

/** The line said once per run when the gateway passes none of the validate calls on. */
export const NOT_VALIDATED_BY_THE_STORE = 'not validated by the store';

export class StoreValidation {
  private form?: Promise<Form>;

  constructor(
    private readonly client: GatewayClient,
    private readonly warn: (message: string) => void,
  ) {}

  /** The store's judgement of a schema and its table; unrecognised properties are warned about as they are found. */
  async judge(subject: ValidationSubject, places: SubjectPlaces): Promise<StoreJudgement> {
    if (this.form === undefined) {
      // The first data set learns the form for every other one (data sets are planned side by side).
      const detected = this.detect(subject, places);
      this.form = detected.then(({ form }) => form);
      return (await detected).judgement;
    }
    const form = await this.form;
    if (form === 'none') return { unjudged: NOT_VALIDATED_BY_THE_STORE };
    return form === 'tableConfigs' ? this.combined(subject, places, await this.askCombined(subject)) : this.separately(subject, places);
  }

  /** The store's judgement of a schema alone (`schema push`): its own call, there being no table to send with it. */
  async judgeSchema(schema: AnalyticsSchema, places: SubjectPlaces): Promise<StoreJudgement> {
    const verdict = await this.client.validateInStore('schema', schema);
    if (verdict.kind === 'not-exposed') {
      this.warn(`${NOT_VALIDATED_BY_THE_STORE}: the gateway does not pass its validate call on (POST ${verdict.url}: ${verdict.why})`);
      return { unjudged: NOT_VALIDATED_BY_THE_STORE };
    }
    if (verdict.kind === 'refused') return { refusal: { part: 'schema', message: verdict.message, where: places.schemaEntry(), url: verdict.url } };
    await this.unrecognized('schema', Object.entries(verdict.unrecognized).map(([pointer, value]) => [pointerPath(pointer), value]), places);
    return {};
  }

  /**
   * The combined call, without `validationTypesToSkip` (every version takes its absence). A store
   * of 1.5.0 or later also refuses a table whose minion tasks ran ("dangling task data",
   * PinotTableRestletResource#tableTasksValidation), a check its PUT does not make: for a table
   * that exists, and only on those words (which only a store that knows ACTIVE_TASKS says), it
   * is asked again without that check.
   */
  private async askCombined(subject: ValidationSubject): Promise<StoreVerdict> {
    const verdict = await this.client.validateInStore('tableConfigs', combinedBody(subject));
    if (verdict.kind !== 'refused' || subject.tableExists !== true || !verdict.message.includes('dangling task data')) return verdict;
    return this.client.validateInStore('tableConfigs', combinedBody(subject), 'ACTIVE_TASKS');
  }

  private async detect(subject: ValidationSubject, places: SubjectPlaces): Promise<{ form: Form; judgement: StoreJudgement }> {
    const combined = await this.askCombined(subject);
    if (combined.kind !== 'not-exposed') return { form: 'tableConfigs', judgement: await this.combined(subject, places, combined) };
    const schema = await this.client.validateInStore('schema', subject.schema);
    if (schema.kind !== 'not-exposed') return { form: 'separate', judgement: await this.separately(subject, places, schema) };
    this.warn(`${NOT_VALIDATED_BY_THE_STORE}: the gateway passes none of its validate calls on (POST ${combined.url}: ${combined.why}; POST ${schema.url}: ${schema.why}); the plan holds the local checks alone`);
    return { form: 'none', judgement: { unjudged: NOT_VALIDATED_BY_THE_STORE } };
  }

  private async combined(subject: ValidationSubject, places: SubjectPlaces, verdict: StoreVerdict): Promise<StoreJudgement> {
    if (verdict.kind === 'not-exposed') return { unjudged: `${NOT_VALIDATED_BY_THE_STORE}: POST ${verdict.url} answered ${verdict.why}` };
    // One call judges both: its words cannot say which part it means, so the refusal is the table's, which is built on the schema.
    if (verdict.kind === 'refused') return { refusal: { part: 'table', message: verdict.message, where: places.tableEntry(), url: verdict.url } };
    const bySchema: Array<[PathPart[], unknown]> = [];
    const byTable: Array<[PathPart[], unknown]> = [];
    for (const [pointer, value] of Object.entries(verdict.unrecognized)) {
      const [part, ...path] = pointerPath(pointer);
      if (part === 'schema') bySchema.push([path, value]);
      else if (part === 'realtime') byTable.push([path, value]);
    }
    await this.unrecognized('schema', bySchema, places);
    await this.unrecognized('table', byTable, places);
    return {};
  }

  private async separately(subject: ValidationSubject, places: SubjectPlaces, schemaVerdict?: StoreVerdict): Promise<StoreJudgement> {
    const schema = schemaVerdict ?? (await this.client.validateInStore('schema', subject.schema));
    if (schema.kind === 'refused') return { refusal: { part: 'schema', message: schema.message, where: places.schemaEntry(), url: schema.url } };
    if (schema.kind === 'valid') await this.unrecognized('schema', Object.entries(schema.unrecognized).map(([pointer, value]) => [pointerPath(pointer), value]), places);
    if (!subject.schemaStored) return { unjudged: `the table is ${NOT_VALIDATED_BY_THE_STORE}: its tables/validate reads the schema it holds, and this one is not stored yet` };
    const table = await this.client.validateInStore('table', maskSecrets(subject.table));
    if (table.kind === 'not-exposed') return { unjudged: `the table is ${NOT_VALIDATED_BY_THE_STORE}: POST ${table.url} answered ${table.why}` };
    if (table.kind === 'refused') return { refusal: { part: 'table', message: table.message, where: places.tableEntry(), url: table.url } };
    await this.unrecognized('table', Object.entries(table.unrecognized).map(([pointer, value]) => [pointerPath(pointer), value]), places);
    return {};
  }

  /**
   * Each property the store does not recognise, at its line where the user wrote it (the schema
   * file or inline schema, the table template); one dpgw filled in itself is not said.
   */
  private async unrecognized(part: 'schema' | 'table', found: Array<[PathPart[], unknown]>, places: SubjectPlaces): Promise<void> {
    if (found.length === 0) return;
    const source = await (part === 'schema' ? places.schemaSource : places.tableSource)?.();
    // A list the store does not know is flattened to one entry per element: said once, at its key.
    const byKey = new Map<string, [PathPart[], unknown]>();
    for (const [path, value] of found) {
      const key = path.slice(0, Math.max(1, path.findLastIndex((step) => typeof step !== 'number') + 1));
      if (!byKey.has(JSON.stringify(key))) byKey.set(JSON.stringify(key), [key, path.length === key.length ? value : '[…]']);
    }
    for (const [path, value] of byKey.values()) {
      // The store's words (its paths and the values it echoes): sanitised, a secret's value masked by its key.
      const key = String(path.at(-1));
      const shown = serverText(`${fieldPath(path)} (${(JSON.stringify(maskSecrets({ [key]: value })[key]) ?? 'null').slice(0, 80)})`);
      if (source && hasPath(source.document.value, [...source.prefix, ...path])) {
        // Its place says whose it is: a schema file or template many data sets share is said once (the run's warnings are said once each).
        this.warn(`${whereText(source.document.keyAt([...source.prefix, ...path]))}: the store does not recognise the ${part} field ${shown}: it would ignore it (a typo, or a field of a newer store)`);
      }
      // A field dpgw fills in itself (notNull of a date-time column, which Pinot 0.11 does not know)
      // is sent for the stores that read it: a warning the user can do nothing about, on every
      // plan and in every pull request's annotations, would only teach them to skip warnings.
    }
  }
}

/**
 * The combined call's body, `{tableName, schema, realtime}`. The store wants the schema named
 * as the table (TableConfigsRestletResource#validateConfig: "'tableName' must be equal to
 * 'schemaName'"): a table named otherwise is judged with its schema under the table's name,
 * which changes no rule. The stream password is masked: the checks read no connection.
 */
function combinedBody({ schema, table }: ValidationSubject): Record<string, unknown> {
  const name = table.tableName;
  const realtime = maskSecrets(table) as unknown as Record<string, unknown>;
  const segmentsConfig = realtime.segmentsConfig as Record<string, unknown> | undefined;
  return {
    tableName: name,
    schema: { ...schema, schemaName: name },
    realtime: segmentsConfig?.schemaName === undefined ? realtime : { ...realtime, segmentsConfig: { ...segmentsConfig, schemaName: name } },
  };
}

/** The store's keys of unrecognised properties: `/`-joined paths of the body sent, list places as numbers (JsonUtils#flatten). */
function pointerPath(pointer: string): PathPart[] {
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

function hasPath(value: unknown, path: readonly PathPart[]): boolean {
  let current = value;
  for (const part of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, part)) return false;
    current = (current as Record<string | number, unknown>)[part];
  }
  return true;
}

/**
 * The plan's table step with the store's judgement: refused with the store's words at the
 * manifest's line; left as it was when the store holds it valid, or when nothing of the data
 * set would be sent (schema and table unchanged: nothing to judge). The subject is undefined
 * while the schema is not known yet (inferred from a topic the plan cannot read).
 */
export async function withStoreJudgement(
  tableRecord: StepRecord,
  schemaRecord: StepRecord | undefined,
  subject: () => Promise<ValidationSubject | undefined>,
  store: { validation: StoreValidation; places: SubjectPlaces } | undefined,
): Promise<StepRecord> {
  if (store === undefined || tableRecord.action === 'refused' || tableRecord.action === 'blocked') return tableRecord;
  if (tableRecord.action === 'none' && schemaRecord?.action === 'none') return tableRecord;
  const found = await subject();
  if (found === undefined) return tableRecord;
  const judged = { ...found, tableExists: tableRecord.action !== 'create' };
  const { refusal, unjudged } = await store.validation.judge(judged, store.places);
  if (refusal) {
    const what = refusal.part === 'schema' ? `schema ${judged.schema.schemaName}` : `table ${judged.table.tableName}`;
    // The run sends what comes before the table (it does not ask the store first): the store's POST would refuse the table.
    return { step: 'table', action: 'refused', reason: `the store refuses ${what} (${whereText(refusal.where)}): ${refusal.message}` };
  }
  // Not validated at all is said once per run; a part left unjudged, with its step.
  return unjudged !== undefined && unjudged !== NOT_VALIDATED_BY_THE_STORE ? { ...tableRecord, reason: `${tableRecord.reason}; ${unjudged}` } : tableRecord;
}

/** `schema push`'s plan with the store's judgement of the schema, when the push would send it. */
export async function withSchemaJudgement(schemaRecord: StepRecord, schema: AnalyticsSchema, store: { validation: StoreValidation; places: SubjectPlaces }): Promise<StepRecord> {
  if (schemaRecord.request === undefined) return schemaRecord;
  const { refusal } = await store.validation.judgeSchema(schema, store.places);
  if (!refusal) return schemaRecord;
  return { step: 'schema', action: 'refused', reason: `the store refuses schema ${schema.schemaName} (${whereText(refusal.where)}): ${refusal.message}` };
}
