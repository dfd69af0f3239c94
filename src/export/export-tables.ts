/**
 * `dpgw export`: the tables the analytics store holds, written back as a provision manifest
 * and a schema file per table, so that `dpgw provision <manifest> --plan --detailed-exitcode`
 * finds nothing to change. Only GET requests. Each table is mapped back to its data set through
 * its topic (table-origin.ts), its entry keeps only what differs from the defaults, and the
 * entry is proven before it is written: the table it would make under this run's settings
 * (olap/build-table.ts, as provision builds it) is compared with the live one the way a plan
 * compares them (olap/live-diff.ts). A table that cannot be mapped or reproduced is left out,
 * with its reason.
 */
import { isSeq, type YAMLMap, type YAMLSeq } from 'yaml';
import { objectAt } from '../olap/object-at.js';
import { manifestMarkOf, type ManifestMark } from '../olap/manifest-mark.js';
import type { AnalyticsSchema, DateTimeFieldSpec, FieldSpec } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { GatewayClient, StoreRead } from '../gateway/gateway-client.js';
import { buildTable, type TableSettings } from '../olap/build-table.js';
import { diffTable, tableDiffLines } from '../olap/live-diff.js';
import { nameProblem } from '../names/platform-names.js';
import { manifestSchema } from '../provision/manifest.js';
import { MASK } from '../secrets/redaction.js';
import { checkedSchemaYaml } from '../schema-inference/schema-text.js';
import { yamlFileDocument, yamlFileText } from '../output/yaml-file.js';
import { closestMatch } from '../text/closest-match.js';
import { plural } from '../text/plural.js';
import { quotedServerText, serverText } from '../text/terminal-text.js';
import { CatalogByTopic, type TableOrigin } from './table-origin.js';

/** A manifest's name as the manifest takes it: one plain word, as the platform's names are. */
export const MANIFEST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,248}$/;
/** The manifest's file name in the output folder. */
export const MANIFEST_FILE = 'provision.yaml';

export interface ExportRequest {
  client: GatewayClient;
  /** The run's table settings: the entries are proven against what they make under them, as a plan of the export would. */
  table: TableSettings;
  /** Only these tables (names without the type suffix). */
  tables?: readonly string[];
  /** Only the tables of these data sets. */
  dataSets?: readonly string[];
  /** Only the tables whose `metadata.customConfigs["dpgw.manifest"]` is this; also the manifest's `name:`. */
  manifestName?: string;
  /** The output folder's own name: a manifest there named provision.yaml takes it as its name (manifestNameOf). */
  folderName: string;
  /** Settings the run's flags or environment set: they win over a manifest's, so the manifest does not set them. */
  runChosen?: ReadonlySet<string>;
}

export interface ExportedTable {
  table: string;
  schema: string;
  /** The schema file, relative to the output folder. */
  schemaFile: string;
  origin: TableOrigin;
  /** The entry's table settings that differ from the defaults. */
  tableSettings: { name?: string; timeColumn?: string; retentionDays?: number };
}

export interface LeftOutTable {
  /** As the store names it, escaped for a terminal. */
  table: string;
  reason: string;
}

export interface ExportResult {
  exported: ExportedTable[];
  /** The manifest's `name:`: the mark every exported table carries, where a manifest gave it (where the manifest format has names). */
  name?: string;
  /**
   * The mark the exported tables carry when a manifest took it from its file or folder and the output folder has
   * another name: no `name:` can keep it (a given name is another owner, olap/manifest-mark.ts), so its plan refuses
   * them until run once with --adopt, or kept in a folder of that name.
   */
  markNotKept?: string;
  /** The manifest's `settings:`: table settings every exported table shares and the run's settings would give otherwise. */
  settings: Partial<Record<ManifestSettingKey, string>>;
  leftOut: LeftOutTable[];
  /** The manifest marks the store's tables carry (read ones only: --table narrows them), sorted: what --manifest can name. */
  marks: string[];
  /** Every file to write, relative to the output folder: the schema files, then the manifest (written last, so it never names a missing file). */
  files: Array<{ name: string; text: string }>;
}

/** How many tables are read at once. */
const READS_AT_ONCE = 4;

export async function exportTables(request: ExportRequest): Promise<ExportResult> {
  const { client } = request;
  const listing = await client.listTables();
  if (listing.kind !== 'found') throw notExposed(listing.url, listing.kind === 'not-exposed' ? listing.why : listing.message, "does not list the analytics store's tables");
  const listed = listing.body;
  // The store lists names without the type suffix; one that has it is the same table. In name order, whatever the
  // store's (its order is the order of creation, which tables provisioned side by side do not keep): an export of
  // the same tables is the same files.
  const names = [...new Set(listed.map((name) => name.replace(/_(REALTIME|OFFLINE)$/, '')))].sort();
  if (request.tables?.length) {
    const missing = request.tables.filter((name) => !names.includes(name));
    if (missing.length) {
      const near = closestMatch(missing[0]!, names);
      throw new DpgwError('TABLE_NOT_FOUND', `the analytics store has no table ${missing.join(', ')}`, {
        where: '--table',
        hint: near !== undefined ? `did you mean ${quotedServerText(near)}?` : `it lists ${plural(names.length, 'table')}; \`dpgw catalog datasets\` shows the data sets`,
      });
    }
  }
  const chosen = request.tables?.length ? names.filter((name) => request.tables!.includes(name)) : names;
  const catalog = await CatalogByTopic.read(client);
  // Tables often share a schema: each is read once.
  const schemaReads = new Map<string, Promise<StoreRead<Record<string, unknown>>>>();
  const readSchema = (schemaName: string) => {
    let read = schemaReads.get(schemaName);
    if (!read) schemaReads.set(schemaName, (read = client.getSchema(schemaName)));
    return read;
  };

  const outcomes: Array<Outcome | undefined> = new Array(chosen.length);
  let next = 0;
  const reader = async () => {
    for (let index = next++; index < chosen.length; index = next++) outcomes[index] = await exportOne(chosen[index]!, request, catalog, readSchema);
  };
  await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, chosen.length) }, reader));

  const candidates = outcomes.flatMap((outcome) => (outcome?.candidate ? [outcome.candidate] : []));
  const settings = sharedSettings(candidates, request);
  const proofSettings: TableSettings = { ...request.table, ...settings };
  const exported: Array<{ table: ExportedTable; schemaText: string }> = [];
  const leftOut: LeftOutTable[] = [];
  const entryOf = new Map<string, ExportedTable>();
  for (const outcome of outcomes) {
    if (outcome?.leftOut) leftOut.push(outcome.leftOut);
    if (!outcome?.candidate) continue;
    const { candidate } = outcome;
    const differences = await differencesOf(candidate, proofSettings);
    if (differences.length) {
      leftOut.push({ table: candidate.table, reason: `a manifest entry would change it under this run's settings: ${serverText(differences.join('; '))}` });
      continue;
    }
    const { origin } = candidate;
    // A manifest provisions one table per data set (provision refuses a data set listed twice).
    const key = `${origin.datasource}\u0000${origin.enablement}\u0000${origin.dataset}`;
    const first = entryOf.get(key);
    if (first) {
      leftOut.push({ table: candidate.table, reason: `its data set ${origin.dataset} (enablement ${origin.enablement}) is exported with table ${first.table} already, and a manifest provisions one table per data set` });
      continue;
    }
    const table: ExportedTable = { table: candidate.table, schema: candidate.schema.schemaName, schemaFile: '', origin, tableSettings: candidate.tableSettings };
    entryOf.set(key, table);
    exported.push({ table, schemaText: candidate.schemaText });
  }
  const files = schemaFiles(exported);
  const tables = exported.map(({ table }) => table);
  const mark = sharedMark(candidates.filter((candidate) => tables.some((table) => table.table === candidate.table)));
  // A name a manifest gave is written as name:; one it took from its folder is kept only by a folder of that name.
  const name = mark?.named ? mark.name : undefined;
  const markNotKept = mark !== undefined && !mark.named && mark.name !== request.folderName ? mark.name : undefined;
  if (tables.length) files.push({ name: MANIFEST_FILE, text: manifestText(tables, settings, name) });
  const marks = [...new Set(outcomes.flatMap((outcome) => (outcome?.mark !== undefined ? [outcome.mark] : [])))].sort();
  return { exported: tables, ...(name !== undefined ? { name } : {}), ...(markNotKept !== undefined ? { markNotKept } : {}), settings, leftOut, marks, files };
}

/** The one line that says this gateway lacks a read export needs. */
function notExposed(url: string, why: string, what: string): DpgwError {
  return new DpgwError('STORE_READS_NOT_EXPOSED', `this gateway ${what}: GET ${url} answered ${why}`, {
    hint: "export needs the store's listing and reads passed on (GET /api/internal/<olap>/tables, /tables/{name}, /schemas/{name}): ask the platform team, or check --olap-segment",
  });
}

/** A table mapped back to its data set, with the entry that should make it, before the proof. */
interface Candidate {
  table: string;
  origin: TableOrigin;
  schema: AnalyticsSchema;
  /** The schema file's text. */
  schemaText: string;
  tableSettings: ExportedTable['tableSettings'];
  /** The REALTIME table as the store holds it. */
  live: Record<string, unknown>;
}

interface Outcome {
  candidate?: Candidate;
  leftOut?: LeftOutTable;
  /** The manifest mark the table carries, whether or not it is exported: a --manifest that matches none lists them. */
  mark?: string;
}

/**
 * The table settings a manifest may set (no endpoint, identity or secret: docs/provision.md), read off a live
 * table, each with the shape its value must have to be written: a server's value goes into the manifest and,
 * when provisioned, back to the store.
 */
const MANIFEST_SETTINGS = {
  brokerTenant: { read: (live: Record<string, unknown>) => objectAt(live, 'tenants').broker, shape: /^[A-Za-z0-9_.-]{1,249}$/ },
  serverTenant: { read: (live: Record<string, unknown>) => objectAt(live, 'tenants').server, shape: /^[A-Za-z0-9_.-]{1,249}$/ },
  decoderClass: { read: (live: Record<string, unknown>, streamType: string) => objectAt(live, 'tableIndexConfig', 'streamConfigs')[`stream.${streamType}.decoder.class.name`], shape: /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/ },
  consumerFactoryClass: { read: (live: Record<string, unknown>, streamType: string) => objectAt(live, 'tableIndexConfig', 'streamConfigs')[`stream.${streamType}.consumer.factory.class.name`], shape: /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/ },
} as const;

export type ManifestSettingKey = keyof typeof MANIFEST_SETTINGS;

/**
 * A setting every candidate table holds alike, other than the run's, goes into the manifest's settings (and
 * into the proof): tables made with another tenant or decoder than this run's are written back, not left out.
 * Tables that disagree keep the run's value, and the proof names the ones it does not make.
 */
function sharedSettings(candidates: readonly Candidate[], request: ExportRequest): Partial<Record<ManifestSettingKey, string>> {
  const settings: Partial<Record<ManifestSettingKey, string>> = {};
  if (candidates.length === 0) return settings;
  for (const [key, { read, shape }] of Object.entries(MANIFEST_SETTINGS) as Array<[ManifestSettingKey, (typeof MANIFEST_SETTINGS)[ManifestSettingKey]]>) {
    if (request.runChosen?.has(key)) continue;
    const values = new Set(candidates.map((candidate) => read(candidate.live, request.table.streamType)));
    const [value] = values;
    if (values.size === 1 && typeof value === 'string' && shape.test(value) && value !== request.table[key]) settings[key] = value;
  }
  return settings;
}

/**
 * A manifest marks the tables it provisions with its name, and one without `name:` takes its file's (or folder's)
 * name: so an export whose tables all carry one mark is written with that name, else its plan would re-mark them.
 * Only where the manifest format has `name:` (#33 §2; before it, provision neither marks nor takes the key).
 */
function sharedMark(candidates: readonly Candidate[]): ManifestMark | undefined {
  if (!('name' in manifestSchema.shape)) return undefined;
  const marks = new Set(candidates.map((candidate) => JSON.stringify(manifestMarkOf(candidate.live) ?? null)));
  const [only] = marks;
  const mark = marks.size === 1 ? (JSON.parse(only!) as ManifestMark | null) : null;
  return mark !== null && MANIFEST_NAME.test(mark.name) ? mark : undefined;
}

/**
 * The proof: the table the entry makes under these settings, built as provision builds it, against the live one,
 * compared as a plan compares them. Every value the entry gives was checked, so a table that cannot be built says
 * what the run's settings lack (an error of the command, not of the table).
 */
async function differencesOf(candidate: Candidate, settings: TableSettings): Promise<string[]> {
  const { table } = await buildTable({
    settings,
    topic: candidate.origin.topic,
    schema: { schema: candidate.schema },
    tableName: candidate.tableSettings.name,
    timeColumn: candidate.tableSettings.timeColumn,
    retentionDays: candidate.tableSettings.retentionDays,
    // A plan reads no stream password and compares the rest of the JAAS line: so does the proof.
    streamPassword: MASK,
    warn: () => undefined,
  });
  return tableDiffLines(diffTable(table, { REALTIME: candidate.live }, { secretsKnown: false }));
}

async function exportOne(name: string, request: ExportRequest, catalog: CatalogByTopic, readSchema: SchemaReader): Promise<Outcome | undefined> {
  // Checked in this order; the first reason a table cannot be exported is the one said.
  const live = await readLiveTable(name, request);
  if (live instanceof Left) return { leftOut: { table: serverText(name), reason: live.reason } };
  const mark = manifestMarkOf(live)?.name;
  const leave = (reason: string): Outcome => ({ leftOut: { table: serverText(name), reason }, ...(mark !== undefined ? { mark } : {}) });
  if (request.manifestName !== undefined && mark !== request.manifestName) return mark !== undefined ? { mark } : undefined;
  const found = await originOfTable(live, request, catalog);
  if (found instanceof Left) return leave(found.reason);
  const { origin } = found;
  if (request.dataSets?.length && !request.dataSets.includes(origin.dataset)) return mark !== undefined ? { mark } : undefined;
  const held = await readTableSchema(name, live, readSchema);
  if (held instanceof Left) return leave(held.reason);
  const { schema } = held;
  const tableSettings = tableSettingsOf(name, live, held, request);
  if (tableSettings instanceof Left) return leave(tableSettings.reason);
  const schemaText = schemaTextOf(name, held);
  if (schemaText instanceof Left) return leave(schemaText.reason);
  return { candidate: { table: name, origin, schema, schemaText: schemaText.text, tableSettings, live }, ...(mark !== undefined ? { mark } : {}) };
}

type SchemaReader = (name: string) => Promise<StoreRead<Record<string, unknown>>>;
/**
 * Why a table is left out of the export: a step of exportOne gives it instead of its result. A class,
 * told apart by instanceof: a key of a plain object could come from the store's own answer.
 */
class Left {
  constructor(readonly reason: string) {}
}

/** The REALTIME table the store holds under a name a manifest can write. */
async function readLiveTable(name: string, request: ExportRequest): Promise<Record<string, unknown> | Left> {
  const badName = nameProblem('table', name);
  if (badName !== undefined) return new Left(`a manifest cannot name it: ${serverText(badName)}`);
  const read = await request.client.getTable(name);
  if (read.kind === 'not-exposed') throw notExposed(read.url, read.why, 'does not expose reads of the analytics store');
  if (read.kind !== 'found') return new Left('the store lists it but does not return it');
  return realtimeOf(read.body) ?? new Left('it is no REALTIME table (dpgw provisions REALTIME tables only)');
}

/** The catalog's data set whose topic the table consumes, on this run's stream type. */
async function originOfTable(live: Record<string, unknown>, request: ExportRequest, catalog: CatalogByTopic): Promise<{ origin: TableOrigin } | Left> {
  const streams = objectAt(live, 'tableIndexConfig', 'streamConfigs');
  const streamType = request.table.streamType;
  if (streams.streamType !== streamType) return new Left(`its stream type is ${quotedServerText(String(streams.streamType ?? 'not set'))}, not this run's ${streamType} (--stream-type)`);
  const topic = streams[`stream.${streamType}.topic.name`];
  if (typeof topic !== 'string' || topic === '') return new Left(`its stream configs name no topic (stream.${streamType}.topic.name)`);
  const found = await catalog.originOf(topic);
  return found.kind === 'unmapped' ? new Left(found.reason) : { origin: found.origin };
}

interface HeldSchema {
  schemaName: string;
  schema: AnalyticsSchema;
}

/** The table's schema as the store holds it, under a name a manifest can write. */
async function readTableSchema(name: string, live: Record<string, unknown>, readSchema: SchemaReader): Promise<HeldSchema | Left> {
  const segments = objectAt(live, 'segmentsConfig');
  const schemaName = typeof segments.schemaName === 'string' ? segments.schemaName : name;
  const badSchemaName = nameProblem('schema', schemaName);
  if (badSchemaName !== undefined) return new Left(`a manifest cannot name its schema: ${serverText(badSchemaName)}`);
  const schemaRead = await readSchema(schemaName);
  if (schemaRead.kind === 'not-exposed') throw notExposed(schemaRead.url, schemaRead.why, 'does not expose reads of the analytics store');
  if (schemaRead.kind !== 'found') return new Left(`its schema ${schemaName} is not in the store`);
  return { schemaName, schema: schemaOf(schemaRead.body) };
}

/** The entry's table settings: only what differs from what provision would take by default. */
function tableSettingsOf(name: string, live: Record<string, unknown>, { schemaName, schema }: HeldSchema, request: ExportRequest): ExportedTable['tableSettings'] | Left {
  const segments = objectAt(live, 'segmentsConfig');
  const tableSettings: ExportedTable['tableSettings'] = {};
  if (name !== schemaName) tableSettings.name = name;
  const timeColumn = segments.timeColumnName;
  const dateTimes = (schema.dateTimeFieldSpecs ?? []).map((spec) => spec.name);
  if (typeof timeColumn !== 'string' || !dateTimes.includes(timeColumn)) return new Left(`its time column ${quotedServerText(String(timeColumn))} is no date-time column of schema ${schemaName}`);
  if (dateTimes.length !== 1) tableSettings.timeColumn = timeColumn;
  const retention = String(segments.retentionTimeValue);
  if (!/^[1-9]\d{0,8}$/.test(retention)) return new Left(`its retention ${quotedServerText(retention)} is no whole number of days`);
  if (retention !== request.table.retentionDays) tableSettings.retentionDays = Number(retention);
  return tableSettings;
}

/** The schema file's text, written only when the schema passes dpgw's own checks. */
function schemaTextOf(name: string, { schemaName, schema }: HeldSchema): { text: string } | Left {
  try {
    return { text: checkedSchemaYaml(schema, [`Schema ${schemaName} of table ${name}, as the analytics store holds it (dpgw export).`]) };
  } catch (error) {
    if (error instanceof DpgwError) return new Left(`its schema ${schemaName} does not pass dpgw's checks: ${serverText(error.message)}`);
    throw error;
  }
}

/** The table of a store's answer: `{"REALTIME": {…}}` as the controller wraps it, or the table itself. */
function realtimeOf(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const wrapped = body.REALTIME;
  if (typeof wrapped === 'object' && wrapped !== null && !Array.isArray(wrapped)) return wrapped as Record<string, unknown>;
  if (body.OFFLINE !== undefined) return undefined;
  return body.tableType === 'REALTIME' ? body : undefined;
}



/** The columns as the store holds them: what a plan compares (name, group, type; a date-time column's format and granularity). */
function schemaOf(body: Record<string, unknown>): AnalyticsSchema {
  const specs = (group: string): Array<Record<string, unknown>> => (Array.isArray(body[group]) ? (body[group] as unknown[]).filter((s): s is Record<string, unknown> => typeof s === 'object' && s !== null) : []);
  const plain = (group: string): FieldSpec[] => specs(group).map((s) => ({ name: String(s.name), dataType: String(s.dataType) }));
  const dateTimes: DateTimeFieldSpec[] = specs('dateTimeFieldSpecs').map((s) => ({ name: String(s.name), dataType: String(s.dataType), notNull: s.notNull === true, format: String(s.format), granularity: String(s.granularity) }));
  const schema: AnalyticsSchema = { schemaName: String(body.schemaName) };
  if (plain('dimensionFieldSpecs').length) schema.dimensionFieldSpecs = plain('dimensionFieldSpecs');
  if (plain('metricFieldSpecs').length) schema.metricFieldSpecs = plain('metricFieldSpecs');
  if (dateTimes.length) schema.dateTimeFieldSpecs = dateTimes;
  return schema;
}

/**
 * The schema files' names: the table's (a store name — letters, digits, '-', '_' — so never a
 * path), unique even on a file system that ignores case.
 */
function schemaFiles(exported: ReadonlyArray<{ table: ExportedTable; schemaText: string }>): Array<{ name: string; text: string }> {
  const taken = new Set<string>([MANIFEST_FILE]);
  return exported.map(({ table, schemaText }) => {
    let name = `${table.table}.schema.yaml`;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${table.table}-${n}.schema.yaml`;
    taken.add(name.toLowerCase());
    table.schemaFile = name;
    return { name, text: schemaText };
  });
}

/**
 * The manifest: every entry with only what differs from the defaults; of the settings only tenants and classes the
 * tables share; no endpoint, identity or secret — the run that provisions it brings its own.
 */
export function manifestText(exported: ExportedTable[], settings: Partial<Record<ManifestSettingKey, string>>, manifestName: string | undefined): string {
  const entries = exported.map(({ origin, schemaFile, tableSettings }) => {
    const table = Object.fromEntries(Object.entries(tableSettings).filter(([, value]) => value !== undefined));
    return {
      datasource: origin.datasource,
      dataset: origin.dataset,
      ...(origin.enablement !== origin.dataset ? { enablement: origin.enablement } : {}),
      ...(origin.groups.length ? { groups: origin.groups } : {}),
      schema: schemaFile,
      ...(Object.keys(table).length ? { table } : {}),
    };
  });
  const document = yamlFileDocument({ version: 1, ...(manifestName !== undefined ? { name: manifestName } : {}), ...(Object.keys(settings).length ? { settings } : {}), dataSets: entries }, [
    'Written by `dpgw export`: the tables as the platform holds them. While they stay so,',
    '`dpgw provision provision.yaml --plan --detailed-exitcode` exits 0 (no changes).',
  ]);
  for (const entry of (document.get('dataSets') as YAMLSeq<YAMLMap>).items) {
    const groups = entry.get('groups');
    if (isSeq(groups)) groups.flow = true;
  }
  return yamlFileText(document);
}
