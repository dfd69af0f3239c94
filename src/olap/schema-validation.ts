/**
 * Checks an analytics schema file before anything is sent, as the analytics store's own
 * reader (Apache Pinot's Schema and FieldSpec classes, read through Jackson) and its upload
 * checks (SchemaUtils.validate) take it: what they refuse is a problem at its
 * file:line:column; what they read but ignore is a warning there, and the schema is sent.
 * Each rule names the store's code it mirrors (see docs/store-schemas.md).
 */
import { nameProblem } from '../names/platform-names.js';
import { CONTRACT_DATA_TYPES } from '../contract/constants.js';
import { COMPLEX_DATA_TYPES, dateTimeFormatProblem, granularityForm, METRIC_DATA_TYPES, STORE_DATA_TYPES } from '../contract/olap-vocabulary.js';
import type { AnalyticsSchema } from '../contract/types.js';
import { closestMatch, unknownNameSuffix } from '../text/closest-match.js';
import type { LocatedDocument, PathPart } from './located-document.js';

export interface ValidationIssue {
  where: string;
  /** JSON-pointer-like path of the field: `dimensionFieldSpecs[3].dataType`. */
  field: string;
  message: string;
  /** A problem (the default) refuses; a warning is shown at its place and refuses nothing. */
  severity?: 'problem' | 'warning';
}

export const isWarning = (issue: ValidationIssue): boolean => issue.severity === 'warning';
/** An issue as one line: `file:line:col: field: message`. */
export const issueLine = (issue: ValidationIssue): string => `${issue.where}: ${issue.field}: ${issue.message}`;

// The fields the store's Schema reads and dpgw checks; Schema is @JsonIgnoreProperties(ignoreUnknown = true), so any other is read and dropped.
const SCHEMA_KEYS = ['schemaName', 'dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs', 'complexFieldSpecs', 'primaryKeyColumns', 'enableColumnBasedNullHandling', 'description'];
// FieldSpec's setters dpgw checks; Dimension-, Metric-, DateTime- and ComplexFieldSpec are each @JsonIgnoreProperties(ignoreUnknown = true).
const FIELD_KEYS = ['name', 'dataType', 'fieldType', 'singleValueField', 'defaultNullValue', 'notNull', 'maxLength', 'maxLengthExceedStrategy', 'transformFunction', 'description'];
const DATE_TIME_KEYS = [...FIELD_KEYS.filter((key) => key !== 'maxLength' && key !== 'maxLengthExceedStrategy'), 'format', 'granularity'];
const COMPLEX_KEYS = ['name', 'dataType', 'fieldType', 'notNull', 'description', 'childFieldSpecs'];
const GROUPS = ['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs'] as const;
type Group = (typeof GROUPS)[number] | 'complexFieldSpecs';
/** The type id each group's Jackson subtype carries (FieldSpec's @JsonTypeInfo(property = "fieldType") and @JsonSubTypes). */
const FIELD_TYPE_OF: Record<Group, string> = { dimensionFieldSpecs: 'DIMENSION', metricFieldSpecs: 'METRIC', dateTimeFieldSpecs: 'DATE_TIME', complexFieldSpecs: 'COMPLEX' };
/** FieldSpec.MaxLengthExceedStrategy: an other value fails Jackson's enum reading. */
const MAX_LENGTH_STRATEGIES = ['TRIM_LENGTH', 'ERROR', 'SUBSTITUTE_DEFAULT_VALUE', 'NO_ACTION'];
const ALL_TYPES = [...new Set<string>([...CONTRACT_DATA_TYPES, ...STORE_DATA_TYPES])];
/** The text Jackson coerces to a boolean (its StdDeserializer reads "true", "True", "TRUE" and likewise false). */
const BOOLEAN_TEXT: Record<string, boolean> = { true: true, True: true, TRUE: true, false: false, False: false, FALSE: false };

export function fieldPath(path: readonly PathPart[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

/**
 * Every problem and warning of a schema; the schema when nothing refuses it, with the
 * booleans written as text (`notNull: "true"`) as the booleans the store reads them as.
 */
export function validateSchema(document: LocatedDocument): { schema?: AnalyticsSchema; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const issue = (path: readonly PathPart[], message: string, atKey = false) =>
    issues.push({ where: atKey ? document.keyAt(path) : document.at(path), field: fieldPath(path) || '(top level)', message });
  const warning = (path: readonly PathPart[], message: string, atKey = false) =>
    issues.push({ where: atKey ? document.keyAt(path) : document.at(path), field: fieldPath(path) || '(top level)', message, severity: 'warning' });
  const value = document.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    issue([], 'a schema must be a mapping with schemaName and field specs');
    return { issues };
  }
  const schema = structuredClone(value) as Record<string, unknown>;
  // The store's source after release 1.5.1 refuses it on upload (SchemaUtils.rejectDeprecatedTimeFieldSpec); releases up to 1.5.1
  // still read it. dpgw refuses it: its table checks take the time column from dateTimeFieldSpecs (see docs/store-schemas.md).
  if (schema.timeFieldSpec !== undefined) issue(['timeFieldSpec'], 'timeFieldSpec is the store\'s deprecated time column, which its newest code refuses on upload: write the column in dateTimeFieldSpecs with a format such as 1:MILLISECONDS:EPOCH and a granularity such as 1:MILLISECONDS', true);
  unknownKeys(schema, SCHEMA_KEYS, [], warning, ['timeFieldSpec']);

  const name = schema.schemaName;
  if (typeof name !== 'string' || name.trim() === '') issue(['schemaName'], 'schemaName is missing');
  else if (nameProblem('schema', name) !== undefined) issue(['schemaName'], nameProblem('schema', name)!);
  if (schema.description !== undefined && typeof schema.description !== 'string') issue(['description'], `description must be text, not ${shortJson(schema.description)}`);

  const seen = new Map<string, PathPart[]>();
  let columns = 0;
  for (const group of [...GROUPS, 'complexFieldSpecs'] as const) {
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
      unknownKeys(field, group === 'dateTimeFieldSpecs' ? DATE_TIME_KEYS : group === 'complexFieldSpecs' ? COMPLEX_KEYS : FIELD_KEYS, path, warning);
      if (typeof field.name !== 'string' || field.name === '') issue([...path, 'name'], 'the field name is missing');
      else if (columnNameProblem(field.name) !== undefined) issue([...path, 'name'], columnNameProblem(field.name)!);
      else if (seen.has(field.name)) issue([...path, 'name'], `column ${escapedName(field.name)} is defined twice (also at ${document.at([...seen.get(field.name)!, 'name'])})`);
      else seen.set(field.name, path);
      const shownName = typeof field.name === 'string' ? escapedName(field.name) : '(unnamed)';
      // The store's serialisation writes fieldType; Jackson takes it as the subtype's id, so it must be the group's own.
      if (field.fieldType !== undefined && field.fieldType !== FIELD_TYPE_OF[group]) {
        issue([...path, 'fieldType'], `fieldType ${shortJson(field.fieldType)} does not match ${group}, whose fields are ${FIELD_TYPE_OF[group]}: move the field to its group, or drop fieldType`);
      }
      const type = field.dataType;
      if (typeof type !== 'string') issue([...path, 'dataType'], 'dataType is missing');
      else if (group === 'complexFieldSpecs') {
        // Schema.validate(FieldType, DataType): a COMPLEX field is STRUCT, MAP or LIST.
        if (!(COMPLEX_DATA_TYPES as readonly string[]).includes(type)) issue([...path, 'dataType'], `complex column ${shownName} must be ${COMPLEX_DATA_TYPES.join(', ')}, not ${shortJson(type)}`);
      } else if (!ALL_TYPES.includes(type)) {
        const near = closestMatch(type, ALL_TYPES);
        issue([...path, 'dataType'], `unknown dataType "${type}"${near ? ` (did you mean ${near}?)` : ''}; the contract uses ${CONTRACT_DATA_TYPES.join(', ')}`);
      } else if (group === 'metricFieldSpecs' && !METRIC_DATA_TYPES.has(type)) {
        // Schema.validate(FieldType, DataType): a METRIC is numeric, or BYTES (a serialized sketch).
        issue([...path, 'dataType'], `metric ${shownName} must be numeric (INT, LONG, FLOAT, DOUBLE, BIG_DECIMAL) or BYTES, not ${type}`);
      }
      if (group === 'dateTimeFieldSpecs') dateTimeIssues(field, path, issue, warning);
      for (const key of ['notNull', 'singleValueField'] as const) booleanField(field, key, path, issue);
      // The store keeps maxLength in a Java int: above 2^31-1 it is refused or wraps there, after dpgw has sent it.
      if (field.maxLength !== undefined && !(Number.isInteger(field.maxLength) && (field.maxLength as number) > 0 && (field.maxLength as number) <= MAX_LENGTH_LIMIT)) {
        issue([...path, 'maxLength'], `maxLength must be a whole number from 1 to ${MAX_LENGTH_LIMIT}, not ${shortJson(field.maxLength)}`);
      }
      if (field.maxLengthExceedStrategy !== undefined && !MAX_LENGTH_STRATEGIES.includes(field.maxLengthExceedStrategy as string)) {
        issue([...path, 'maxLengthExceedStrategy'], `maxLengthExceedStrategy must be one of ${MAX_LENGTH_STRATEGIES.join(', ')}, not ${shortJson(field.maxLengthExceedStrategy)}`);
      }
      if (field.defaultNullValue !== undefined && !['string', 'number', 'boolean'].includes(typeof field.defaultNullValue)) {
        issue([...path, 'defaultNullValue'], `defaultNullValue must be a single value (text, a number or true/false), not ${shortJson(field.defaultNullValue)}`);
      }
      if (field.description !== undefined && typeof field.description !== 'string') issue([...path, 'description'], `description must be text, not ${shortJson(field.description)}`);
      if (field.transformFunction !== undefined) {
        if (typeof field.transformFunction !== 'string' || field.transformFunction.trim() === '') issue([...path, 'transformFunction'], `transformFunction must be the text of a function, not ${shortJson(field.transformFunction)}`);
        // FieldSpec.setTransformFunction still reads it; SchemaUtils.validate notes transforms have moved to the table config.
        else warning([...path, 'transformFunction'], `a transform in the schema is deprecated (the store still applies it): the table config's ingestionConfig.transformConfigs is where current releases take it`, true);
      }
    });
  }
  // The two schema-wide fields the store takes besides the columns: each of its one type, so nothing unchecked is sent.
  booleanField(schema, 'enableColumnBasedNullHandling', [], issue);
  const primaryKeys = schema.primaryKeyColumns;
  if (primaryKeys !== undefined) {
    if (!Array.isArray(primaryKeys) || primaryKeys.some((column) => typeof column !== 'string')) issue(['primaryKeyColumns'], `primaryKeyColumns must be a list of column names, not ${shortJson(primaryKeys)}`);
    // SchemaUtils.validate: "The primary key column must exist".
    else for (const [index, column] of primaryKeys.entries()) if (!seen.has(column as string)) issue(['primaryKeyColumns', index], `primary key column ${escapedName(column as string)} is not a column of the schema`);
  }
  const problems = issues.filter((found) => !isWarning(found));
  if (columns === 0 && problems.length === 0) issue([], 'the schema has no columns: add dimensionFieldSpecs, metricFieldSpecs or dateTimeFieldSpecs');
  return issues.some((found) => !isWarning(found)) ? { issues } : { schema: schema as unknown as AnalyticsSchema, issues };
}

type IssueAt = (path: readonly PathPart[], message: string, atKey?: boolean) => void;

/** format and granularity as the store reads them (DateTimeFormatSpec, DateTimeGranularitySpec) and checks them on upload (SchemaUtils.validateDateTimeFieldSpec). */
function dateTimeIssues(field: Record<string, unknown>, path: readonly PathPart[], issue: IssueAt, warning: IssueAt): void {
  if (typeof field.format !== 'string') issue([...path, 'format'], 'format is missing; the contract uses 1:MILLISECONDS:EPOCH');
  else {
    const problem = dateTimeFormatProblem(field.format);
    if (problem !== undefined) issue([...path, 'format'], `format "${field.format}" is not one the store reads (${problem}): write <size>:<unit>:EPOCH, <size>:<unit>:SIMPLE_DATE_FORMAT:<pattern>, 1:MILLISECONDS:TIMESTAMP, or EPOCH|<unit>|<size>`);
  }
  if (typeof field.granularity !== 'string') issue([...path, 'granularity'], 'granularity is missing; the contract uses 1:MILLISECONDS');
  else {
    const form = granularityForm(field.granularity);
    if (form === undefined) issue([...path, 'granularity'], `granularity "${field.granularity}" is not <size>:<unit> (or <unit>|<size>) with a time unit`);
    // DateTimeGranularitySpec reads the pipe form from release 1.0.0 on; 0.11 reads only size:unit.
    else if (form === 'pipe') warning([...path, 'granularity'], `granularity "${field.granularity}" is the pipe form, which stores before release 1.0 refuse: write ${pipeAsColon(field.granularity)} to suit every release`);
  }
}

/** `SECONDS|5` as `5:SECONDS`. */
function pipeAsColon(granularity: string): string {
  const [unit, size] = granularity.split('|');
  return `${size ?? '1'}:${unit}`;
}

/** A boolean the store reads: true or false, or that text (Jackson's coercion), kept in the schema as the boolean. */
function booleanField(object: Record<string, unknown>, key: string, path: readonly PathPart[], issue: IssueAt): void {
  const given = object[key];
  if (given === undefined || typeof given === 'boolean') return;
  if (typeof given === 'string' && given in BOOLEAN_TEXT) object[key] = BOOLEAN_TEXT[given];
  else issue([...path, key], `${key} must be true or false, not ${shortJson(given)}`);
}

/** A field the store reads and drops, or one of its later fields dpgw does not check: sent as written, named at its key. */
function unknownKeys(object: Record<string, unknown>, known: readonly string[], path: readonly PathPart[], warning: IssueAt, judgedElsewhere: readonly string[] = []): void {
  for (const key of Object.keys(object)) {
    if (known.includes(key) || judgedElsewhere.includes(key)) continue;
    warning([...path, key], `"${key}" is not a field dpgw checks, so it is sent as written and the store ignores it unless it knows it${unknownNameSuffix(key, known)}`, true);
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
