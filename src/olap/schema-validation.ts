/**
 * Checks an analytics schema file before anything is sent, as the analytics store's own
 * reader (Apache Pinot's Schema and FieldSpec classes, read through Jackson) and its upload
 * checks (SchemaUtils.validate) take it: what they refuse is a problem at its
 * file:line:column; what they read but ignore is a warning there, and the schema is sent.
 * Each rule names the store's code it mirrors (see docs/store-schemas.md).
 */
import { nameProblem } from '../names/platform-names.js';
import { CONTRACT_DATA_TYPES } from '../contract/constants.js';
import { COMPLEX_DATA_TYPES, dateTimeFormatProblem, dateTimeFormatOlderReleaseNote, defaultValueProblem, granularityForm, METRIC_DATA_TYPES, sampleValueProblem, STORE_DATA_TYPES, TIME_UNITS } from '../contract/olap-vocabulary.js';
import type { AnalyticsSchema } from '../contract/types.js';
import { closestMatch, unknownNameSuffix } from '../text/closest-match.js';
import { whereText, type Where } from '../errors/source-location.js';
import type { LocatedDocument, PathPart } from './located-document.js';

export interface ValidationIssue {
  /** A place in a file (printed `file:line:column`), or a flag, setting or file named as text. */
  where: Where;
  /** JSON-pointer-like path of the field as printed: `dimensionFieldSpecs[3].dataType`. */
  field: string;
  /** The field's path in its document, when the issue is about one (`['dimensionFieldSpecs', 3, 'dataType']`). */
  path?: readonly PathPart[];
  message: string;
  /** A problem (the default) refuses; a warning is shown at its place and refuses nothing. */
  severity?: 'problem' | 'warning';
}

export const isWarning = (issue: ValidationIssue): boolean => issue.severity === 'warning';
/** An issue as one line: `file:line:col: field: message`. */
export const issueLine = (issue: ValidationIssue): string => `${whereText(issue.where)}: ${issue.field}: ${issue.message}`;

// The fields the store's Schema reads and dpgw checks; Schema is @JsonIgnoreProperties(ignoreUnknown = true), so any other is read and dropped.
const SCHEMA_KEYS = ['schemaName', 'dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs', 'complexFieldSpecs', 'primaryKeyColumns', 'enableColumnBasedNullHandling', 'description'];
// FieldSpec's setters dpgw checks; Dimension-, Metric-, DateTime- and ComplexFieldSpec are each @JsonIgnoreProperties(ignoreUnknown = true).
const FIELD_KEYS = ['name', 'dataType', 'fieldType', 'singleValueField', 'defaultNullValue', 'notNull', 'maxLength', 'maxLengthExceedStrategy', 'transformFunction', 'description'];
const DATE_TIME_KEYS = [...FIELD_KEYS.filter((key) => key !== 'maxLength' && key !== 'maxLengthExceedStrategy'), 'format', 'granularity', 'sampleValue'];
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

/** An issue about the value at a path of a document (or, `atKey`, about its key), at its place. */
export function issueAt(document: LocatedDocument, path: readonly PathPart[], message: string, options: { atKey?: boolean; severity?: 'warning' } = {}): ValidationIssue {
  const where = options.atKey ? document.keyAt(path) : document.at(path);
  return { where, field: fieldPath(path) || '(top level)', path: [...path], message, ...(options.severity ? { severity: options.severity } : {}) };
}

export function fieldPath(path: readonly PathPart[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

/**
 * Every problem and warning of a schema; the schema when nothing refuses it, with the
 * booleans written as text (`notNull: "true"`) as the booleans the store reads them as.
 */
export function validateSchema(document: LocatedDocument): { schema?: AnalyticsSchema; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const issue = (path: readonly PathPart[], message: string, atKey = false) => issues.push(issueAt(document, path, message, { atKey }));
  const warning = (path: readonly PathPart[], message: string, atKey = false) => issues.push(issueAt(document, path, message, { atKey, severity: 'warning' }));
  const value = document.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    issue([], 'a schema must be a mapping with schemaName and field specs');
    return { issues };
  }
  const schema = structuredClone(value) as Record<string, unknown>;
  unknownKeys(schema, SCHEMA_KEYS, [], warning, ['timeFieldSpec']);

  const name = schema.schemaName;
  if (typeof name !== 'string' || name.trim() === '') issue(['schemaName'], 'schemaName is missing');
  else if (nameProblem('schema', name) !== undefined) issue(['schemaName'], nameProblem('schema', name)!);
  textField(schema, 'description', [], issue);

  const names: ColumnNames = { seen: new Map(), seenLowerCase: new Map() };
  let columns = 0;
  const transforms: SchemaTransform[] = [];
  if (schema.timeFieldSpec !== undefined && schema.timeFieldSpec !== null) {
    const time = timeFieldSpecIssues(schema.timeFieldSpec, issue, warning);
    if (time !== undefined) {
      columns++;
      names.seen.set(time, ['timeFieldSpec', 'incomingGranularitySpec']);
      names.seenLowerCase.set(time.toLowerCase(), time);
    }
  }
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
      columnNameIssues(field, path, names, document, issue);
      const shownName = typeof field.name === 'string' ? escapedName(field.name) : '(unnamed)';
      const checking: FieldChecking = { group, field, path, shownName, issue, warning };
      dataTypeIssues(checking);
      fieldValueIssues(checking);
      if (field.transformFunction !== undefined && field.transformFunction !== null) {
        if (typeof field.transformFunction !== 'string' || field.transformFunction.trim() === '') issue([...path, 'transformFunction'], `transformFunction must be the text of a function, not ${shortJson(field.transformFunction)}`);
        else transforms.push({ column: typeof field.name === 'string' ? field.name : '', expression: field.transformFunction, path: [...path, 'transformFunction'] });
      }
    });
  }
  transformIssues(transforms, issue, warning);
  // The two schema-wide fields the store takes besides the columns: each of its one type, so nothing unchecked is sent.
  booleanField(schema, 'enableColumnBasedNullHandling', [], issue, warning);
  const primaryKeys = schema.primaryKeyColumns;
  if (primaryKeys !== undefined) {
    if (!Array.isArray(primaryKeys) || primaryKeys.some((column) => typeof column !== 'string')) issue(['primaryKeyColumns'], `primaryKeyColumns must be a list of column names, not ${shortJson(primaryKeys)}`);
    // SchemaUtils.validate: "The primary key column must exist".
    else for (const [index, column] of primaryKeys.entries()) if (!names.seen.has(column as string)) issue(['primaryKeyColumns', index], `primary key column ${escapedName(column as string)} is not a column of the schema`);
  }
  const problems = issues.filter((found) => !isWarning(found));
  if (columns === 0 && problems.length === 0) issue([], 'the schema has no columns: add dimensionFieldSpecs, metricFieldSpecs or dateTimeFieldSpecs');
  return issues.some((found) => !isWarning(found)) ? { issues } : { schema: schema as unknown as AnalyticsSchema, issues };
}

type IssueAt = (path: readonly PathPart[], message: string, atKey?: boolean) => void;

interface SchemaTransform {
  column: string;
  expression: string;
  path: PathPart[];
}


/** The column names met so far: where each is named, and each in lower case. */
interface ColumnNames {
  seen: Map<string, PathPart[]>;
  /**
   * SchemaUtils.validate(schema, isIgnoreCase): from release 1.0 the controller's table cache is case-insensitive by default
   * (CommonConstants.Helix.DEFAULT_ENABLE_CASE_INSENSITIVE), and two columns whose names differ only in case are refused.
   */
  seenLowerCase: Map<string, string>;
}

/** A field spec's name: given, a name the store takes, and not a second column's (nor one differing only in case). */
function columnNameIssues(field: Record<string, unknown>, path: PathPart[], names: ColumnNames, document: LocatedDocument, issue: IssueAt): void {
  const at = [...path, 'name'];
  if (typeof field.name !== 'string' || field.name === '') return issue(at, 'the field name is missing');
  const problem = columnNameProblem(field.name);
  if (problem !== undefined) return issue(at, problem);
  const first = names.seen.get(field.name);
  if (first) return issue(at, `column ${escapedName(field.name)} is defined twice (also at ${whereText(document.at([...first, 'name']))})`);
  const other = names.seenLowerCase.get(field.name.toLowerCase());
  if (other !== undefined) return issue(at, `column ${escapedName(field.name)} differs only in case from column ${escapedName(other)}, which the store (case-insensitive by default from release 1.0) refuses: rename one of them`);
  names.seen.set(field.name, path);
  names.seenLowerCase.set(field.name.toLowerCase(), field.name);
}

/** One field spec being checked: its group, its value, its path, its name as shown, and where its issues go. */
interface FieldChecking {
  group: Group;
  field: Record<string, unknown>;
  path: PathPart[];
  shownName: string;
  issue: IssueAt;
  warning: IssueAt;
}

/** A field spec's fieldType and dataType, as the store reads them for its group. */
function dataTypeIssues({ group, field, path, shownName, issue, warning }: FieldChecking): void {
  // The store's serialisation writes fieldType; Jackson takes it as the subtype's id, so it must be the group's own.
  if (field.fieldType !== undefined && field.fieldType !== FIELD_TYPE_OF[group]) {
    issue([...path, 'fieldType'], `fieldType ${shortJson(field.fieldType)} does not match ${group}, whose fields are ${FIELD_TYPE_OF[group]}: move the field to its group, or drop fieldType`);
  }
  const type = field.dataType;
  if (typeof type !== 'string') issue([...path, 'dataType'], 'dataType is missing');
  else if (group === 'complexFieldSpecs') {
    // FieldSpec.getDefaultNullValue(COMPLEX, …) (release 1.x) has a default only for MAP and LIST: STRUCT is refused on upload.
    if (!(COMPLEX_DATA_TYPES as readonly string[]).includes(type)) issue([...path, 'dataType'], `complex column ${shownName} must be ${COMPLEX_DATA_TYPES.join(' or ')}, not ${shortJson(type)}`);
    // ComplexFieldSpec's childFieldSpecs are FieldSpecs: release 1.x reads each by its fieldType (FieldSpec's @JsonTypeInfo).
    childFieldSpecIssues(field.childFieldSpecs, [...path, 'childFieldSpecs'], issue);
  } else if (!ALL_TYPES.includes(type)) {
    const near = closestMatch(type, ALL_TYPES);
    issue([...path, 'dataType'], `unknown dataType "${type}"${near ? ` (did you mean ${near}?)` : ''}; the contract uses ${CONTRACT_DATA_TYPES.join(', ')}`);
  } else if (group === 'metricFieldSpecs' && !METRIC_DATA_TYPES.has(type)) {
    // Schema.validate(FieldType, DataType): a METRIC is numeric, or BYTES (a serialized sketch).
    issue([...path, 'dataType'], `metric ${shownName} must be numeric (INT, LONG, FLOAT, DOUBLE, BIG_DECIMAL) or BYTES, not ${type}`);
  } else if (type === 'BIG_DECIMAL' && group !== 'metricFieldSpecs') {
    // FieldSpec.getDefaultNullValue: release 0.11 has no dimension or date-time default for BIG_DECIMAL and refuses it; 1.0 on reads it.
    warning([...path, 'dataType'], `a BIG_DECIMAL ${group === 'dateTimeFieldSpecs' ? 'date-time' : 'dimension'} column is read from the store's release 1.0 on; release 0.11 refuses it`);
  }
}

/** A field spec's other values: date-time format, booleans, multi-value, lengths, default, description, sample value. */
function fieldValueIssues({ group, field, path, shownName, issue, warning }: FieldChecking): void {
  const type = field.dataType;
  if (group === 'dateTimeFieldSpecs') dateTimeIssues(field, path, issue, warning);
  for (const key of ['notNull', 'singleValueField'] as const) booleanField(field, key, path, issue, warning);
  if (field.singleValueField === false && typeof type === 'string') multiValueIssues(group, type, shownName, [...path, 'singleValueField'], issue);
  maxLengthIssues(field, path, issue, warning);
  if (field.maxLengthExceedStrategy !== undefined && !MAX_LENGTH_STRATEGIES.includes(field.maxLengthExceedStrategy as string)) {
    issue([...path, 'maxLengthExceedStrategy'], `maxLengthExceedStrategy must be one of ${MAX_LENGTH_STRATEGIES.join(', ')}, not ${shortJson(field.maxLengthExceedStrategy)}`);
  }
  if (field.defaultNullValue !== undefined && field.defaultNullValue !== null && typeof type === 'string' && group !== 'complexFieldSpecs') {
    const problem = defaultValueProblem(type, field.defaultNullValue);
    if (problem !== undefined) issue([...path, 'defaultNullValue'], `defaultNullValue ${shortJson(field.defaultNullValue)} of ${shownName}: ${problem}`);
  }
  textField(field, 'description', path, issue);
  if (group === 'dateTimeFieldSpecs' && field.sampleValue !== undefined && field.sampleValue !== null && typeof field.format === 'string') {
    const problem = sampleValueProblem(field.format, field.sampleValue);
    if (problem !== undefined) issue([...path, 'sampleValue'], `sampleValue ${shortJson(field.sampleValue)} of ${shownName}: ${problem}`);
  }
}

/**
 * The legacy time column, read as the store reads it: TimeFieldSpec with an incomingGranularitySpec and an optional
 * outgoingGranularitySpec (TimeGranularitySpec: name, dataType, timeType a TimeUnit, timeUnitSize, timeFormat).
 * Releases 0.11 to 1.5.1 take it; dpgw takes it with a warning naming the dateTimeFieldSpecs form. Its name, when read.
 */
function timeFieldSpecIssues(given: unknown, issue: IssueAt, warning: IssueAt): string | undefined {
  const path = ['timeFieldSpec'];
  if (typeof given !== 'object' || Array.isArray(given)) {
    issue(path, `timeFieldSpec must be a mapping with incomingGranularitySpec, not ${shortJson(given)}`);
    return undefined;
  }
  const spec = given as Record<string, unknown>;
  const granularity = (key: 'incomingGranularitySpec' | 'outgoingGranularitySpec'): Record<string, unknown> | undefined => {
    const value = spec[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) {
      issue([...path, key], `${key} must be a mapping with name, dataType and timeType, not ${shortJson(value)}`);
      return undefined;
    }
    const part = value as Record<string, unknown>;
    // TimeGranularitySpec(DataType, TimeUnit, int, String): each is needed, the unit a java.util.concurrent.TimeUnit name.
    if (typeof part.name !== 'string' || part.name === '') issue([...path, key, 'name'], 'the time column\'s name is missing');
    if (typeof part.dataType !== 'string' || !ALL_TYPES.includes(part.dataType)) issue([...path, key, 'dataType'], `dataType must be one of ${STORE_DATA_TYPES.join(', ')}, not ${shortJson(part.dataType)}`);
    if (typeof part.timeType !== 'string' || !(TIME_UNITS as readonly string[]).includes(part.timeType)) issue([...path, key, 'timeType'], `timeType must be one of ${TIME_UNITS.join(', ')}, not ${shortJson(part.timeType)}`);
    return part;
  };
  const incoming = granularity('incomingGranularitySpec');
  if (incoming === undefined) {
    issue(path, 'timeFieldSpec needs an incomingGranularitySpec');
    return undefined;
  }
  const outgoing = granularity('outgoingGranularitySpec');
  // SchemaUtils.validateTimeFieldSpec: converting incoming to outgoing needs two names, and EPOCH on both sides.
  if (outgoing !== undefined && JSON.stringify(incoming) !== JSON.stringify(outgoing)) {
    if (incoming.name === outgoing.name) issue([...path, 'outgoingGranularitySpec', 'name'], `the outgoing time column must have a name of its own to be converted from ${shortJson(incoming.name)}`);
    const epoch = (part: Record<string, unknown>) => part.timeFormat === undefined || part.timeFormat === 'EPOCH';
    if (!epoch(incoming) || !epoch(outgoing)) issue([...path, 'outgoingGranularitySpec'], 'the store converts a time column from incoming to outgoing only when both are EPOCH');
  }
  const name = (outgoing ?? incoming).name;
  warning(path, 'timeFieldSpec is the store\'s deprecated time column (releases up to 1.5.1 read it; its newest source refuses it): write the column in dateTimeFieldSpecs with a format such as 1:MILLISECONDS:EPOCH and a granularity such as 1:MILLISECONDS', true);
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** ComplexFieldSpec.childFieldSpecs: a mapping of FieldSpecs, each read by its fieldType from release 1.0 on. */
function childFieldSpecIssues(given: unknown, path: PathPart[], issue: IssueAt): void {
  if (given === undefined || given === null) return;
  if (typeof given !== 'object' || Array.isArray(given)) {
    issue(path, `childFieldSpecs must be a mapping of field specs, not ${shortJson(given)}`);
    return;
  }
  for (const [key, child] of Object.entries(given as Record<string, unknown>)) {
    const fieldType = (child as Record<string, unknown> | null)?.fieldType;
    if (typeof child !== 'object' || child === null || typeof fieldType !== 'string' || !Object.values(FIELD_TYPE_OF).includes(fieldType)) {
      issue([...path, key], `child field spec ${escapedName(key)} needs a fieldType (DIMENSION, METRIC, DATE_TIME or COMPLEX): the store reads each child by it`);
    }
  }
}

/**
 * A multi-value column: MetricFieldSpec and DateTimeFieldSpec take only single values; SchemaUtils.validateMultiValueCompatibility
 * (release 1.x) refuses a multi-value JSON or BIG_DECIMAL column.
 */
function multiValueIssues(group: Group, type: string, shownName: string, path: PathPart[], issue: IssueAt): void {
  if (group === 'metricFieldSpecs' || group === 'dateTimeFieldSpecs') issue(path, `a ${group === 'metricFieldSpecs' ? 'metric' : 'date-time'} column holds one value: ${shownName} cannot be multi-value`);
  else if (type === 'JSON' || type === 'BIG_DECIMAL') issue(path, `a ${type} column cannot be multi-value (${shownName}): write it single-value`);
}

/**
 * Transforms written in the schema (FieldSpec.setTransformFunction, still read; SchemaUtils.validate notes they have moved to
 * the table config): SchemaUtils.validate reads each one's arguments (FunctionEvaluatorFactory) and refuses a transform of its
 * own column, one it cannot parse, and one taking another transform's output.
 */
function transformIssues(transforms: readonly SchemaTransform[], issue: IssueAt, warning: IssueAt): void {
  const outputs = new Set(transforms.map((transform) => transform.column));
  for (const transform of transforms) {
    const parsed = transformArguments(transform.expression);
    if (parsed === undefined) {
      issue(transform.path, `the store cannot read the transform ${shortJson(transform.expression)}: write a function call such as upper(name), or Groovy({…}, arguments)`);
      continue;
    }
    if (parsed.includes(transform.column)) issue(transform.path, `the transform of ${escapedName(transform.column)} takes ${escapedName(transform.column)} itself as an argument: read it from another column`);
    const chained = parsed.filter((argument) => argument !== transform.column && outputs.has(argument));
    if (chained.length > 0) issue(transform.path, `the transform of ${escapedName(transform.column)} takes the output of another transform (${chained.map(escapedName).join(', ')}), which the store refuses: take the source columns`);
    else warning(transform.path, `a transform in the schema is deprecated (the store still applies it; dpgw checks its form and arguments, not its function's name): the table config's ingestionConfig.transformConfigs is where current releases take it`, true);
  }
}

/**
 * The columns a transform reads, as the store's FunctionEvaluatorFactory finds them: Groovy({script}, a, b) names them after
 * the script; any other expression is a function call whose bare identifiers are columns. Undefined when it is not one.
 */
function transformArguments(expression: string): string[] | undefined {
  const groovy = /^\s*Groovy\s*\(\s*\{[\s\S]*\}\s*((?:,\s*[^,\s()]+\s*)*)\)\s*$/.exec(expression);
  if (groovy) return groovy[1]!.split(',').map((part) => part.trim()).filter((part) => part !== '');
  const tokens = expression.match(/'(?:[^']|'')*'|"(?:[^"]|"")*"|[A-Za-z_$][A-Za-z0-9_$.]*|-?[0-9]+(?:\.[0-9]+)?|[(),]|\S/g) ?? [];
  let depth = 0;
  const columns: string[] = [];
  if (tokens.length < 3 || !/^[A-Za-z_]/.test(tokens[0]!) || tokens[1] !== '(') return undefined;
  for (const [index, token] of tokens.entries()) {
    if (token === '(') depth++;
    else if (token === ')') {
      depth--;
      if (depth < 0 || (depth === 0 && index !== tokens.length - 1)) return undefined;
    } else if (/^[A-Za-z_$]/.test(token) && tokens[index + 1] !== '(' && !['true', 'false', 'null'].includes(token.toLowerCase())) columns.push(token);
    else if (!/^['"0-9,(-]/.test(token) && !/^[A-Za-z_$]/.test(token)) return undefined;
  }
  return depth === 0 ? [...new Set(columns)] : undefined;
}

/** format and granularity as the store reads them (DateTimeFormatSpec, DateTimeGranularitySpec) and checks them on upload (SchemaUtils.validateDateTimeFieldSpec). */
function dateTimeIssues(field: Record<string, unknown>, path: readonly PathPart[], issue: IssueAt, warning: IssueAt): void {
  if (typeof field.format !== 'string') issue([...path, 'format'], 'format is missing; the contract uses 1:MILLISECONDS:EPOCH');
  else {
    const problem = dateTimeFormatProblem(field.format);
    if (problem !== undefined) issue([...path, 'format'], `format "${field.format}" is not one the store reads (${problem}): write <size>:<unit>:EPOCH, <size>:<unit>:SIMPLE_DATE_FORMAT:<pattern>, 1:MILLISECONDS:TIMESTAMP, or EPOCH|<unit>|<size>`);
    else if (dateTimeFormatOlderReleaseNote(field.format) !== undefined) warning([...path, 'format'], `format "${field.format}" ${dateTimeFormatOlderReleaseNote(field.format)!}`);
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

/**
 * A boolean the store reads (FieldSpec's and Schema's primitive boolean setters, through Jackson's default coercion):
 * true or false, that text, a whole number (0 is false, any other true), or null and "" (the primitive's false).
 * Kept in the schema as the boolean the store reads; a number, null or "" is named in a warning with what it becomes.
 */
function booleanField(object: Record<string, unknown>, key: string, path: readonly PathPart[], issue: IssueAt, warning: IssueAt): void {
  const given = object[key];
  if (given === undefined || typeof given === 'boolean') return;
  if (typeof given === 'string' && given in BOOLEAN_TEXT) object[key] = BOOLEAN_TEXT[given];
  else if (Number.isInteger(given) || given === null || given === '') {
    object[key] = typeof given === 'number' && given !== 0;
    warning([...path, key], `${key} ${shortJson(given)} is read by the store as ${String(object[key])}: write ${String(object[key])}`);
  } else issue([...path, key], `${key} must be true or false, not ${shortJson(given)}`);
}

/** Text the store reads into a String: Jackson takes a number or a boolean as its text too; a list or a mapping fails. */
function textField(object: Record<string, unknown>, key: string, path: readonly PathPart[], issue: IssueAt): void {
  const given = object[key];
  if (given === undefined || given === null || typeof given === 'string') return;
  if (typeof given === 'number' || typeof given === 'boolean') object[key] = String(given);
  else issue([...path, key], `${key} must be text, not ${shortJson(given)}`);
}

/** maxLength, a Java int in FieldSpec: Jackson takes a whole number, a fraction (cut to its whole part) or that number as text. */
function maxLengthIssues(field: Record<string, unknown>, path: readonly PathPart[], issue: IssueAt, warning: IssueAt): void {
  const given = field.maxLength;
  if (given === undefined || given === null) return;
  const read = typeof given === 'number' ? Math.trunc(given) : typeof given === 'string' && /^[+-]?[0-9]+$/.test(given.trim()) ? Number(given.trim()) : undefined;
  if (read === undefined || read > MAX_LENGTH_LIMIT || read < -MAX_LENGTH_LIMIT - 1) {
    issue([...path, 'maxLength'], `maxLength must be a whole number up to ${MAX_LENGTH_LIMIT}, not ${shortJson(given)}`);
    return;
  }
  field.maxLength = read;
  // The store takes it, but a length below 1 keeps no character of a value.
  if (read < 1) warning([...path, 'maxLength'], `maxLength ${read} keeps no character of a value: write a length of 1 or more, or drop maxLength`);
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
