/**
 * Step 5's definition: the template filled from the data set's topic, the
 * schema and the settings, then checked. Shared by `table create`, `table render`
 * and `provision`.
 */
import { nameProblem } from '../names/platform-names.js';
import { existsSync } from 'node:fs';
import { STREAM_PLUGIN_CLASSES } from '../contract/olap-vocabulary.js';
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { MASK } from '../secrets/redaction.js';
import { howToSet } from '../settings/setting-definitions.js';
import { scramJaasConfig } from './jaas-config.js';
import { withManifestMark, withoutManifestMark, type ManifestMark } from './manifest-mark.js';
import { loadSchema } from './load-schema.js';
import { schemaColumns } from './schema-validation.js';
import { objectAt } from './object-at.js';
import { STREAM_CONFIGS_PATH } from './stream-config-place.js';
import { checkTable, failOnIssues, fillTemplate, readTemplate, streamConnectionIssues, type TemplateValues } from './table-template.js';

/** The settings a table definition is filled from (settings/core-options.ts: tableSettingsOf). */
export interface TableSettings {
  /** Checked already: the word of the stream config keys. */
  streamType: string;
  decoderClass?: string;
  consumerFactoryClass?: string;
  brokerList?: string;
  registryUrl?: string;
  streamUser?: string;
  /** Whether a stream password is set: render shows it masked without reading it. */
  streamPasswordSet: boolean;
  retentionDays?: string;
  brokerTenant?: string;
  serverTenant?: string;
}

export interface TableInputs {
  settings: TableSettings;
  /** The topic of the data set (its catalog label, or --topic). */
  topic: string;
  /** A schema file, the name of a schema pushed before, or the schema itself (checked already). */
  schema: string | { schema: AnalyticsSchema };
  tableName?: string;
  templateFile?: string;
  timeColumn?: string;
  /** Render only: the stream password is shown masked, so it need not be resolved. */
  maskStreamPassword?: boolean;
  /** The stream password, resolved by the caller (once, for a caller that builds many tables). */
  streamPassword?: string;
  /** A retention the caller's own input sets (a manifest entry's table.retentionDays), over the setting. */
  retentionDays?: number;
  /** The manifest whose table this is: the table's mark (olap/manifest-mark.ts). */
  manifestMark?: ManifestMark;
  /** The template (`templateFile`) is a manifest's, which the run does not let choose endpoints: it may not choose the stream connection either. */
  streamConnectionIsTheRuns?: boolean;
  /** The schema is a stand-in until it is inferred (a manifest's `schema: { infer: … }`): the table's columns are checked once it is known. */
  columnsUnknown?: boolean;
  warn: (message: string) => void;
}

export interface BuiltTable {
  table: RealtimeTableDefinition;
  /** The schema, when given as a file (then every check ran). */
  schema?: AnalyticsSchema;
  schemaName: string;
}

export async function buildTable(inputs: TableInputs): Promise<BuiltTable> {
  const given = inputs.schema;
  const fromFile = typeof given === 'string' && (existsSync(given) || /\.(ya?ml|json)$/i.test(given));
  const schema = typeof given !== 'string' ? given.schema : fromFile ? await loadSchema(given, inputs.warn) : undefined;
  const schemaName = schema?.schemaName ?? (given as string);
  if (!schema && nameProblem('schema', schemaName) !== undefined) {
    throw new DpgwError('INVALID_ARGUMENT', `"${inputs.schema}" is neither a schema file nor a schema name`, { where: '--schema', hint: 'give the schema file (YAML or JSON), or the schemaName of a pushed schema' });
  }
  const timeColumn = inputs.timeColumn ?? (schema ? onlyDateTimeColumn(schema) : undefined);
  if (!schema) inputs.warn(`--schema names a schema (${schemaName}) rather than a file: its columns cannot be checked before sending`);

  const tableName = inputs.tableName ?? schemaName;
  if (tableName !== schemaName) inputs.warn(`table ${tableName} and schema ${schemaName} differ in name: current releases of the analytics store link a table to the schema of the same name`);

  const values = templateValues(inputs, { tableName, schemaName, timeColumn, schemaKnown: schema !== undefined });
  const template = await readTemplate(inputs.templateFile);
  const { table: filled, issues } = fillTemplate(template, values);
  if (issues.length === 0 && inputs.streamConnectionIsTheRuns === true && inputs.templateFile !== undefined) issues.push(...(await ownTemplateIssues(filled, template, values)));
  failOnIssues([...issues, ...(issues.length ? [] : checkTable(filled, inputs.columnsUnknown === true ? undefined : schema, template))], 'table settings or template', inputs.warn);
  // The mark is the manifest's that builds the table, or none: never the template's claim.
  const table = inputs.manifestMark === undefined ? withoutManifestMark(filled) : withManifestMark(filled, inputs.manifestMark);
  return { table, schema, schemaName };
}

/** What fills the template's placeholders, each with how to set it when it is missing. */
function templateValues(inputs: TableInputs, names: { tableName: string; schemaName: string; timeColumn: string | undefined; schemaKnown: boolean }): TemplateValues {
  const { settings } = inputs;
  const streamUser = settings.streamUser;
  const streamPassword = inputs.maskStreamPassword ? (settings.streamPasswordSet ? MASK : undefined) : inputs.streamPassword;
  const retention = inputs.retentionDays !== undefined ? String(inputs.retentionDays) : settings.retentionDays;
  return {
    tableName: { value: names.tableName, how: 'pass --name' },
    schemaName: { value: names.schemaName, how: 'pass --schema' },
    timeColumn: { value: names.timeColumn, how: names.schemaKnown ? 'the schema has several date-time columns: pass --time-column' : 'pass --time-column (the schema was given by name)' },
    topic: { value: inputs.topic, how: 'pass --topic' },
    streamType: { value: settings.streamType, how: 'pass --stream-type' },
    decoderClass: { value: settings.decoderClass, how: howToSet('decoderClass') },
    consumerFactoryClass: { value: settings.consumerFactoryClass, how: howToSet('consumerFactoryClass') },
    stringDeserializer: { value: STREAM_PLUGIN_CLASSES.stringDeserializer, how: '' },
    brokerList: { value: settings.brokerList, how: howToSet('brokerList') },
    // Only a schema-registry decoder (Confluent Avro/Protobuf/JSON-schema) reads the registry URL; the JSON decoder needs none.
    registryUrl: { value: settings.registryUrl, how: howToSet('registryUrl'), optional: !readsRegistry(settings.decoderClass) },
    saslJaasConfig: {
      value: streamUser !== undefined && streamPassword !== undefined ? scramJaasConfig(streamUser, streamPassword) : undefined,
      how: streamUser === undefined ? `it needs the stream user: ${howToSet('streamUser')}` : `it needs the stream password: ${howToSet('streamPassword')}`,
    },
    retentionDays: { value: retention !== undefined && /^\d+$/.test(retention) ? Number(retention) : retention, how: howToSet('retentionDays') },
    brokerTenant: { value: settings.brokerTenant, how: howToSet('brokerTenant') },
    serverTenant: { value: settings.serverTenant, how: howToSet('serverTenant') },
  };
}

/**
 * A template of the user's own, given the run's stream connection: its stream configs are held
 * against dpgw's template filled with the same values (a key only an optional value adds may be left out).
 */
async function ownTemplateIssues(filled: RealtimeTableDefinition, template: Awaited<ReturnType<typeof readTemplate>>, values: TemplateValues): Promise<ReturnType<typeof fillTemplate>['issues']> {
  const ours = await readTemplate(undefined);
  const withoutOptional = Object.fromEntries(Object.entries(values).map(([name, entry]) => [name, entry.optional === true ? { ...entry, value: undefined } : entry]));
  const optionalKeys = (table: RealtimeTableDefinition) => Object.keys(objectAt(table, ...STREAM_CONFIGS_PATH));
  const leaner = new Set(optionalKeys(fillTemplate(ours, withoutOptional).table));
  const mayLeaveOut = new Set(optionalKeys(fillTemplate(ours, values).table).filter((key) => !leaner.has(key)));
  return streamConnectionIssues(filled, fillTemplate(ours, values).table, template, values, mayLeaveOut);
}

/** Pinot's decoders that fetch their schema from a registry: KafkaConfluentSchemaRegistry*Decoder. */
function readsRegistry(decoderClass: string | undefined): boolean {
  return decoderClass !== undefined && /SchemaRegistry|Confluent/i.test(decoderClass);
}

function onlyDateTimeColumn(schema: AnalyticsSchema): string | undefined {
  const dateTimes = [...schemaColumns(schema).entries()].filter(([, c]) => c.group === 'dateTimeFieldSpecs').map(([name]) => name);
  return dateTimes.length === 1 ? dateTimes[0] : undefined;
}
