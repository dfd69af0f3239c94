/**
 * Sampled messages held against a schema before its table is made: the costliest failure
 * of a realtime table is silent — it consumes, and a column stays empty forever because the
 * schema says `objtype` where the messages say `objType`, or a value the store cannot read
 * as the column's type is dropped. The store raises no error for either.
 *
 * Each column is judged as the analytics store would fill it (docs/tables.md, "Messages held
 * against the schema"): from the message after the table's complex-type flattening, from the
 * stream's metadata, by an ingestion transform or an aggregation (then its inputs must be
 * carried), or not at all. What fits follows the store's own conversion of a JSON value to a
 * column's type: numbers and numeric text fit number columns, anything scalar fits a STRING
 * column, anything fits JSON; null is a missing value, never a misfit. A column the check
 * cannot judge is named and passed, never refused.
 */
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';
import { closestMatch } from '../text/closest-match.js';
import { isMapping } from '../olap/object-at.js';

export interface MissingColumn {
  column: string;
  /** A field of the messages that differs only in case or by a small edit. */
  likely?: string;
  /** The column is filled from this field (a transform's or an aggregation's input), which no message carries. */
  input?: string;
  /** The expression the input feeds, as the table writes it. */
  expression?: string;
  /** Why the store leaves it empty, when it is not a field the messages lack (a metadata column without metadata.populate). */
  because?: string;
}

export interface MistypedColumn {
  column: string;
  dataType: string;
  /** One value that does not fit, as JSON (shortened). */
  example: string;
  /** Where that value is: topic/partition@offset. */
  where: string;
}

/** A column the check passes without judging it, and why. */
export interface UnjudgedColumn {
  column: string;
  reason: string;
}

/** How the check judged the columns not read straight from a message's field. */
export interface FitJudged {
  /** Filled by the store from the stream's metadata (`__key`, `__metadata$offset`, …). */
  filledByStore: string[];
  /** Read from a field the complex-type flattening makes (`group.id`). */
  flattened: string[];
  /** Filled by an ingestion transform, its inputs carried. */
  transformed: string[];
  /** Filled by an ingestion aggregation, its input carried. */
  aggregated: string[];
  /** Passed unjudged: an expression the check does not read, a type it has no rule for. */
  notJudged: UnjudgedColumn[];
  /** Passed unjudged because the user said so (`--sample-ignore`, `sampleCheck.ignore`). */
  ignored: string[];
}

export interface FitReport {
  messages: number;
  missing: MissingColumn[];
  mistyped: MistypedColumn[];
  /** Fields the messages carry that the schema lacks: not stored. */
  extra: string[];
  judged: FitJudged;
}

export interface FitOptions {
  /** Columns the user knows better about: not judged (each must be a column of the schema). */
  ignore?: readonly string[];
}

const EXAMPLE_LENGTH = 40;

/** A column of the schema with what its type rule needs. */
interface Column {
  dataType: string;
  /** `singleValueField: false`: a multi-value column. */
  multiValue: boolean;
  /** complexFieldSpecs (MAP, …): no rule. */
  complex: boolean;
}

/** How the store fills a column. */
type Filling =
  | { by: 'message' }
  | { by: 'store' }
  | { by: 'ignored' }
  | { by: 'unjudged'; reason: string }
  | { by: 'empty'; because: string }
  | { by: 'transform' | 'aggregation'; expression: string; inputs: string[] };

/**
 * The names the store gives what it reads from the stream besides the message's value.
 * StreamDataDecoderImpl (pinot-spi, 1.0 on): KEY `__key` (the message's key, always),
 * HEADER_KEY_PREFIX `__header$`, METADATA_KEY_PREFIX `__metadata$` (each key of the record
 * metadata), and from 1.4 on RECORD_SERIALIZED_VALUE_SIZE_KEY, always. Kafka's consumer
 * (KafkaPartitionLevelConsumer.extractMessageMetadata) fills the headers and the record metadata
 * (KafkaStreamMessageMetadata: offset, recordTimestamp, partition) only when the stream config's
 * `stream.kafka.metadata.populate` is "true" (KafkaPartitionLevelStreamConfig, equalsIgnoreCase).
 * The 0.11 store fills none of these columns (its RowMetadataExtractor keeps only a timestamp
 * for the consumer's own use).
 */
const KEY_COLUMN = '__key';
const HEADER_PREFIX = '__header$';
const METADATA_PREFIX = '__metadata$';
const ALWAYS_FILLED_METADATA = new Set([`${METADATA_PREFIX}recordSerializedValueSize`]);
const POPULATED_METADATA = new Set(['offset', 'recordTimestamp', 'partition'].map((key) => `${METADATA_PREFIX}${key}`));

/**
 * The table's ingestion as the check needs it, read loosely: a template may carry any of the
 * store's ingestion settings through, so each is checked for its shape here and, when it has
 * another, left unjudged rather than trusted.
 */
interface Ingestion {
  populateMetadata: boolean;
  streamType: string;
  transforms: Map<string, string>;
  aggregations: Map<string, string>;
  complexType?: ComplexType;
}

/** ingestionConfig.complexTypeConfig, with the store's defaults (ComplexTypeTransformer.DEFAULT_DELIMITER, DEFAULT_COLLECTION_TO_JSON_MODE). */
interface ComplexType {
  fieldsToUnnest: string[];
  delimiter: string;
  collectionToJson: 'NON_PRIMITIVE' | 'ALL' | 'NONE';
  prefixesToRename: Array<[string, string]>;
}

export class MessageFit {
  private readonly columns = new Map<string, Column>();
  private readonly filling = new Map<string, Filling>();
  private readonly complexType: ComplexType | undefined;
  /** Fields a row carried (after flattening), with a value or null. */
  private readonly carried = new Set<string>();
  /** Fields only flattening made (not a message's own top-level field). */
  private readonly madeByFlattening = new Set<string>();
  private readonly misfits = new Map<string, MistypedColumn>();
  private readonly extra = new Set<string>();
  private count = 0;

  /** `table`: the table the messages would feed (its stream config and ingestion); none for a schema alone (`schema infer --check`). */
  constructor(schema: AnalyticsSchema, table?: RealtimeTableDefinition, options: FitOptions = {}) {
    for (const group of ['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs', 'complexFieldSpecs'] as const) {
      for (const spec of ((schema as unknown as Record<string, unknown>)[group] ?? []) as Array<Record<string, unknown>>) {
        if (typeof spec?.name !== 'string') continue;
        const multiValue = spec.singleValueField === false || (typeof spec.singleValueField === 'string' && spec.singleValueField.toLowerCase() === 'false');
        this.columns.set(spec.name, { dataType: String(spec.dataType), multiValue, complex: group === 'complexFieldSpecs' });
      }
    }
    const ingestion = ingestionOf(table, schema);
    this.complexType = ingestion.complexType;
    const ignored = new Set(options.ignore ?? []);
    for (const [name, column] of this.columns) this.filling.set(name, ignored.has(name) ? { by: 'ignored' } : fillingOf(name, column, ingestion));
  }

  get messages(): number {
    return this.count;
  }

  observe(message: Record<string, unknown>, where: string): void {
    this.count++;
    const rows = this.complexType ? flattenMessage(message, this.complexType) : [message];
    for (const row of rows) {
      for (const [field, value] of Object.entries(row)) {
        if (this.complexType && !Object.hasOwn(message, field)) this.madeByFlattening.add(field);
        const column = this.columns.get(field);
        if (column === undefined) {
          this.extra.add(field);
          continue;
        }
        this.carried.add(field);
        if (value === null || value === undefined || this.misfits.has(field) || this.filling.get(field)!.by !== 'message') continue;
        if (!fitsColumn(value, column.dataType, column.multiValue)) this.misfits.set(field, { column: field, dataType: column.dataType, example: exampleOf(value), where });
      }
    }
  }

  result(): FitReport {
    const fields = [...this.extra];
    const judged: FitJudged = { filledByStore: [], flattened: [], transformed: [], aggregated: [], notJudged: [], ignored: [] };
    const missing: MissingColumn[] = [];
    const miss = (entry: MissingColumn) => {
      const likely = entry.input === undefined && entry.because === undefined ? closestMatch(entry.column, fields) : entry.input !== undefined ? closestMatch(entry.input, fields) : undefined;
      missing.push(likely === undefined ? entry : { ...entry, likely });
    };
    for (const [column, filling] of this.filling) {
      switch (filling.by) {
        case 'ignored':
          judged.ignored.push(column);
          break;
        case 'unjudged':
          judged.notJudged.push({ column, reason: filling.reason });
          break;
        case 'store':
          judged.filledByStore.push(column);
          break;
        case 'empty':
          miss({ column, because: filling.because });
          break;
        case 'message':
          if (!this.carried.has(column)) miss({ column });
          else if (this.madeByFlattening.has(column)) judged.flattened.push(column);
          break;
        default: {
          // A message that carries the column itself keeps its value (ExpressionTransformer.transform skips a column that has one).
          if (this.carried.has(column)) break;
          const absent = filling.inputs.find((input) => !this.available(input));
          if (absent !== undefined) miss({ column, input: absent, expression: filling.expression });
          else (filling.by === 'transform' ? judged.transformed : judged.aggregated).push(column);
        }
      }
    }
    // A field that a missing column likely meant is named there, not again as an extra.
    const meant = new Set(missing.map((m) => m.likely).filter((field) => field !== undefined));
    return { messages: this.count, missing, mistyped: [...this.misfits.values()], extra: fields.filter((field) => !meant.has(field)), judged };
  }

  /** Whether a transform's or aggregation's input has a value at ingestion: a field a row carried, or a column filled before it. */
  private available(input: string): boolean {
    if (this.carried.has(input) || this.extra.has(input)) return true;
    const filling = this.filling.get(input);
    if (filling === undefined) return input === KEY_COLUMN || ALWAYS_FILLED_METADATA.has(input);
    // The store orders transforms by their inputs (ExpressionTransformer's topological sort): one column's output feeds another.
    return filling.by !== 'message' && filling.by !== 'empty';
  }
}

/** How the store fills `name`: from the stream, by the table's ingestion, or from the message. */
function fillingOf(name: string, column: Column, ingestion: Ingestion): Filling {
  if (name === KEY_COLUMN || ALWAYS_FILLED_METADATA.has(name)) return { by: 'store' };
  if (name.startsWith(METADATA_PREFIX) || name.startsWith(HEADER_PREFIX)) {
    const populate = `stream.${ingestion.streamType}.metadata.populate`;
    if (!ingestion.populateMetadata) return { by: 'empty', because: `the store fills it from the stream only when the stream config sets ${populate}: "true"` };
    if (name.startsWith(HEADER_PREFIX) || POPULATED_METADATA.has(name)) return { by: 'store' };
    return { by: 'unjudged', reason: `a stream metadata key dpgw does not know (${[...POPULATED_METADATA].join(', ')} are)` };
  }
  // TableConfigUtils.validateIngestionConfig: an aggregation's function is one call whose first argument is a column (0.11: the only one).
  const aggregation = ingestion.aggregations.get(name);
  if (aggregation !== undefined) {
    const inputs = aggregationInputs(aggregation);
    return inputs === undefined ? { by: 'unjudged', reason: `aggregation ${aggregation} is not a call of a column` } : { by: 'aggregation', expression: aggregation, inputs };
  }
  const transform = ingestion.transforms.get(name);
  if (transform !== undefined) {
    const inputs = expressionInputs(transform);
    return inputs === undefined ? { by: 'unjudged', reason: `transform ${transform} is an expression dpgw does not read` } : { by: 'transform', expression: transform, inputs };
  }
  if (column.complex) return { by: 'unjudged', reason: `a complex column (${column.dataType}): dpgw has no rule for it` };
  if (!TYPE_RULES.has(column.dataType)) return { by: 'unjudged', reason: `dpgw has no rule for ${column.dataType}` };
  return { by: 'message' };
}

function ingestionOf(table: RealtimeTableDefinition | undefined, schema: AnalyticsSchema): Ingestion {
  const config = (table?.ingestionConfig ?? {}) as Record<string, unknown>;
  // The store reads streamIngestionConfig.streamConfigMaps in place of tableIndexConfig.streamConfigs (IngestionConfigUtils.getStreamConfigMaps).
  const maps = (config.streamIngestionConfig as { streamConfigMaps?: unknown } | undefined)?.streamConfigMaps;
  const streamConfigs = ((Array.isArray(maps) && isMapping(maps[0]) ? maps[0] : table?.tableIndexConfig?.streamConfigs) ?? {}) as Record<string, unknown>;
  const streamType = typeof streamConfigs.streamType === 'string' ? streamConfigs.streamType : 'kafka';
  const populate = streamConfigs[`stream.${streamType}.metadata.populate`];
  const transforms = new Map<string, string>();
  // A field spec's transformFunction (deprecated, still read: FunctionEvaluatorFactory.getExpressionEvaluator(FieldSpec)); the table's transforms come after and win.
  for (const group of ['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs'] as const) {
    for (const spec of (schema[group] ?? []) as Array<{ name: string; transformFunction?: unknown }>) if (typeof spec.transformFunction === 'string') transforms.set(spec.name, spec.transformFunction);
  }
  for (const transform of asArray(config.transformConfigs)) if (typeof transform.columnName === 'string') transforms.set(transform.columnName, String(transform.transformFunction ?? ''));
  const aggregations = new Map<string, string>();
  for (const aggregation of asArray(config.aggregationConfigs)) if (typeof aggregation.columnName === 'string') aggregations.set(aggregation.columnName, String(aggregation.aggregationFunction ?? ''));
  return { populateMetadata: String(populate ?? '').toLowerCase() === 'true', streamType, transforms, aggregations, complexType: complexTypeOf(config.complexTypeConfig) };
}

function complexTypeOf(config: unknown): ComplexType | undefined {
  if (!isMapping(config)) return undefined;
  const mode = String(config.collectionNotUnnestedToJson ?? 'NON_PRIMITIVE').toUpperCase();
  return {
    fieldsToUnnest: Array.isArray(config.fieldsToUnnest) ? config.fieldsToUnnest.filter((field): field is string => typeof field === 'string').sort() : [],
    delimiter: typeof config.delimiter === 'string' ? config.delimiter : '.',
    collectionToJson: mode === 'ALL' || mode === 'NONE' ? mode : 'NON_PRIMITIVE',
    prefixesToRename: isMapping(config.prefixesToRename) ? Object.entries(config.prefixesToRename).map(([from, to]) => [from, String(to)]) : [],
  };
}

/**
 * The rows the store makes of one message, as ComplexTypeTransformer.transform does: nested
 * objects flattened to `parent<delimiter>child` (flattenMap), each collection of
 * fieldsToUnnest (sorted, so a parent before its child) one row per item, an item's fields
 * named `collection<delimiter>field` (unnestCollection, flattenCollectionItem), other
 * collections kept, or written as JSON text per collectionNotUnnestedToJson (shallConvertToJson),
 * and the prefixes of prefixesToRename replaced (renamePrefixes).
 */
export function flattenMessage(message: Record<string, unknown>, config: ComplexType): Array<Record<string, unknown>> {
  const row = flattenObject(message, '', config);
  let rows = [row];
  for (const collection of config.fieldsToUnnest) {
    rows = rows.flatMap((current) => {
      const value = current[collection];
      if (!Array.isArray(value) || value.length === 0) {
        delete current[collection];
        return [current];
      }
      return value.map((item) => {
        const copy = { ...current };
        delete copy[collection];
        if (isMapping(item)) for (const [key, inner] of Object.entries(flattenObject(item, '', config, collection))) copy[`${collection}${config.delimiter}${key}`] = inner;
        else copy[collection] = item;
        return copy;
      });
    });
  }
  for (const [from, to] of config.prefixesToRename) {
    for (const current of rows) {
      for (const field of Object.keys(current)) {
        if (!field.startsWith(from)) continue;
        const value = current[field];
        delete current[field];
        current[`${to}${field.slice(from.length)}`] = value;
      }
    }
  }
  return rows;
}

/** One object's fields flattened; `path` is where it sits, for fieldsToUnnest of nested collections. */
function flattenObject(object: Record<string, unknown>, prefix: string, config: ComplexType, path = ''): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const name = `${prefix}${key}`;
    const fullPath = path === '' ? name : `${path}${config.delimiter}${name}`;
    if (isMapping(value)) Object.assign(flat, flattenObject(value, `${name}${config.delimiter}`, config, path));
    else if (Array.isArray(value) && !config.fieldsToUnnest.includes(fullPath) && collectionToJson(value, config)) flat[name] = JSON.stringify(value);
    else flat[name] = value;
  }
  return flat;
}

/** ComplexTypeTransformer.shallConvertToJson: NON_PRIMITIVE looks at the first item only. */
function collectionToJson(value: unknown[], config: ComplexType): boolean {
  if (config.collectionToJson === 'ALL') return true;
  if (config.collectionToJson === 'NONE') return false;
  return value.length > 0 && (isMapping(value[0]) || Array.isArray(value[0]));
}

/** SQL words that make an expression more than calls of columns and literals: not judged. */
const SQL_WORDS = new Set(['case', 'when', 'then', 'else', 'end', 'and', 'or', 'not', 'is', 'in', 'like', 'between', 'as', 'cast', 'distinct', 'select', 'from', 'where']);
const LITERAL_WORDS = new Set(['true', 'false', 'null']);

/**
 * The columns an ingestion transform reads, or undefined when it is an expression dpgw does not
 * read. FunctionEvaluatorFactory.getExpressionEvaluator: `Groovy({script}, a, b)` reads the
 * arguments after its script (GroovyFunctionEvaluator); anything else is a call tree of
 * functions over columns and literals (InbuiltFunctionEvaluator), whose identifiers are its
 * arguments (getArguments).
 */
export function expressionInputs(expression: string): string[] | undefined {
  const groovy = /^\s*Groovy\s*\(\s*\{[\s\S]*\}\s*(?:,([^{}]*))?\)\s*$/.exec(expression);
  if (groovy) {
    const args = (groovy[1] ?? '').split(',').map((arg) => arg.trim()).filter((arg) => arg !== '');
    return args.every((arg) => /^[A-Za-z_$][\w$.]*$/.test(arg)) ? args : undefined;
  }
  const inputs: string[] = [];
  const token = /\s+|'(?:[^']|'')*'|"((?:[^"]|"")+)"|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([A-Za-z_$][\w$.]*)(\s*\()?|([(),+\-*/%<>=!])/y;
  let at = 0;
  while (at < expression.length) {
    token.lastIndex = at;
    const match = token.exec(expression);
    if (!match) return undefined;
    at = token.lastIndex;
    const [, quoted, , word, call] = match;
    if (quoted !== undefined) inputs.push(quoted.replace(/""/g, '"'));
    else if (word !== undefined && call === undefined) {
      const lower = word.toLowerCase();
      if (SQL_WORDS.has(lower)) return undefined;
      if (!LITERAL_WORDS.has(lower)) inputs.push(word);
    }
  }
  return [...new Set(inputs)];
}

/**
 * The column an ingestion aggregation reads: TableConfigUtils.validateIngestionConfig takes a
 * function whose (first) argument is an identifier; COUNT(*) reads none.
 */
export function aggregationInputs(expression: string): string[] | undefined {
  const call = /^\s*[A-Za-z_]\w*\s*\(\s*(\*|"[^"]+"|[A-Za-z_$][\w$.]*)\s*(?:,[^()]*)?\)\s*$/.exec(expression);
  if (!call) return undefined;
  const argument = call[1]!;
  if (argument === '*') return [];
  return [argument.startsWith('"') ? argument.slice(1, -1) : argument];
}

const TYPE_RULES = new Set(['JSON', 'STRING', 'INT', 'LONG', 'FLOAT', 'DOUBLE', 'BIG_DECIMAL', 'BOOLEAN', 'TIMESTAMP']);

/**
 * TIMESTAMP from text, as TimestampUtils.toTimestamp reads it: java.sql.Timestamp.valueOf's
 * `yyyy-[m]m-[d]d hh:mm:ss[.f…]`, Long.parseLong's epoch milliseconds and, from 1.3 on, the
 * UNIVERSAL_DATE_TIME_FORMATTER's ISO forms (`yyyy-MM-dd`, then `THH:mm[:ss][.f…]` or
 * ` HH:mm[:ss][.f…]`, then `Z` or `±hh:mm`).
 */
const TIMESTAMP_TEXT = [
  /^\d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{1,2}:\d{1,2}(\.\d{1,9})?$/,
  /^[+-]?\d{1,19}$/,
  /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?(\.\d{1,9})?)?( \d{2}:\d{2}(:\d{2})?(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/,
];

/**
 * Whether the store reads a JSON value as a column of `dataType`. A multi-value column
 * (`singleValueField: false`) takes an array whose items each fit, or one value; a
 * single-value column takes an array of at most one item (DataTypeTransformer.standardize:
 * an empty array is null, one item is that item, more are refused).
 */
export function fitsColumn(value: unknown, dataType: string, multiValue = false): boolean {
  if (dataType === 'JSON') return true;
  if (Array.isArray(value)) {
    if (!multiValue && value.length > 1) return false;
    return value.every((item) => item === null || (!Array.isArray(item) && fitsValue(item, dataType)));
  }
  return fitsValue(value, dataType);
}

/** One value against a type: PinotDataType's conversions from what the JSON decoder makes. */
function fitsValue(value: unknown, dataType: string): boolean {
  switch (dataType) {
    case 'STRING':
      return typeof value !== 'object';
    case 'INT':
    case 'LONG':
      return typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value));
    case 'FLOAT':
    case 'DOUBLE':
    case 'BIG_DECIMAL':
      return typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
    case 'BOOLEAN':
      return typeof value === 'boolean' || typeof value === 'number' || (typeof value === 'string' && /^\s*(true|false|0|1)\s*$/i.test(value));
    case 'TIMESTAMP':
      // A number is epoch milliseconds (PinotDataType's TIMESTAMP from a Number: its longValue).
      return typeof value === 'number' || (typeof value === 'string' && TIMESTAMP_TEXT.some((form) => form.test(value)));
    default:
      return true;
  }
}

/** The words a fitting check adds to its line: which columns were judged how. */
export function judgedText(judged: FitJudged): string {
  const parts = [
    judged.filledByStore.length ? `filled by the store: ${judged.filledByStore.join(', ')}` : '',
    judged.flattened.length ? `flattened: ${judged.flattened.join(', ')}` : '',
    judged.transformed.length ? `transformed: ${judged.transformed.join(', ')}` : '',
    judged.aggregated.length ? `aggregated: ${judged.aggregated.join(', ')}` : '',
    judged.ignored.length ? `ignored: ${judged.ignored.join(', ')}` : '',
  ];
  return parts.filter((part) => part !== '').join('; ');
}

/** The one warning for the columns passed unjudged, or undefined when there are none. */
export function notJudgedWarning(judged: FitJudged): string | undefined {
  if (judged.notJudged.length === 0) return undefined;
  return `not judged against the messages, passed: ${judged.notJudged.map((c) => `${c.column} (${c.reason})`).join('; ')}`;
}

function asArray(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter(isMapping) : [];
}


function exampleOf(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > EXAMPLE_LENGTH ? `${text.slice(0, EXAMPLE_LENGTH - 1)}…` : text;
}
