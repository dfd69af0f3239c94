/**
 * Table templates: a YAML definition with ${placeholder}s, filled from the data
 * set (topic), the schema (name, time column) and the settings, then checked
 * before anything is sent. Errors name the template's file:line:column, or the
 * setting that would fill a missing value.
 */
import { objectAt } from './object-at.js';
import { isRetentionDays } from '../settings/setting-checks.js';
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

/** What fills each placeholder; `how` says how a user sets it, for the error when it is missing. */
export type TemplateValues = Record<string, { value: string | number | undefined; how: string }>;

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
      for (const [key, value] of Object.entries(node)) out[String(fill(key, [...path, key]))] = walk(value, [...path, key]);
      return out;
    }
    return node;
  };
  const table = walk(template.value, []) as RealtimeTableDefinition;
  return { table, issues: dedupe(issues) };
}

/** The checks a filled definition must pass before it is sent. */
export function checkTable(table: RealtimeTableDefinition, schema: AnalyticsSchema | undefined, template: LocatedDocument): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const issue = (path: PathPart[], message: string) => issues.push({ where: template.at(path), field: fieldPath(path), message });
  if (table.tableType !== TABLE_DEFAULTS.tableType) issue(['tableType'], `tableType must be ${TABLE_DEFAULTS.tableType}, not ${String(table.tableType)}`);
  const segments = table.segmentsConfig ?? ({} as RealtimeTableDefinition['segmentsConfig']);
  if (!table.segmentsConfig) issue(['segmentsConfig'], 'segmentsConfig is missing');
  if (segments.retentionTimeUnit !== TABLE_DEFAULTS.retentionTimeUnit) issue(['segmentsConfig', 'retentionTimeUnit'], `retention is counted in ${TABLE_DEFAULTS.retentionTimeUnit}, not ${String(segments.retentionTimeUnit)}`);
  if (!isRetentionDays(segments.retentionTimeValue)) {
    issue(['segmentsConfig', 'retentionTimeValue'], `retentionTimeValue must be a positive whole number of days, not ${JSON.stringify(segments.retentionTimeValue)} (--retention-days)`);
  }
  for (const key of ['replication', 'replicasPerPartition'] as const) {
    if (!(Number.isInteger(segments[key]) && segments[key] > 0)) issue(['segmentsConfig', key], `${key} must be a positive whole number`);
  }
  const streams = table.tableIndexConfig?.streamConfigs;
  if (!streams || typeof streams !== 'object') issue(['tableIndexConfig', 'streamConfigs'], 'streamConfigs is missing: a REALTIME table needs its stream');
  else for (const [key, value] of Object.entries(streams)) if (typeof value !== 'string') issue(['tableIndexConfig', 'streamConfigs', key], `stream config ${key} must be a string`);
  if (!table.tenants?.broker || !table.tenants?.server) issue(['tenants'], 'tenants must name a broker and a server tenant');

  if (schema) {
    const columns = schemaColumns(schema);
    if (segments.schemaName !== schema.schemaName) issue(['segmentsConfig', 'schemaName'], `schemaName "${segments.schemaName}" is not the schema's name "${schema.schemaName}"`);
    const time = columns.get(segments.timeColumnName);
    if (!time) issue(['segmentsConfig', 'timeColumnName'], `time column "${segments.timeColumnName}" is not a column of schema ${schema.schemaName}`);
    else if (time.group !== 'dateTimeFieldSpecs') issue(['segmentsConfig', 'timeColumnName'], `time column "${segments.timeColumnName}" is a ${time.group === 'metricFieldSpecs' ? 'metric' : 'dimension'}, not a date-time column of schema ${schema.schemaName}`);
    issues.push(...tableConfigIssues(table, schema, (path) => template.at(path)));
  }
  return issues;
}

/**
 * Stream config keys that decide where, and how, the analytics store connects to the stream
 * with the stream user's password: the brokers, the registry, the protocol, the SASL mechanism
 * and its JAAS line, TLS. Matched on the key's end, whatever prefix (stream.kafka., consumer.prop.).
 */
const STREAM_CONNECTION_KEY = /(^|\.)(broker\.list|bootstrap\.servers|security\.protocol|sasl\.[a-z.]+|ssl\.[a-z.]+|schema\.registry\.[a-z.]*url)$/i;

/**
 * A template the manifest brings (a pull request's file) fills the stream password into the
 * table: it may not also choose where the store connects with it. Its stream connection keys
 * must read as dpgw's own template fills them from the run's settings (brokerList,
 * registryUrl, the contract's SASL_PLAINTEXT and SCRAM-SHA-512), and such keys may stand
 * nowhere else in the table (another map of stream configs). `--allow-manifest-endpoints`
 * lifts it, as for the manifest's endpoint settings.
 */
export function streamConnectionIssues(table: RealtimeTableDefinition, ours: RealtimeTableDefinition, template: LocatedDocument, values: TemplateValues): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const streamsPath: PathPart[] = ['tableIndexConfig', 'streamConfigs'];
  const theirs = objectAt(table, ...streamsPath);
  const expected = objectAt(ours, ...streamsPath);
  // The template's own key for a filled one (`stream.${streamType}.broker.list` for stream.kafka.broker.list), for its line.
  const rawKeys = new Map(Object.keys(objectAt(template.value, ...streamsPath)).map((raw) => [raw.replace(PLACEHOLDER, (match, name: string) => String(values[name]?.value ?? match)), raw]));
  const place = (key: string) => template.at([...streamsPath, rawKeys.get(key) ?? key]);
  for (const key of new Set([...Object.keys(theirs), ...Object.keys(expected)])) {
    if (!STREAM_CONNECTION_KEY.test(key) || theirs[key] === expected[key]) continue;
    // A run without the setting leaves dpgw's own placeholder unfilled: it has no value to compare with.
    const runs = typeof expected[key] === 'string' && /\$\{[A-Za-z][A-Za-z0-9]*\}/.test(expected[key]) ? 'the run sets none' : `not the run's ${JSON.stringify(expected[key])}`;
    const what = expected[key] === undefined ? `adds ${key}` : theirs[key] === undefined ? `leaves out ${key}` : `sets ${key} to ${JSON.stringify(theirs[key])}, ${runs}`;
    issues.push({ where: place(key), field: fieldPath([...streamsPath, key]), message: `the manifest's template ${what}: where and how the store connects with the stream password is the run's to choose (pass --allow-manifest-endpoints to let the manifest choose it)` });
  }
  // Stream connection keys anywhere else (e.g. ingestionConfig.streamIngestionConfig.streamConfigMaps): the same rule, nothing to compare with.
  const elsewhere = (node: unknown, path: PathPart[]): void => {
    if (Array.isArray(node)) return node.forEach((item, index) => elsewhere(item, [...path, index]));
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      const at = [...path, key];
      if (at.length === 2 && at[0] === streamsPath[0] && at[1] === streamsPath[1]) continue;
      if (STREAM_CONNECTION_KEY.test(key)) {
        issues.push({ where: template.at(at), field: fieldPath(at), message: `the manifest's template sets ${key} outside tableIndexConfig.streamConfigs: where and how the store connects with the stream password is the run's to choose (pass --allow-manifest-endpoints to let the manifest choose it)` });
      } else {
        elsewhere(value, at);
      }
    }
  };
  elsewhere(table, []);
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
  throw new DpgwError('input', `${first.field}: ${first.message}${more}`, { code: what === 'manifest' ? 'MANIFEST_INVALID' : 'SCHEMA_INVALID', where: first.where, hint: `fix the ${what}; nothing was sent`, details: { issues: problems } });
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => (seen.has(i.where + i.message) ? false : (seen.add(i.where + i.message), true)));
}
