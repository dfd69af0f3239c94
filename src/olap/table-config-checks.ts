/**
 * The analytics store's own checks of a table config against its schema, made before
 * anything is sent: upsert and dedup need a primary key, and every column an index,
 * star-tree, field config, partition, transform, aggregation, upsert or dedup setting
 * names is a column of the schema. They mirror Apache Pinot's TableConfigUtils.validate
 * (pinot-segment-local, org.apache.pinot.segment.local.utils) in release 0.11.0 and in
 * its newest code, and only the checks that need nothing but the table config and the
 * schema (none that asks the cluster). Each rule names the method it mirrors.
 *
 * Severity: what every release refuses is a problem. What only some releases refuse
 * (the newest, or 0.11 alone) is a warning naming them, as for the schema's pipe
 * granularities: the table is sent, and the user learns which stores would refuse it.
 * Everything here is listed, with its source, in docs/tables.md ("Checks before anything is sent").
 */
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';
import type { PathPart } from './located-document.js';
import type { Where } from '../errors/source-location.js';
import { fieldPath, type ValidationIssue } from './schema-validation.js';
import { isMapping } from './object-at.js';

/** A column as the store's Schema.getFieldSpecFor finds it: any of the four groups. */
interface Column {
  group: 'dimensionFieldSpecs' | 'metricFieldSpecs' | 'dateTimeFieldSpecs' | 'complexFieldSpecs';
  dataType: string;
  singleValue: boolean;
}

/** DataType.getStoredType: BOOLEAN is kept as INT, TIMESTAMP as LONG, JSON as STRING. */
const STORED_TYPE: Record<string, string> = { BOOLEAN: 'INT', TIMESTAMP: 'LONG', JSON: 'STRING' };
const storedType = (dataType: string): string => STORED_TYPE[dataType] ?? dataType;
/** DataType.isNumeric. */
const NUMERIC = new Set(['INT', 'LONG', 'FLOAT', 'DOUBLE', 'BIG_DECIMAL']);
/** DataType.isFixedWidth of a stored type. */
const FIXED_WIDTH = new Set(['INT', 'LONG', 'FLOAT', 'DOUBLE']);
/** The ingestion aggregations 0.11.0 takes (TableConfigUtils.SUPPORTED_INGESTION_AGGREGATIONS). */
const AGGREGATIONS_0_11 = new Set(['SUM', 'MIN', 'MAX', 'COUNT']);
/** RoutingConfig's selectors validateUpsertAndDedupConfig takes: strictReplicaGroup everywhere, multiStageReplicaGroup in the newest releases only. */
const STRICT_REPLICA_GROUP = 'strictReplicaGroup';
const MULTI_STAGE_REPLICA_GROUP = 'multiStageReplicaGroup';
/** UpsertConfig.Mode. */
const UPSERT_MODES = ['FULL', 'PARTIAL', 'NONE'];

type Issue = (path: PathPart[], message: string) => void;

export function tableConfigIssues(table: RealtimeTableDefinition, schema: AnalyticsSchema, at: (path: PathPart[]) => Where): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const problem: Issue = (path, message) => issues.push({ where: at(path), field: fieldPath(path), path, message });
  const warning: Issue = (path, message) => issues.push({ where: at(path), field: fieldPath(path), path, message, severity: 'warning' });
  const config = table as unknown as Record<string, unknown>;
  const columns = columnsOf(schema);
  const context: Context = { config, schema, columns, problem, warning, name: schema.schemaName };
  const aggregationSources = aggregationIssues(context);
  transformIssues(context, aggregationSources);
  complexTypeIssues(context);
  indexingIssues(context);
  fieldConfigIssues(context);
  upsertAndDedupIssues(context);
  return issues;
}

interface Context {
  config: Record<string, unknown>;
  schema: AnalyticsSchema;
  columns: Map<string, Column>;
  problem: Issue;
  warning: Issue;
  /** The schema's name, for messages. */
  name: string;
}

function columnsOf(schema: AnalyticsSchema): Map<string, Column> {
  const columns = new Map<string, Column>();
  for (const group of ['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs', 'complexFieldSpecs'] as const) {
    const specs = (schema as unknown as Record<string, unknown>)[group];
    if (!Array.isArray(specs)) continue;
    for (const spec of specs as Record<string, unknown>[]) {
      if (typeof spec?.name !== 'string') continue;
      // FieldSpec: singleValueField defaults to true; a date-time or complex column is single-valued.
      columns.set(spec.name, { group, dataType: String(spec.dataType), singleValue: spec.singleValueField !== false });
    }
  }
  return columns;
}

const objectAt = (root: Record<string, unknown>, ...keys: string[]): Record<string, unknown> | undefined => {
  let node: unknown = root;
  for (const key of keys) node = isMapping(node) ? node[key] : undefined;
  return isMapping(node) ? node : undefined;
};
/** The names of a list of column names, with their index; the store drops empty names first (TableConfigUtils.sanitize). */
const namesIn = (value: unknown): [string, number][] => (Array.isArray(value) ? value.flatMap((name, index) => (typeof name === 'string' && name !== '' ? [[name, index] as [string, number]] : [])) : []);
const quoted = (name: string): string => JSON.stringify(name.length > 60 ? `${name.slice(0, 57)}…` : name);

/** The column, or a problem at the path saying it is none of the schema's. */
function mustExist(context: Context, name: string, path: PathPart[], what: string): Column | undefined {
  const column = context.columns.get(name);
  if (!column) context.problem(path, `${what} ${quoted(name)} is not a column of schema ${context.name}`);
  return column;
}

/**
 * ingestionConfig.aggregationConfigs (0.11.0 validateIngestionConfig; newest validateMetricsAggregation):
 * each names an existing METRIC column once, with a function of one column; every metric is
 * aggregated; not beside aggregateMetrics. Returns the source columns, which a transform may fill.
 */
function aggregationIssues(context: Context): Set<string> {
  const sources = new Set<string>();
  const list = objectAt(context.config, 'ingestionConfig')?.aggregationConfigs;
  if (!Array.isArray(list) || list.length === 0) return sources;
  const base: PathPart[] = ['ingestionConfig', 'aggregationConfigs'];
  if (objectAt(context.config, 'tableIndexConfig')?.aggregateMetrics === true) {
    context.problem(['tableIndexConfig', 'aggregateMetrics'], 'aggregateMetrics cannot be set beside ingestionConfig.aggregationConfigs: the store refuses both at once');
  }
  const aggregated = new Set<string>();
  list.forEach((entry: unknown, index) => {
    if (!isMapping(entry)) return;
    const path = [...base, index];
    const { columnName, aggregationFunction } = entry;
    if (typeof columnName !== 'string' || typeof aggregationFunction !== 'string') {
      context.problem(path, 'an aggregation config needs columnName and aggregationFunction');
      return;
    }
    const column = mustExist(context, columnName, [...path, 'columnName'], 'aggregation destination');
    if (column && column.group !== 'metricFieldSpecs') context.problem([...path, 'columnName'], `aggregation destination ${quoted(columnName)} must be a metric column, not a ${groupWord(column.group)}`);
    if (aggregated.has(columnName)) context.problem([...path, 'columnName'], `column ${quoted(columnName)} is aggregated twice`);
    aggregated.add(columnName);
    // RequestContextUtils.getExpression: a function whose first argument is a column (an identifier).
    const call = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*([A-Za-z_$][\w$.]*|\*|"[^"]+")\s*(,[^)]*)?\)\s*$/.exec(aggregationFunction);
    if (!call) {
      context.problem([...path, 'aggregationFunction'], `aggregation function ${quoted(aggregationFunction)} must be a function of one column, as SUM(price)`);
      return;
    }
    const [, name, source, more] = call as unknown as [string, string, string, string | undefined];
    sources.add(source.replace(/^"|"$/g, ''));
    const functionName = name.toUpperCase().replace(/_/g, '');
    if (!AGGREGATIONS_0_11.has(functionName) || more !== undefined) {
      context.warning([...path, 'aggregationFunction'], `release 0.11 aggregates only with SUM, MIN, MAX or COUNT of one column, so it refuses ${quoted(aggregationFunction)}; newer releases take more (DISTINCT_COUNT_HLL, SUM_PRECISION…)`);
    }
  });
  const metrics = [...context.columns.entries()].filter(([, column]) => column.group === 'metricFieldSpecs').map(([name]) => name);
  const missing = metrics.filter((metric) => !aggregated.has(metric));
  if (missing.length > 0) context.problem(base, `every metric column must be aggregated once aggregationConfigs is set: ${missing.map(quoted).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not`);
  return sources;
}

/**
 * ingestionConfig.transformConfigs (validateIngestionConfig, both releases): a destination is a
 * column of the schema or an aggregation's source column; named once; not among its own
 * function's arguments. The newest releases also take a destination another transform reads
 * (an intermediate column); 0.11 refuses it.
 */
function transformIssues(context: Context, aggregationSources: Set<string>): void {
  const list = objectAt(context.config, 'ingestionConfig')?.transformConfigs;
  if (!Array.isArray(list)) return;
  const base: PathPart[] = ['ingestionConfig', 'transformConfigs'];
  const entries = list.map((entry: unknown, index) => ({ entry: isMapping(entry) ? entry : {}, index }));
  const argumentsOf = new Map(entries.map(({ entry, index }) => [index, typeof entry.transformFunction === 'string' ? functionArguments(entry.transformFunction) : undefined]));
  const seen = new Set<string>();
  for (const { entry, index } of entries) {
    const path = [...base, index];
    const { columnName, transformFunction } = entry;
    if (typeof columnName !== 'string' || typeof transformFunction !== 'string') {
      context.problem(path, 'a transform config needs columnName and transformFunction');
      continue;
    }
    if (seen.has(columnName)) context.problem([...path, 'columnName'], `column ${quoted(columnName)} has two transforms`);
    seen.add(columnName);
    if (!context.columns.has(columnName) && !aggregationSources.has(columnName)) {
      const readByAnother = entries.some((other) => other.index !== index && argumentsOf.get(other.index)?.includes(columnName));
      if (readByAnother) context.warning([...path, 'columnName'], `transform destination ${quoted(columnName)} is not a column of schema ${context.name}; another transform reads it, which the newest releases take as an intermediate column and release 0.11 refuses`);
      else context.problem([...path, 'columnName'], `transform destination ${quoted(columnName)} is not a column of schema ${context.name}, nor the source of an aggregation`);
    }
    if (argumentsOf.get(index)?.includes(columnName)) context.problem([...path, 'transformFunction'], `the transform of ${quoted(columnName)} reads ${quoted(columnName)} itself: the store refuses a destination among its function's arguments`);
  }
}

/**
 * The columns a transform function reads, as the store's FunctionEvaluatorFactory finds them:
 * a Groovy function's arguments after its script; otherwise the identifiers of the expression
 * (not function names, quoted text, numbers or the type after AS). Undefined where dpgw cannot tell.
 */
export function functionArguments(text: string): string[] | undefined {
  const groovy = groovyArguments(text);
  if (groovy) return groovy;
  const found: string[] = [];
  const token = /'(?:[^']|'')*'|"((?:[^"]|"")+)"|(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([A-Za-z_$][\w$.]*)(\s*\()?|(\S)/g;
  let previous = '';
  for (let match = token.exec(text); match; match = token.exec(text)) {
    const [whole, quotedName, , identifier, call] = match;
    if (quotedName !== undefined) found.push(quotedName.replace(/""/g, '"'));
    else if (identifier !== undefined && call === undefined && previous.toUpperCase() !== 'AS' && !/^(true|false|null|and|or|not|as|is|in|like|between|case|when|then|else|end)$/i.test(identifier)) found.push(identifier);
    previous = identifier ?? whole;
  }
  return found;
}

const GROOVY_START = /^\s*groovy\s*\(\s*\{/i;
/** After a `}`: the end of the call's text, or a comma before the arguments (sticky: tested at one place). */
const GROOVY_SCRIPT_END = /\s*(?:,|$)/y;

/**
 * A Groovy function's arguments, read as GroovyFunctionEvaluator's GROOVY_FUNCTION_REGEX
 * (`Groovy\(\{(?<script>.+)}(,(?<arguments>.+))?\)`) reads them: the script runs to the last `}`
 * that the end or a comma follows, the arguments are the rest split at commas. Found by scanning
 * back from the last `}`, never by one regular expression over the script: a script is a
 * template's text, and a pattern with a choice per comma takes exponential time on
 * `groovy({}, a }, a }, a … x` (140 characters held a run for 42 s). Undefined when not such a call.
 */
function groovyArguments(text: string): string[] | undefined {
  const start = GROOVY_START.exec(text);
  const call = text.trimEnd();
  if (!start || !call.endsWith(')')) return undefined;
  const inner = call.slice(start[0].length, -1);
  for (let brace = inner.lastIndexOf('}'); brace !== -1; brace = brace === 0 ? -1 : inner.lastIndexOf('}', brace - 1)) {
    GROOVY_SCRIPT_END.lastIndex = brace + 1;
    if (!GROOVY_SCRIPT_END.test(inner)) continue;
    return inner.slice(brace + 1).split(',').map((part) => part.trim()).filter((part) => part !== '');
  }
  return undefined;
}

/** complexTypeConfig.prefixesToRename (validateIngestionConfig, both releases): no schema column begins with a prefix to rename. */
function complexTypeIssues(context: Context): void {
  const prefixes = objectAt(context.config, 'ingestionConfig', 'complexTypeConfig', 'prefixesToRename');
  if (!prefixes) return;
  for (const prefix of Object.keys(prefixes)) {
    const clash = [...context.columns.keys()].find((name) => name.startsWith(prefix));
    if (clash !== undefined) context.problem(['ingestionConfig', 'complexTypeConfig', 'prefixesToRename', prefix], `schema column ${quoted(clash)} begins with ${quoted(prefix)}, a prefix the complex-type config renames: the store refuses the clash`);
  }
}

/**
 * tableIndexConfig (0.11.0 validateIndexingConfig; newest validateIndexingConfigAndFieldConfigList,
 * each index type's validate, validateStarTreeIndexConfigs): every column an index, the sorted
 * column, the partition map or a star-tree names is a column of the schema, of a type the index takes.
 */
function indexingIssues(context: Context): void {
  const indexing = objectAt(context.config, 'tableIndexConfig');
  if (!indexing) return;
  const base: PathPart[] = ['tableIndexConfig'];
  const noDictionary = new Set(namesIn(indexing.noDictionaryColumns).map(([name]) => name));
  for (const name of Object.keys(objectAt(indexing, 'noDictionaryConfig') ?? {})) noDictionary.add(name);
  const listed = (key: string, what: string, check?: (name: string, column: Column, path: PathPart[]) => void) => {
    for (const [name, index] of namesIn(indexing[key])) {
      const path = [...base, key, index];
      const column = mustExist(context, name, path, what);
      if (column && check) check(name, column, path);
    }
  };
  const keyed = (key: string, what: string) => {
    for (const name of Object.keys(objectAt(indexing, key) ?? {})) mustExist(context, name, [...base, key, name], what);
  };
  listed('noDictionaryColumns', 'no-dictionary column');
  keyed('noDictionaryConfig', 'no-dictionary column');
  listed('invertedIndexColumns', 'inverted index column', (name, _column, path) => {
    // 0.11 validateIndexingConfig; newest InvertedIndexType.validate.
    if (noDictionary.has(name)) context.problem(path, `inverted index column ${quoted(name)} is also a no-dictionary column: the store builds an inverted index only on a dictionary`);
  });
  listed('rangeIndexColumns', 'range index column', (name, column, path) => {
    // 0.11 validateIndexingConfig; newest RangeIndexType.validate.
    if (!NUMERIC.has(column.dataType) && noDictionary.has(name)) context.problem(path, `range index column ${quoted(name)} is neither numeric nor dictionary-encoded: the store refuses the range index`);
  });
  listed('bloomFilterColumns', 'bloom filter column');
  keyed('bloomFilterConfigs', 'bloom filter column');
  listed('onHeapDictionaryColumns', 'on-heap dictionary column');
  listed('varLengthDictionaryColumns', 'var-length dictionary column', (name, column, path) => {
    // 0.11 validateIndexingConfig; newest DictionaryIndexType.validate: not of a fixed-width stored type.
    if (FIXED_WIDTH.has(storedType(column.dataType))) context.problem(path, `var-length dictionary column ${quoted(name)} is ${column.dataType}, of fixed width: the store takes it for STRING and BYTES columns`);
  });
  const jsonIndex = (name: string, column: Column, path: PathPart[]) => {
    // 0.11 validateIndexingConfig; newest JsonIndexType.validate.
    if (!column.singleValue || !['STRING', 'MAP'].includes(storedType(column.dataType))) context.problem(path, `JSON index column ${quoted(name)} must be a single-value STRING or JSON column, not ${column.singleValue ? '' : 'multi-value '}${column.dataType}`);
  };
  listed('jsonIndexColumns', 'JSON index column', jsonIndex);
  for (const name of Object.keys(objectAt(indexing, 'jsonIndexConfigs') ?? {})) {
    const path = [...base, 'jsonIndexConfigs', name];
    const column = mustExist(context, name, path, 'JSON index column');
    if (column) jsonIndex(name, column, path);
  }
  listed('sortedColumn', 'sorted column', (name, column, path) => {
    // Newest validateIndexingConfigAndFieldConfigList: "Cannot sort on multi-value column"; 0.11 checks only that it exists.
    if (!column.singleValue) context.warning(path, `sorted column ${quoted(name)} is multi-value, which the newest releases refuse (0.11 takes it)`);
  });
  const partitions = objectAt(indexing, 'segmentPartitionConfig', 'columnPartitionMap');
  for (const name of Object.keys(partitions ?? {})) {
    const path = [...base, 'segmentPartitionConfig', 'columnPartitionMap', name];
    const column = mustExist(context, name, path, 'partition column');
    // Newest validateIndexingConfigAndFieldConfigList: "Cannot partition on multi-value column".
    if (column && !column.singleValue) context.warning(path, `partition column ${quoted(name)} is multi-value, which the newest releases refuse (0.11 takes it)`);
  }
  starTreeIssues(context, indexing, noDictionary);
}

/**
 * starTreeIndexConfigs (0.11.0 validateIndexingConfig; newest validateStarTreeIndexConfigs): its
 * dimensions, skipped dimensions and aggregated columns are single-value columns of the schema;
 * a pair is <function>__<column>, `*` only for COUNT. A TIMESTAMP index's derived column
 * ($time$DAY) counts as a column in the newest releases.
 */
function starTreeIssues(context: Context, indexing: Record<string, unknown>, noDictionary: Set<string>): void {
  const list = indexing.starTreeIndexConfigs;
  if (!Array.isArray(list)) return;
  const derived = timestampIndexColumns(context.config);
  list.forEach((entry: unknown, index) => {
    if (!isMapping(entry)) return;
    const path: PathPart[] = ['tableIndexConfig', 'starTreeIndexConfigs', index];
    const column = (name: string, at: PathPart[], what: string, dimension: boolean) => {
      if (derived.has(name)) return;
      const found = mustExist(context, name, at, `star-tree ${what}`);
      if (!found) return;
      if (!found.singleValue) context.problem(at, `star-tree ${what} ${quoted(name)} is multi-value: the store builds a star-tree on single-value columns`);
      // Newest validateStarTreeIndexConfigs: a dimension must have a dictionary; 0.11 does not check.
      if (dimension && noDictionary.has(name)) context.warning(at, `star-tree dimension ${quoted(name)} is a no-dictionary column, which the newest releases refuse (0.11 takes it)`);
    };
    const split = namesIn(entry.dimensionsSplitOrder);
    for (const [name, i] of split) column(name, [...path, 'dimensionsSplitOrder', i], 'dimension', true);
    for (const [name, i] of namesIn(entry.skipStarNodeCreationForDimensions)) {
      column(name, [...path, 'skipStarNodeCreationForDimensions', i], 'dimension', false);
      if (context.columns.has(name) && !split.some(([dimension]) => dimension === name)) {
        context.warning([...path, 'skipStarNodeCreationForDimensions', i], `${quoted(name)} skips star-node creation but is not in dimensionsSplitOrder, which the newest releases refuse (0.11 takes it)`);
      }
    }
    for (const [pair, i] of namesIn(entry.functionColumnPairs)) {
      const at = [...path, 'functionColumnPairs', i];
      // AggregationFunctionColumnPair.fromColumnName: <function>__<column>.
      const split = pair.indexOf('__');
      if (split <= 0 || split + 2 >= pair.length) {
        context.problem(at, `function column pair ${quoted(pair)} must read <function>__<column>, as SUM__price or COUNT__*`);
        continue;
      }
      const [functionName, name] = [pair.slice(0, split), pair.slice(split + 2)];
      if (name === '*') {
        if (functionName.toUpperCase() !== 'COUNT') context.problem(at, `function column pair ${quoted(pair)}: only COUNT takes * for its column`);
      } else column(name, at, 'aggregated column', false);
    }
    if (Array.isArray(entry.aggregationConfigs)) {
      entry.aggregationConfigs.forEach((aggregation: unknown, i) => {
        const name = isMapping(aggregation) ? aggregation.columnName : undefined;
        if (typeof name === 'string' && name !== '*') column(name, [...path, 'aggregationConfigs', i, 'columnName'], 'aggregated column', false);
      });
    }
  });
}

/** TimestampIndexUtils: a TIMESTAMP index of granularity DAY on column ts makes column $ts$DAY. */
function timestampIndexColumns(config: Record<string, unknown>): Set<string> {
  const derived = new Set<string>();
  const list = config.fieldConfigList;
  if (!Array.isArray(list)) return derived;
  for (const entry of list) {
    if (!isMapping(entry) || typeof entry.name !== 'string') continue;
    for (const [granularity] of namesIn(objectAt(entry, 'timestampConfig')?.granularities)) derived.add(`$${entry.name}$${granularity}`);
  }
  return derived;
}

/**
 * fieldConfigList (0.11.0 validateFieldConfigList; newest validateIndexingConfigAndFieldConfigList and
 * validateIndexingConfigAndFieldConfigListCompatibility): each names a column of the schema; a DICTIONARY
 * encoding is not also a no-dictionary column; a TEXT index is on a STRING column, an FST index on a
 * single-value STRING column with a dictionary.
 */
function fieldConfigIssues(context: Context): void {
  const list = context.config.fieldConfigList;
  if (!Array.isArray(list)) return;
  const indexing = objectAt(context.config, 'tableIndexConfig') ?? {};
  const noDictionary = new Set([...namesIn(indexing.noDictionaryColumns).map(([name]) => name), ...Object.keys(objectAt(indexing, 'noDictionaryConfig') ?? {})]);
  const seen = new Set<string>();
  list.forEach((entry: unknown, index) => {
    if (!isMapping(entry) || typeof entry.name !== 'string') return;
    const path: PathPart[] = ['fieldConfigList', index];
    const name = entry.name;
    const column = mustExist(context, name, [...path, 'name'], 'field config column');
    if (seen.has(name)) context.warning([...path, 'name'], `column ${quoted(name)} has two field configs, which the newest releases refuse (0.11 takes the last)`);
    seen.add(name);
    // FieldConfig: encodingType defaults to DICTIONARY.
    const encoding = typeof entry.encodingType === 'string' ? entry.encodingType : 'DICTIONARY';
    if (encoding === 'DICTIONARY' && noDictionary.has(name)) context.problem([...path, 'encodingType'], `field config of ${quoted(name)} is DICTIONARY-encoded while tableIndexConfig lists it among the no-dictionary columns`);
    if (!column) return;
    const indexTypes = [...namesIn(entry.indexTypes).map(([type]) => type), ...(typeof entry.indexType === 'string' ? [entry.indexType] : [])];
    for (const type of indexTypes.map((t) => t.toUpperCase())) {
      if (type === 'TEXT' && storedType(column.dataType) !== 'STRING') context.problem([...path, 'name'], `TEXT index column ${quoted(name)} is ${column.dataType}: the store builds it on STRING columns`);
      if (type === 'FST' && (encoding !== 'DICTIONARY' || !column.singleValue || storedType(column.dataType) !== 'STRING')) {
        context.problem([...path, 'name'], `FST index column ${quoted(name)} must be a single-value, dictionary-encoded STRING column`);
      }
    }
  });
}

/**
 * upsertConfig and dedupConfig (0.11.0 validateUpsertAndDedupConfig, validatePartialUpsertStrategies;
 * newest the same, with validateTTLForUpsertConfig): an upsert or dedup table has primary key columns
 * in its schema, strict replica-group routing, no metrics aggregation; an upsert table no star-tree;
 * the comparison, delete-record and out-of-order columns exist; partial upsert needs null handling,
 * and its strategies name columns they can merge. Whether the stream is partitioned by the primary
 * key the store cannot see from the config; it does not check it, and neither does dpgw.
 */
function upsertAndDedupIssues(context: Context): void {
  const { config, problem } = context;
  const upsert = objectAt(config, 'upsertConfig');
  const dedup = objectAt(config, 'dedupConfig');
  if (upsert && upsert.mode !== undefined && !UPSERT_MODES.includes(upsert.mode as string)) {
    problem(['upsertConfig', 'mode'], `upsert mode must be ${UPSERT_MODES.join(', ')}, not ${JSON.stringify(upsert.mode)}`);
    return;
  }
  // TableConfig.getUpsertMode: NONE without an upsertConfig or a mode.
  const upsertOn = upsert !== undefined && (upsert.mode === 'FULL' || upsert.mode === 'PARTIAL');
  const dedupOn = dedup !== undefined && dedup.dedupEnabled === true;
  if (!upsertOn && !dedupOn) return;
  const at: PathPart[] = upsertOn ? ['upsertConfig', 'mode'] : ['dedupConfig', 'dedupEnabled'];
  const what = upsertOn ? 'an upsert table' : 'a dedup table';
  if (upsertOn && dedupOn) problem(['dedupConfig', 'dedupEnabled'], 'a table has upsert or dedup, not both');

  const primaryKeys = primaryKeyIssues(context, at, what);
  replicaGroupRoutingIssues(context, at, what);
  ingestionAggregationIssues(context, what);
  if (upsertOn && upsert) upsertOnlyIssues(context, upsert, primaryKeys);
}

/** The schema's primary key columns, which an upsert or dedup table needs (and, in the newest releases, single-value). */
function primaryKeyIssues(context: Context, at: PathPart[], what: string): string[] {
  const declared = (context.schema as unknown as Record<string, unknown>).primaryKeyColumns;
  const primaryKeys = Array.isArray(declared) ? (declared as unknown[]).filter((name): name is string => typeof name === 'string') : [];
  if (primaryKeys.length === 0) context.problem(at, `${what} needs primary key columns: schema ${context.name} has no primaryKeyColumns`);
  for (const key of primaryKeys) {
    // Newest validateUpsertAndDedupConfig: a primary key column is single-value.
    if (context.columns.get(key)?.singleValue === false) context.warning(at, `primary key column ${quoted(key)} is multi-value, which the newest releases refuse for ${what} (0.11 takes it)`);
  }
  return primaryKeys;
}

/** An upsert or dedup table is routed by strict replica groups (the newest releases also take the multi-stage kind). */
function replicaGroupRoutingIssues(context: Context, at: PathPart[], what: string): void {
  const selector = objectAt(context.config, 'routing')?.instanceSelectorType;
  if (selector === MULTI_STAGE_REPLICA_GROUP) context.warning(['routing', 'instanceSelectorType'], `${what} routed by ${MULTI_STAGE_REPLICA_GROUP} is taken by the newest releases; 0.11 takes only ${STRICT_REPLICA_GROUP}`);
  else if (typeof selector !== 'string' || selector.toLowerCase() !== STRICT_REPLICA_GROUP.toLowerCase()) {
    context.problem(selector === undefined ? at : ['routing', 'instanceSelectorType'], `${what} must be routed by strict replica groups: set routing.instanceSelectorType: ${STRICT_REPLICA_GROUP}${selector === undefined ? '' : `, not ${JSON.stringify(selector)}`}`);
  }
}

/** An upsert or dedup table keeps every record as sent: no metrics aggregated at ingestion. */
function ingestionAggregationIssues(context: Context, what: string): void {
  const indexing = objectAt(context.config, 'tableIndexConfig') ?? {};
  const aggregations = objectAt(context.config, 'ingestionConfig')?.aggregationConfigs;
  if (indexing.aggregateMetrics === true || (Array.isArray(aggregations) && aggregations.length > 0)) {
    context.problem(indexing.aggregateMetrics === true ? ['tableIndexConfig', 'aggregateMetrics'] : ['ingestionConfig', 'aggregationConfigs'], `${what} cannot aggregate metrics at ingestion`);
  }
}

/** What only an upsert table is held to: no star-tree, its named columns exist and fit, and a partial upsert's strategies. */
function upsertOnlyIssues(context: Context, upsert: Record<string, unknown>, primaryKeys: string[]): void {
  const indexing = objectAt(context.config, 'tableIndexConfig') ?? {};
  const starTrees = indexing.starTreeIndexConfigs;
  if ((Array.isArray(starTrees) && starTrees.length > 0) || indexing.enableDefaultStarTree === true) {
    context.problem(['tableIndexConfig', Array.isArray(starTrees) && starTrees.length > 0 ? 'starTreeIndexConfigs' : 'enableDefaultStarTree'], 'an upsert table cannot have a star-tree index');
  }
  const comparison = comparisonColumns(upsert);
  for (const [name, path] of comparison) mustExist(context, name, path, 'comparison column');
  if (typeof upsert.deleteRecordColumn === 'string') deleteRecordColumnIssues(context, upsert.deleteRecordColumn);
  if (typeof upsert.outOfOrderRecordColumn === 'string') outOfOrderColumnIssues(context, upsert.outOfOrderRecordColumn, upsert.dropOutOfOrderRecord === true);
  if (upsert.mode === 'PARTIAL') partialUpsertIssues(context, upsert, primaryKeys, comparison.map(([name]) => name));
}

/** 0.11 reads comparisonColumn; newer releases comparisonColumns, and comparisonColumn as a list of one. */
function comparisonColumns(upsert: Record<string, unknown>): [string, PathPart[]][] {
  const comparison: [string, PathPart[]][] = [];
  if (typeof upsert.comparisonColumn === 'string' && upsert.comparisonColumn !== '') comparison.push([upsert.comparisonColumn, ['upsertConfig', 'comparisonColumn']]);
  for (const [name, i] of namesIn(upsert.comparisonColumns)) comparison.push([name, ['upsertConfig', 'comparisonColumns', i]]);
  return comparison;
}

/** Newest validateUpsertAndDedupConfig: a single-value BOOLEAN, STRING or numeric column. */
function deleteRecordColumnIssues(context: Context, name: string): void {
  const path: PathPart[] = ['upsertConfig', 'deleteRecordColumn'];
  const column = mustExist(context, name, path, 'delete-record column');
  if (column && (!column.singleValue || !(column.dataType === 'BOOLEAN' || column.dataType === 'STRING' || NUMERIC.has(column.dataType)))) {
    context.problem(path, `delete-record column ${quoted(name)} must be a single-value BOOLEAN, STRING or numeric column`);
  }
}

function outOfOrderColumnIssues(context: Context, name: string, dropOutOfOrder: boolean): void {
  const path: PathPart[] = ['upsertConfig', 'outOfOrderRecordColumn'];
  const column = mustExist(context, name, path, 'out-of-order record column');
  if (column && (!column.singleValue || column.dataType !== 'BOOLEAN')) context.problem(path, `out-of-order record column ${quoted(name)} must be a single-value BOOLEAN column`);
  if (dropOutOfOrder) context.problem(path, 'outOfOrderRecordColumn and dropOutOfOrderRecord cannot be set together');
}

/** validatePartialUpsertStrategies (0.11.0 and newest). */
function partialUpsertIssues(context: Context, upsert: Record<string, unknown>, primaryKeys: string[], comparison: string[]): void {
  const { config, schema, columns, problem, warning } = context;
  const tableNulls = objectAt(config, 'tableIndexConfig')?.nullHandlingEnabled === true;
  const schemaNulls = (schema as unknown as Record<string, unknown>).enableColumnBasedNullHandling === true;
  if (!tableNulls && !schemaNulls) problem(['upsertConfig', 'mode'], 'a partial upsert table needs null handling: set tableIndexConfig.nullHandlingEnabled: true');
  else if (!tableNulls) warning(['upsertConfig', 'mode'], "a partial upsert table with only the schema's enableColumnBasedNullHandling is taken by the newest releases; 0.11 needs tableIndexConfig.nullHandlingEnabled: true");
  const strategies = objectAt(upsert, 'partialUpsertStrategies');
  if (!strategies) return;
  const timeColumn = objectAt(config, 'segmentsConfig')?.timeColumnName;
  for (const [name, strategy] of Object.entries(strategies)) {
    const path: PathPart[] = ['upsertConfig', 'partialUpsertStrategies', name];
    if (primaryKeys.includes(name)) problem(path, `primary key column ${quoted(name)} cannot have a partial upsert strategy`);
    if (comparison.length > 0 ? comparison.includes(name) : name === timeColumn) problem(path, `${comparison.length > 0 ? 'comparison' : 'time'} column ${quoted(name)} cannot have a partial upsert strategy`);
    const column = columns.get(name);
    if (!column) {
      problem(path, `partial upsert strategy for ${quoted(name)}, which is not a column of schema ${context.name}`);
      continue;
    }
    if (strategy === 'INCREMENT' && (!NUMERIC.has(storedType(column.dataType)) || column.group === 'dateTimeFieldSpecs' || column.group === 'complexFieldSpecs')) {
      problem(path, `INCREMENT cannot merge ${quoted(name)}: it takes a numeric column that is not a date-time column`);
    }
    if ((strategy === 'APPEND' || strategy === 'UNION') && column.singleValue) problem(path, `${strategy} cannot merge ${quoted(name)}: it takes a multi-value column`);
  }
}

function groupWord(group: Column['group']): string {
  return { dimensionFieldSpecs: 'dimension', metricFieldSpecs: 'metric', dateTimeFieldSpecs: 'date-time column', complexFieldSpecs: 'complex column' }[group];
}
