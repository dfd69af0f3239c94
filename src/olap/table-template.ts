/**
 * Table templates: a YAML definition with ${placeholder}s, filled from the data
 * set (topic), the schema (name, time column) and the settings, then checked
 * before anything is sent. Errors name the template's file:line:column, or the
 * setting that would fill a missing value.
 */
import { objectAt } from './object-at.js';
import { STREAM_CONFIGS_PATH, streamConfigPlace } from './stream-config-place.js';
import { join } from 'node:path';
import { TABLE_DEFAULTS } from '../contract/constants.js';
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';
import { plural } from '../text/plural.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { packageRoot } from '../package-root.js';
import { readLocatedDocument, type LocatedDocument, type PathPart } from './located-document.js';
import { fieldPath, isWarning, issueLine, schemaColumns, type ValidationIssue } from './schema-validation.js';
import { tableConfigIssues } from './table-config-checks.js';

export const DEFAULT_TEMPLATE = 'templates/realtime-table.yaml';

/**
 * What fills each placeholder; `how` says how a user sets it, for the error when it is missing.
 * `optional`: a key whose whole value is this placeholder is left out when it has no value (the
 * registry URL, which only a registry decoder reads), instead of refused.
 */
export type TemplateValues = Record<string, { value: string | number | undefined; how: string; optional?: boolean }>;

const PLACEHOLDER = /\$\{([A-Za-z][A-Za-z0-9]*)\}/g;

const templates = new Map<string, Promise<LocatedDocument>>();

/** A template, read and parsed once per process however many tables are filled from it. */
export function readTemplate(file: string | undefined): Promise<LocatedDocument> {
  const path = file ?? join(packageRoot(), DEFAULT_TEMPLATE);
  let template = templates.get(path);
  if (!template) {
    template = readLocatedDocument(path, 'table template');
    templates.set(path, template);
    template.catch(() => templates.delete(path));
  }
  return template;
}

/** Fills every placeholder; each one without a value is an issue at its place in the template. */
export function fillTemplate(template: LocatedDocument, values: TemplateValues): { table: RealtimeTableDefinition; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const fill = (text: string, path: readonly PathPart[]): string | number => {
    const whole = /^\$\{([A-Za-z][A-Za-z0-9]*)\}$/.exec(text);
    if (whole) {
      const entry = values[whole[1]!];
      if (entry?.value !== undefined) return entry.value;
    }
    return text.replace(PLACEHOLDER, (match, name: string) => {
      const entry = values[name];
      if (entry?.value === undefined) {
        issues.push({ where: template.at(path), field: fieldPath(path) || name, message: entry ? `\${${name}} has no value: ${entry.how}` : `\${${name}} is not a placeholder dpgw knows (known: ${Object.keys(values).join(', ')})` });
        return match;
      }
      return String(entry.value);
    });
  };
  const walk = (node: unknown, path: PathPart[]): unknown => {
    if (typeof node === 'string') return fill(node, path);
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...path, index]));
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(node)) {
        const whole = typeof value === 'string' ? /^\$\{([A-Za-z][A-Za-z0-9]*)\}$/.exec(value) : null;
        const entry = whole ? values[whole[1]!] : undefined;
        if (entry?.optional === true && entry.value === undefined) continue;
        out[String(fill(key, [...path, key]))] = walk(value, [...path, key]);
      }
      return out;
    }
    return node;
  };
  const table = walk(template.value, []) as RealtimeTableDefinition;
  return { table, issues: dedupe(issues) };
}

/** A whole number from 1, as a number or as the text the store's own writing gives it ("1"). */
const isPositiveWhole = (value: unknown): boolean => (typeof value === 'number' && Number.isInteger(value) && value > 0) || (typeof value === 'string' && /^\d+$/.test(value) && Number(value) > 0);

/**
 * The checks a filled definition must pass before it is sent: what the analytics store refuses,
 * read as the store reads a table config (Jackson's coercions: "1" reads as 1 where the field is
 * text, a number reads as text in a map of strings). Each rule names the store's code it mirrors.
 */
export function checkTable(table: RealtimeTableDefinition, schema: AnalyticsSchema | undefined, template: LocatedDocument): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const issue = (path: PathPart[], message: string, severity?: 'warning') => issues.push({ where: template.at(path), field: fieldPath(path), message, ...(severity ? { severity } : {}) });
  if (table.tableType !== TABLE_DEFAULTS.tableType) issue(['tableType'], `tableType must be ${TABLE_DEFAULTS.tableType}, not ${String(table.tableType)}`);
  // TableConfig's @JsonCreator: segmentsConfig, tenants and tableIndexConfig are required properties.
  const segments = (table.segmentsConfig ?? {}) as Partial<Record<keyof RealtimeTableDefinition['segmentsConfig'], unknown>>;
  if (!table.segmentsConfig) issue(['segmentsConfig'], 'segmentsConfig is missing');
  checkRetention(segments, issue);
  // TableConfig.getReplication: replicasPerPartition (REALTIME) else replication, each read with Integer.parseInt.
  for (const key of ['replication', 'replicasPerPartition'] as const) {
    if (segments[key] !== undefined && !isPositiveWhole(segments[key])) issue(['segmentsConfig', key], `${key} must be a positive whole number, not ${JSON.stringify(segments[key])}`);
  }
  if (segments.replication === undefined && segments.replicasPerPartition === undefined) issue(['segmentsConfig', 'replication'], 'replication is missing: the store reads the number of replicas from replicasPerPartition or replication');
  checkStream(table, issue);
  // TenantConfig: broker and server may be left out (TagNameUtils then takes DefaultTenant), but the key itself is required.
  const tenants = table.tenants as unknown;
  if (tenants === undefined || tenants === null) issue(['tenants'], 'tenants is missing: the store requires the key (tenants: {} takes its DefaultTenant)');
  else if (typeof tenants !== 'object' || Array.isArray(tenants)) issue(['tenants'], 'tenants must be a mapping (broker, server)');
  else for (const key of ['broker', 'server'] as const) {
    const value = (tenants as Record<string, unknown>)[key];
    if (value !== undefined && value !== null && typeof value !== 'string') issue(['tenants', key], `tenants.${key} must be a tenant name`);
  }

  if (schema) {
    const columns = schemaColumns(schema);
    // Current stores deprecate schemaName (the schema is the table's raw name); given, it must still name this schema.
    if (segments.schemaName !== undefined && segments.schemaName !== schema.schemaName) issue(['segmentsConfig', 'schemaName'], `schemaName "${String(segments.schemaName)}" is not the schema's name "${schema.schemaName}"`);
    const timeColumn = String(segments.timeColumnName);
    const time = columns.get(timeColumn);
    // TableConfigUtils.validateValidationConfig: "'timeColumnName' cannot be null in REALTIME table config".
    if (segments.timeColumnName === undefined) issue(['segmentsConfig', 'timeColumnName'], 'timeColumnName is missing: a REALTIME table needs its time column');
    else if (!time) issue(['segmentsConfig', 'timeColumnName'], `time column "${timeColumn}" is not a column of schema ${schema.schemaName}`);
    else if (time.group !== 'dateTimeFieldSpecs') issue(['segmentsConfig', 'timeColumnName'], `time column "${timeColumn}" is a ${time.group === 'metricFieldSpecs' ? 'metric' : 'dimension'}, not a date-time column of schema ${schema.schemaName}`);
    issues.push(...tableConfigIssues(table, schema, (path) => template.at(path)));
  } else if (segments.timeColumnName === undefined) {
    // TableConfigUtils.validateValidationConfig: "'timeColumnName' cannot be null in REALTIME table config".
    issue(['segmentsConfig', 'timeColumnName'], 'timeColumnName is missing: a REALTIME table needs its time column');
  }
  return issues;
}

type IssueAt = (path: PathPart[], message: string, severity?: 'warning') => void;

/**
 * Retention, as the store's RetentionManager reads it: unit and value both, or neither (then it
 * keeps every segment: the manager skips a table without them). dpgw's contract counts it in
 * DAYS (TableConfigUtils.validateRetentionConfig refuses a unit that is no TimeUnit); the value a
 * whole number of days, as a number or its text.
 */
function checkRetention(segments: Partial<Record<string, unknown>>, issue: IssueAt): void {
  const { retentionTimeUnit: unit, retentionTimeValue: value } = segments;
  if (unit === undefined && value === undefined) {
    issue(['segmentsConfig'], 'no retention (retentionTimeUnit, retentionTimeValue): the store keeps every segment of this table forever', 'warning');
    return;
  }
  if (typeof unit !== 'string' || unit.toUpperCase() !== TABLE_DEFAULTS.retentionTimeUnit) issue(['segmentsConfig', 'retentionTimeUnit'], `retention is counted in ${TABLE_DEFAULTS.retentionTimeUnit}, not ${String(unit)}`);
  if (!isPositiveWhole(value)) issue(['segmentsConfig', 'retentionTimeValue'], `retentionTimeValue must be a positive whole number of days, not ${JSON.stringify(value)} (--retention-days)`);
}

/**
 * The stream config, wherever the table holds it (stream-config-place.ts), with the keys the
 * store's StreamConfig constructor requires: streamType, the topic and the decoder class (0.11.0
 * and the newest release alike). The consumer factory has a default (Kafka 2.0's). The consumer
 * type: 0.11.0 requires it ("Must specify at least one consumer type"); the newest release's
 * StreamConfig dropped it
 * and refuse only `highlevel` (StreamConfig.validateConsumerType).
 */
function checkStream(table: RealtimeTableDefinition, issue: IssueAt): void {
  const place = streamConfigPlace(table);
  if (place.kind === 'problem') return issue(place.path, place.message);
  const { path, map } = place;
  // A map of strings read by Jackson: text, numbers and booleans read as text; a list or a mapping is refused.
  for (const [key, value] of Object.entries(map)) if (typeof value === 'object' && value !== null) issue([...path, key], `stream config ${key} must be a string`);
  const streamType = map.streamType;
  if (typeof streamType !== 'string' || streamType === '') return issue([...path, 'streamType'], 'streamType is missing: the store cannot read the stream config without it');
  for (const suffix of ['topic.name', 'decoder.class.name']) {
    const key = `stream.${streamType}.${suffix}`;
    if (map[key] === undefined || map[key] === null || map[key] === '') issue(path, `stream config ${key} is missing: the store requires it`);
  }
  const consumerType = map[`stream.${streamType}.consumer.type`];
  if (consumerType === undefined) issue(path, `no stream.${streamType}.consumer.type: current stores need none, but older ones (0.11.0 among them) refuse the table without it`, 'warning');
  else if (String(consumerType).split(',').some((type) => type.trim().toLowerCase() === 'highlevel')) issue([...path, `stream.${streamType}.consumer.type`], 'the highlevel consumer is no longer supported by the store: use lowLevel');
}

/**
 * Stream config keys that decide where, and how, the analytics store connects to the stream
 * with the stream user's password: the brokers, the registry, the protocol, the SASL mechanism
 * and its JAAS line, TLS. Matched on the key's end, whatever prefix (stream.kafka., consumer.prop.).
 */
export const STREAM_CONNECTION_KEY = /(^|\.)(broker\.list|bootstrap\.servers|security\.protocol|sasl\.[a-z.]+|ssl\.[a-z.]+|schema\.registry\.[a-z.]*url)$/i;

/**
 * A template the manifest brings (a pull request's file) fills the stream password into the
 * table: it may not also choose where the store connects with it. Its stream connection keys
 * must read as dpgw's own template fills them from the run's settings (brokerList,
 * registryUrl, the contract's SASL_PLAINTEXT and SCRAM-SHA-512), and such keys may stand
 * nowhere else in the table (another map of stream configs). `mayLeaveOut`: keys of dpgw's own
 * template that it leaves out itself without their setting (the registry URL). `--allow-manifest-endpoints`
 * lifts it, as for the manifest's endpoint settings.
 */
export function streamConnectionIssues(table: RealtimeTableDefinition, ours: RealtimeTableDefinition, template: LocatedDocument, values: TemplateValues, mayLeaveOut: ReadonlySet<string> = new Set()): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  // Whichever place the manifest's template holds its stream config in (streamConfigs, or the one map of streamConfigMaps), against dpgw's own.
  // A template that has both places (which the store refuses) is compared at streamConfigs, and its maps are "elsewhere".
  const found = streamConfigPlace(table);
  const streamsPath: PathPart[] = found.kind === 'found' ? found.path : STREAM_CONFIGS_PATH;
  const theirs = found.kind === 'found' ? found.map : objectAt(table, ...STREAM_CONFIGS_PATH);
  const expected = objectAt(ours, ...STREAM_CONFIGS_PATH);
  // The template's own key for a filled one (`stream.${streamType}.broker.list` for stream.kafka.broker.list), for its line.
  const rawKeys = new Map(Object.keys(objectAt(template.value, ...streamsPath)).map((raw) => [raw.replace(PLACEHOLDER, (match, name: string) => String(values[name]?.value ?? match)), raw]));
  const place = (key: string) => template.at([...streamsPath, rawKeys.get(key) ?? key]);
  for (const key of new Set([...Object.keys(theirs), ...Object.keys(expected)])) {
    if (!STREAM_CONNECTION_KEY.test(key) || theirs[key] === expected[key]) continue;
    // A key dpgw's own template fills only when the run sets it (the registry URL): leaving it out chooses no endpoint.
    if (theirs[key] === undefined && mayLeaveOut.has(key)) continue;
    // A run without the setting leaves dpgw's own placeholder unfilled: it has no value to compare with.
    const runs = typeof expected[key] === 'string' && /\$\{[A-Za-z][A-Za-z0-9]*\}/.test(expected[key]) ? 'the run sets none' : `not the run's ${JSON.stringify(expected[key])}`;
    const what = expected[key] === undefined ? `adds ${key}` : theirs[key] === undefined ? `leaves out ${key}` : `sets ${key} to ${JSON.stringify(theirs[key])}, ${runs}`;
    issues.push({ where: place(key), field: fieldPath([...streamsPath, key]), message: `the manifest's template ${what}: where and how the store connects with the stream password is the run's to choose (pass --allow-manifest-endpoints to let the manifest choose it)` });
  }
  // Stream connection keys anywhere else (e.g. ingestionConfig.streamIngestionConfig.streamConfigMaps): the same rule, nothing to compare with.
  const isStreamsPath = (path: PathPart[]) => path.length === streamsPath.length && path.every((part, index) => part === streamsPath[index]);
  const elsewhere = (node: unknown, path: PathPart[]): void => {
    if (isStreamsPath(path)) return;
    if (Array.isArray(node)) return node.forEach((item, index) => elsewhere(item, [...path, index]));
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      const at = [...path, key];
      if (STREAM_CONNECTION_KEY.test(key)) {
        issues.push({ where: template.at(at), field: fieldPath(at), message: `the manifest's template sets ${key} outside ${fieldPath(streamsPath)}: where and how the store connects with the stream password is the run's to choose (pass --allow-manifest-endpoints to let the manifest choose it)` });
      } else {
        elsewhere(value, at);
      }
    }
  };
  elsewhere(table, []);
  issues.push(...passwordLineElsewhere(template, [...streamsPath, 'sasl.jaas.config']));
  return issues;
}

/**
 * `${saslJaasConfig}` is the line that carries the stream password: a manifest's template may
 * place it at the stream config's `sasl.jaas.config` alone, not in a custom config, a transform
 * or a key, where the table would hold the password for other readers of its config.
 */
function passwordLineElsewhere(template: LocatedDocument, allowed: PathPart[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const line = '${saslJaasConfig}';
  const isAllowed = (path: PathPart[]) => path.length === allowed.length && path.every((part, index) => part === allowed[index]);
  const refuse = (path: PathPart[]) => issues.push({ where: template.at(path), field: fieldPath(path), message: `the manifest's template places ${line}, the stream password's line, outside ${fieldPath(allowed)}: it goes there alone (pass --allow-manifest-endpoints to let the manifest choose it)` });
  const walk = (node: unknown, path: PathPart[]): void => {
    if (typeof node === 'string') {
      if (node.includes(line) && !isAllowed(path)) refuse(path);
    } else if (Array.isArray(node)) node.forEach((item, index) => walk(item, [...path, index]));
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key.includes(line)) refuse([...path, key]);
        else walk(value, [...path, key]);
      }
    }
  };
  walk(template.value, []);
  return issues;
}


/**
 * Every problem at once, before anything is sent: the error names the first, and carries
 * all of them (details.issues), which the reporter lists one line each. Warnings (what the
 * store reads but ignores or no longer recommends) go to `warn` at their place and refuse
 * nothing; with no `warn` to show them, they refuse, so that none is dropped unseen.
 */
export function failOnIssues(issues: ValidationIssue[], what: string, warn?: (message: string) => void): void {
  const problems = warn ? issues.filter((issue) => !isWarning(issue)) : issues;
  if (warn) for (const warning of issues.filter(isWarning)) warn(issueLine(warning));
  if (problems.length === 0) return;
  const [first] = problems as [ValidationIssue];
  const more = problems.length > 1 ? ` (and ${plural(problems.length - 1, 'more problem')})` : '';
  throw new DpgwError(what === 'manifest' ? 'MANIFEST_INVALID' : 'SCHEMA_INVALID', `${first.field}: ${first.message}${more}`, { where: first.where, hint: `fix the ${what}; nothing was sent`, details: { issues: problems } });
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => (seen.has(i.where + i.message) ? false : (seen.add(i.where + i.message), true)));
}
