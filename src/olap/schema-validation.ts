/**
 * Checks an analytics schema file before anything is sent: every problem with
 * its file:line:column. The rules are the contract's (field specs, date-time
 * patterns) and the analytics store's (data types, unique columns, numeric metrics).
 */
import { nameProblem } from '../names/platform-names.js';
import { CONTRACT_DATA_TYPES } from '../contract/constants.js';
import { isDateTimeFormat, isGranularity, NUMERIC_DATA_TYPES, STORE_DATA_TYPES, TIME_UNITS } from '../contract/olap-vocabulary.js';
import type { AnalyticsSchema } from '../contract/types.js';
import { closestMatch, unknownNameSuffix } from '../text/closest-match.js';
import type { LocatedDocument, PathPart } from './located-document.js';

export interface ValidationIssue {
  where: string;
  /** JSON-pointer-like path of the field: `dimensionFieldSpecs[3].dataType`. */
  field: string;
  message: string;
}

const SCHEMA_KEYS = ['schemaName', 'dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs', 'primaryKeyColumns', 'enableColumnBasedNullHandling'];
const FIELD_KEYS = ['name', 'dataType', 'singleValueField', 'defaultNullValue', 'notNull', 'maxLength'];
const DATE_TIME_KEYS = ['name', 'dataType', 'notNull', 'format', 'granularity', 'defaultNullValue'];
const GROUPS = ['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs'] as const;
const ALL_TYPES = [...new Set<string>([...CONTRACT_DATA_TYPES, ...STORE_DATA_TYPES])];

export function fieldPath(path: readonly PathPart[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

export function validateSchema(document: LocatedDocument): { schema?: AnalyticsSchema; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const issue = (path: readonly PathPart[], message: string, atKey = false) =>
    issues.push({ where: atKey ? document.keyAt(path) : document.at(path), field: fieldPath(path) || '(top level)', message });
  const value = document.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    issue([], 'a schema must be a mapping with schemaName and field specs');
    return { issues };
  }
  const schema = value as Record<string, unknown>;
  unknownKeys(schema, SCHEMA_KEYS, [], issue);

  const name = schema.schemaName;
  if (typeof name !== 'string' || name.trim() === '') issue(['schemaName'], 'schemaName is missing');
  else if (nameProblem('schema', name) !== undefined) issue(['schemaName'], nameProblem('schema', name)!);

  const seen = new Map<string, PathPart[]>();
  let columns = 0;
  for (const group of GROUPS) {
    const specs = schema[group];
    if (specs === undefined || specs === null) continue;
    if (!Array.isArray(specs)) {
      issue([group], `${group} must be a list of field specs`);
      continue;
    }
    specs.forEach((spec: unknown, index) => {
      const path = [group, index];
      if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
        issue(path, 'a field spec must be a mapping with name and dataType');
        return;
      }
      const field = spec as Record<string, unknown>;
      columns++;
      unknownKeys(field, group === 'dateTimeFieldSpecs' ? DATE_TIME_KEYS : FIELD_KEYS, path, issue);
      if (typeof field.name !== 'string' || field.name === '') issue([...path, 'name'], 'the field name is missing');
      else if (columnNameProblem(field.name) !== undefined) issue([...path, 'name'], columnNameProblem(field.name)!);
      else if (seen.has(field.name)) issue([...path, 'name'], `column ${escapedName(field.name)} is defined twice (also at ${document.at([...seen.get(field.name)!, 'name'])})`);
      else seen.set(field.name, path);
      const type = field.dataType;
      if (typeof type !== 'string') issue([...path, 'dataType'], 'dataType is missing');
      else if (!ALL_TYPES.includes(type)) {
        const near = closestMatch(type, ALL_TYPES);
        issue([...path, 'dataType'], `unknown dataType "${type}"${near ? ` (did you mean ${near}?)` : ''}; the contract uses ${CONTRACT_DATA_TYPES.join(', ')}`);
      } else if (group === 'metricFieldSpecs' && !NUMERIC_DATA_TYPES.has(type)) {
        issue([...path, 'dataType'], `metric ${typeof field.name === 'string' ? escapedName(field.name) : '(unnamed)'} must be numeric (INT, LONG, FLOAT, DOUBLE, BIG_DECIMAL), not ${type}`);
      }
      if (group === 'dateTimeFieldSpecs') {
        if (typeof field.format !== 'string') issue([...path, 'format'], 'format is missing; the contract uses 1:MILLISECONDS:EPOCH');
        else if (!isDateTimeFormat(field.format)) issue([...path, 'format'], `format "${field.format}" is not <size>:<unit>:EPOCH (unit one of ${TIME_UNITS.join(', ')}) or another form the store reads`);
        if (typeof field.granularity !== 'string') issue([...path, 'granularity'], 'granularity is missing; the contract uses 1:MILLISECONDS');
        else if (!isGranularity(field.granularity)) issue([...path, 'granularity'], `granularity "${field.granularity}" is not <size>:<unit> with a time unit`);
      }
      for (const key of ['notNull', 'singleValueField'] as const) {
        if (field[key] !== undefined && typeof field[key] !== 'boolean') issue([...path, key], `${key} must be true or false, not ${shortJson(field[key])}`);
      }
      // The store keeps maxLength in a Java int: above 2^31-1 it is refused or wraps there, after dpgw has sent it.
      if (field.maxLength !== undefined && !(Number.isInteger(field.maxLength) && (field.maxLength as number) > 0 && (field.maxLength as number) <= MAX_LENGTH_LIMIT)) {
        issue([...path, 'maxLength'], `maxLength must be a whole number from 1 to ${MAX_LENGTH_LIMIT}, not ${shortJson(field.maxLength)}`);
      }
      if (field.defaultNullValue !== undefined && !['string', 'number', 'boolean'].includes(typeof field.defaultNullValue)) {
        issue([...path, 'defaultNullValue'], `defaultNullValue must be a single value (text, a number or true/false), not ${shortJson(field.defaultNullValue)}`);
      }
    });
  }
  // The two schema-wide fields the store takes besides the columns: each of its one type, so nothing unchecked is sent.
  if (schema.enableColumnBasedNullHandling !== undefined && typeof schema.enableColumnBasedNullHandling !== 'boolean') {
    issue(['enableColumnBasedNullHandling'], `enableColumnBasedNullHandling must be true or false, not ${shortJson(schema.enableColumnBasedNullHandling)}`);
  }
  const primaryKeys = schema.primaryKeyColumns;
  if (primaryKeys !== undefined) {
    if (!Array.isArray(primaryKeys) || primaryKeys.some((column) => typeof column !== 'string')) issue(['primaryKeyColumns'], `primaryKeyColumns must be a list of column names, not ${shortJson(primaryKeys)}`);
    else for (const [index, column] of primaryKeys.entries()) if (!seen.has(column as string)) issue(['primaryKeyColumns', index], `primary key column ${escapedName(column as string)} is not a column of the schema`);
  }
  if (columns === 0 && issues.length === 0) issue([], 'the schema has no columns: add dimensionFieldSpecs, metricFieldSpecs or dateTimeFieldSpecs');
  return issues.length === 0 ? { schema: schema as unknown as AnalyticsSchema, issues } : { issues };
}

function unknownKeys(object: Record<string, unknown>, known: readonly string[], path: readonly PathPart[], issue: (path: readonly PathPart[], message: string, atKey?: boolean) => void): void {
  for (const key of Object.keys(object)) {
    if (known.includes(key)) continue;
    issue([...path, key], `unknown field "${key}"${unknownNameSuffix(key, known)}`, true);
  }
}

/** The largest maxLength: the store's Java int. */
export const MAX_LENGTH_LIMIT = 2 ** 31 - 1;
/** The longest column name dpgw sends; far above any real column, far below a name that is a mistake. */
export const MAX_COLUMN_NAME_LENGTH = 512;
/**
 * What a column name must not hold: white space anywhere (the store's rule, Pinot's
 * SchemaUtils.validate: "should not contain blank space"), and control, format (the
 * bidirectional overrides and isolates, U+200E/F, U+FEFF), line or paragraph separators
 * and lone surrogates, which would reorder or hide what a terminal, a query or a
 * dashboard shows.
 */
const COLUMN_NAME_UNSAFE = /[\p{White_Space}\p{Cc}\p{Cf}\p{Cs}]/u;

/** What is wrong with a column name, or undefined; the name shown escaped, on one line, cut short. */
export function columnNameProblem(name: string): string | undefined {
  const rule = `column names are 1 to ${MAX_COLUMN_NAME_LENGTH} characters without white space or control characters`;
  if (name.length === 0) return `the column name is empty: ${rule}`;
  if (name.length > MAX_COLUMN_NAME_LENGTH) return `the column name ${escapedName(name)} is ${name.length} characters long: ${rule}`;
  const found = COLUMN_NAME_UNSAFE.exec(name);
  if (!found) return undefined;
  const code = `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  const what = /^\s$/u.test(found[0]) ? (found[0] === ' ' ? 'a space' : `white space (${code})`) : `a control or format character (${code})`;
  return `the column name ${escapedName(name)} has ${what} at position ${[...name.slice(0, found.index)].length + 1}: ${rule}`;
}

/** A name as one line shows it: JSON-quoted, cut short, and every character that could hide or reorder text as a \u escape. */
function escapedName(name: string): string {
  const cut = name.length > 60 ? `${name.slice(0, 57)}…` : name;
  return JSON.stringify(cut).replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A value as a message shows it: JSON, cut short. */
function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** Every column of a schema, by name, with its group. */
export function schemaColumns(schema: AnalyticsSchema): Map<string, { group: (typeof GROUPS)[number]; dataType: string }> {
  const columns = new Map<string, { group: (typeof GROUPS)[number]; dataType: string }>();
  for (const group of GROUPS) for (const spec of schema[group] ?? []) columns.set(spec.name, { group, dataType: spec.dataType });
  return columns;
}
