/**
 * A table config held against its schema before anything is sent (issue 45, part 5), rule by
 * rule as the store's TableConfigUtils.validate makes them (release 0.11.0 and the newest code):
 * a refusal of every release is a problem at the bad key's file:line:column; what only some
 * releases refuse is a warning there. The fixtures are written here, as the store's users write them.
 */
import { describe, expect, it } from 'vitest';
import type { AnalyticsSchema, RealtimeTableDefinition } from '../../src/contract/types.js';
import { parseLocatedDocument } from '../../src/olap/located-document.js';
import type { ValidationIssue } from '../../src/olap/schema-validation.js';
import { functionArguments, tableConfigIssues } from '../../src/olap/table-config-checks.js';

const SCHEMA = {
  schemaName: 'orders',
  dimensionFieldSpecs: [
    { name: 'id', dataType: 'STRING' },
    { name: 'city', dataType: 'STRING' },
    { name: 'payload', dataType: 'JSON' },
    { name: 'tags', dataType: 'STRING', singleValueField: false },
    { name: 'count', dataType: 'INT' },
    { name: 'deleted', dataType: 'BOOLEAN' },
  ],
  metricFieldSpecs: [{ name: 'price', dataType: 'DOUBLE' }],
  dateTimeFieldSpecs: [{ name: 'ts', dataType: 'LONG', format: '1:MILLISECONDS:EPOCH', granularity: '1:MILLISECONDS' }],
};
const KEYED = { ...SCHEMA, primaryKeyColumns: ['id'] };

/** The config's top-level keys under a realtime table's head, read as a file, so issues carry line:column. */
function check(yaml: string, schema: object = SCHEMA): ValidationIssue[] {
  const text = `tableName: orders\ntableType: REALTIME\nsegmentsConfig:\n  timeColumnName: ts\n${yaml}`;
  const document = parseLocatedDocument(text, 't.yaml');
  return tableConfigIssues(document.value as RealtimeTableDefinition, schema as unknown as AnalyticsSchema, (path) => document.at(path));
}
const problems = (issues: ValidationIssue[]) => issues.filter((issue) => issue.severity !== 'warning').map((issue) => `${issue.where}: ${issue.field}: ${issue.message}`);
const warnings = (issues: ValidationIssue[]) => issues.filter((issue) => issue.severity === 'warning').map((issue) => `${issue.where}: ${issue.field}: ${issue.message}`);
const UPSERT = 'routing:\n  instanceSelectorType: strictReplicaGroup\nupsertConfig:\n  mode: FULL\n';

describe('upsert and dedup (validateUpsertAndDedupConfig)', () => {
  it('a table with neither passes', () => expect(check('upsertConfig:\n  mode: NONE\ndedupConfig:\n  dedupEnabled: false\n')).toEqual([]));

  it('an upsert table whose schema has no primary key is refused at its mode', () => {
    expect(problems(check(UPSERT))).toEqual(['t.yaml:8:9: upsertConfig.mode: an upsert table needs primary key columns: schema orders has no primaryKeyColumns']);
    expect(check(UPSERT, KEYED)).toEqual([]);
  });

  it('a dedup table likewise, and never beside upsert', () => {
    const dedup = 'routing:\n  instanceSelectorType: strictReplicaGroup\ndedupConfig:\n  dedupEnabled: true\n';
    expect(problems(check(dedup))).toEqual(['t.yaml:8:17: dedupConfig.dedupEnabled: a dedup table needs primary key columns: schema orders has no primaryKeyColumns']);
    expect(check(dedup, KEYED)).toEqual([]);
    expect(problems(check(`${UPSERT}dedupConfig:\n  dedupEnabled: true\n`, KEYED))).toEqual(['t.yaml:10:17: dedupConfig.dedupEnabled: a table has upsert or dedup, not both']);
  });

  it('needs strict replica-group routing; multiStageReplicaGroup only the newest releases take', () => {
    expect(problems(check('upsertConfig:\n  mode: FULL\n', KEYED))).toEqual(['t.yaml:6:9: upsertConfig.mode: an upsert table must be routed by strict replica groups: set routing.instanceSelectorType: strictReplicaGroup']);
    expect(problems(check('routing:\n  instanceSelectorType: balanced\nupsertConfig:\n  mode: FULL\n', KEYED))[0]).toContain('t.yaml:6:25: routing.instanceSelectorType: an upsert table must be routed by strict replica groups');
    const multiStage = check('routing:\n  instanceSelectorType: multiStageReplicaGroup\nupsertConfig:\n  mode: FULL\n', KEYED);
    expect(problems(multiStage)).toEqual([]);
    expect(warnings(multiStage)).toEqual(['t.yaml:6:25: routing.instanceSelectorType: an upsert table routed by multiStageReplicaGroup is taken by the newest releases; 0.11 takes only strictReplicaGroup']);
  });

  it('refuses an unknown mode, a star-tree and ingestion aggregation on an upsert table', () => {
    expect(problems(check('upsertConfig:\n  mode: full\n', KEYED))).toEqual(['t.yaml:6:9: upsertConfig.mode: upsert mode must be FULL, PARTIAL, NONE, not "full"']);
    expect(problems(check(`${UPSERT}tableIndexConfig:\n  enableDefaultStarTree: true\n`, KEYED))).toEqual(['t.yaml:10:26: tableIndexConfig.enableDefaultStarTree: an upsert table cannot have a star-tree index']);
    expect(problems(check(`${UPSERT}tableIndexConfig:\n  aggregateMetrics: true\n`, KEYED))).toEqual(['t.yaml:10:21: tableIndexConfig.aggregateMetrics: an upsert table cannot aggregate metrics at ingestion']);
  });

  it('comparison, delete-record and out-of-order columns exist, of the types the store takes', () => {
    const columns = `${UPSERT}  comparisonColumns: [ts, version]\n  deleteRecordColumn: gone\n  outOfOrderRecordColumn: city\n`;
    expect(problems(check(columns, KEYED))).toEqual([
      't.yaml:9:27: upsertConfig.comparisonColumns[1]: comparison column "version" is not a column of schema orders',
      't.yaml:10:23: upsertConfig.deleteRecordColumn: delete-record column "gone" is not a column of schema orders',
      't.yaml:11:27: upsertConfig.outOfOrderRecordColumn: out-of-order record column "city" must be a single-value BOOLEAN column',
    ]);
    expect(problems(check(`${UPSERT}  comparisonColumn: version\n`, KEYED))).toEqual(['t.yaml:9:21: upsertConfig.comparisonColumn: comparison column "version" is not a column of schema orders']);
    expect(problems(check(`${UPSERT}  deleteRecordColumn: tags\n`, KEYED))[0]).toContain('must be a single-value BOOLEAN, STRING or numeric column');
    expect(check(`${UPSERT}  comparisonColumns: [ts]\n  deleteRecordColumn: deleted\n`, KEYED)).toEqual([]);
  });
});

describe('partial upsert (validatePartialUpsertStrategies)', () => {
  const partial = (strategies: string, nulls = 'tableIndexConfig:\n  nullHandlingEnabled: true\n') =>
    `routing:\n  instanceSelectorType: strictReplicaGroup\n${nulls}upsertConfig:\n  mode: PARTIAL\n  partialUpsertStrategies:\n${strategies}`;

  it('needs null handling; the schema-wide switch only the newest releases take', () => {
    expect(problems(check(partial('', ''), KEYED))).toEqual(['t.yaml:8:9: upsertConfig.mode: a partial upsert table needs null handling: set tableIndexConfig.nullHandlingEnabled: true']);
    const schemaWide = check(partial('', ''), { ...KEYED, enableColumnBasedNullHandling: true });
    expect(problems(schemaWide)).toEqual([]);
    expect(warnings(schemaWide)).toHaveLength(1);
  });

  it('strategies name columns they can merge: not the key, not the time column, INCREMENT numbers, APPEND lists', () => {
    const strategies = '    id: OVERWRITE\n    ts: OVERWRITE\n    nope: OVERWRITE\n    city: INCREMENT\n    count: APPEND\n    tags: UNION\n    price: INCREMENT\n';
    expect(problems(check(partial(strategies), KEYED))).toEqual([
      't.yaml:12:9: upsertConfig.partialUpsertStrategies.id: primary key column "id" cannot have a partial upsert strategy',
      't.yaml:13:9: upsertConfig.partialUpsertStrategies.ts: time column "ts" cannot have a partial upsert strategy',
      't.yaml:14:11: upsertConfig.partialUpsertStrategies.nope: partial upsert strategy for "nope", which is not a column of schema orders',
      't.yaml:15:11: upsertConfig.partialUpsertStrategies.city: INCREMENT cannot merge "city": it takes a numeric column that is not a date-time column',
      't.yaml:16:12: upsertConfig.partialUpsertStrategies.count: APPEND cannot merge "count": it takes a multi-value column',
    ]);
  });
});

describe('indexes (validateIndexingConfig; the newest index types\' validate)', () => {
  it('every column an index list names exists', () => {
    const lists = ['invertedIndexColumns', 'rangeIndexColumns', 'bloomFilterColumns', 'noDictionaryColumns', 'onHeapDictionaryColumns', 'varLengthDictionaryColumns', 'sortedColumn', 'jsonIndexColumns'];
    const yaml = `tableIndexConfig:\n${lists.map((key) => `  ${key}: [nope]\n`).join('')}`;
    expect(problems(check(yaml)).map((line) => line.replace(/^t\.yaml:\d+:\d+: /, ''))).toEqual([
      'tableIndexConfig.noDictionaryColumns[0]: no-dictionary column "nope" is not a column of schema orders',
      'tableIndexConfig.invertedIndexColumns[0]: inverted index column "nope" is not a column of schema orders',
      'tableIndexConfig.rangeIndexColumns[0]: range index column "nope" is not a column of schema orders',
      'tableIndexConfig.bloomFilterColumns[0]: bloom filter column "nope" is not a column of schema orders',
      'tableIndexConfig.onHeapDictionaryColumns[0]: on-heap dictionary column "nope" is not a column of schema orders',
      'tableIndexConfig.varLengthDictionaryColumns[0]: var-length dictionary column "nope" is not a column of schema orders',
      'tableIndexConfig.jsonIndexColumns[0]: JSON index column "nope" is not a column of schema orders',
      'tableIndexConfig.sortedColumn[0]: sorted column "nope" is not a column of schema orders',
    ]);
    expect(problems(check('tableIndexConfig:\n  invertedIndexColumns:\n    - city\n    - cty\n'))).toEqual(['t.yaml:8:7: tableIndexConfig.invertedIndexColumns[1]: inverted index column "cty" is not a column of schema orders']);
  });

  it('the keyed forms too: bloomFilterConfigs, jsonIndexConfigs, noDictionaryConfig, the partition map', () => {
    const yaml = 'tableIndexConfig:\n  bloomFilterConfigs: { a: {} }\n  jsonIndexConfigs: { b: {} }\n  noDictionaryConfig: { c: SNAPPY }\n  segmentPartitionConfig:\n    columnPartitionMap:\n      d: { functionName: Murmur, numPartitions: 4 }\n';
    expect(problems(check(yaml)).map((line) => line.split(': ').slice(1).join(': '))).toEqual([
      'tableIndexConfig.noDictionaryConfig.c: no-dictionary column "c" is not a column of schema orders',
      'tableIndexConfig.bloomFilterConfigs.a: bloom filter column "a" is not a column of schema orders',
      'tableIndexConfig.jsonIndexConfigs.b: JSON index column "b" is not a column of schema orders',
      'tableIndexConfig.segmentPartitionConfig.columnPartitionMap.d: partition column "d" is not a column of schema orders',
    ]);
  });

  it('empty names are dropped as the store sanitizes them', () => expect(check("tableIndexConfig:\n  invertedIndexColumns: ['']\n")).toEqual([]));

  it('an index on a column of a type it cannot take', () => {
    const yaml = 'tableIndexConfig:\n  noDictionaryColumns: [city]\n  invertedIndexColumns: [city]\n  rangeIndexColumns: [city, count]\n  varLengthDictionaryColumns: [count, id]\n  jsonIndexColumns: [payload, tags]\n';
    expect(problems(check(yaml)).map((line) => line.split(': ').slice(1).join(': '))).toEqual([
      'tableIndexConfig.invertedIndexColumns[0]: inverted index column "city" is also a no-dictionary column: the store builds an inverted index only on a dictionary',
      'tableIndexConfig.rangeIndexColumns[0]: range index column "city" is neither numeric nor dictionary-encoded: the store refuses the range index',
      'tableIndexConfig.varLengthDictionaryColumns[0]: var-length dictionary column "count" is INT, of fixed width: the store takes it for STRING and BYTES columns',
      'tableIndexConfig.jsonIndexColumns[1]: JSON index column "tags" must be a single-value STRING or JSON column, not multi-value STRING',
    ]);
  });

  it('multi-value sorted and partition columns: only the newest releases refuse them', () => {
    const issues = check('tableIndexConfig:\n  sortedColumn: [tags]\n  segmentPartitionConfig:\n    columnPartitionMap:\n      tags: { functionName: Murmur, numPartitions: 4 }\n');
    expect(problems(issues)).toEqual([]);
    expect(warnings(issues)).toHaveLength(2);
  });
});

describe('star-tree (validateStarTreeIndexConfigs)', () => {
  const starTree = (body: string) => `tableIndexConfig:\n  starTreeIndexConfigs:\n    - ${body}\n`;

  it('dimensions, skipped dimensions and aggregated columns exist and are single-value; COUNT__* is no column', () => {
    expect(check(starTree('{ dimensionsSplitOrder: [city, id], skipStarNodeCreationForDimensions: [id], functionColumnPairs: [COUNT__*, SUM__price, MAX__count] }'))).toEqual([]);
    expect(problems(check(starTree('{ dimensionsSplitOrder: [city, tags, cty], skipStarNodeCreationForDimensions: [idd], functionColumnPairs: [SUM__cost, SUM__*, price] }'))).map((line) => line.split(': ').slice(1).join(': '))).toEqual([
      'tableIndexConfig.starTreeIndexConfigs[0].dimensionsSplitOrder[1]: star-tree dimension "tags" is multi-value: the store builds a star-tree on single-value columns',
      'tableIndexConfig.starTreeIndexConfigs[0].dimensionsSplitOrder[2]: star-tree dimension "cty" is not a column of schema orders',
      'tableIndexConfig.starTreeIndexConfigs[0].skipStarNodeCreationForDimensions[0]: star-tree dimension "idd" is not a column of schema orders',
      'tableIndexConfig.starTreeIndexConfigs[0].functionColumnPairs[0]: star-tree aggregated column "cost" is not a column of schema orders',
      'tableIndexConfig.starTreeIndexConfigs[0].functionColumnPairs[1]: function column pair "SUM__*": only COUNT takes * for its column',
      'tableIndexConfig.starTreeIndexConfigs[0].functionColumnPairs[2]: function column pair "price" must read <function>__<column>, as SUM__price or COUNT__*',
    ]);
  });

  it('takes a TIMESTAMP index\'s derived column as a dimension', () => {
    const yaml = `${starTree('{ dimensionsSplitOrder: [$ts$DAY], functionColumnPairs: [COUNT__*] }')}fieldConfigList:\n  - { name: ts, encodingType: DICTIONARY, timestampConfig: { granularities: [DAY] } }\n`;
    expect(check(yaml)).toEqual([]);
  });

  it('the newest releases also refuse a skipped dimension outside the split order and a no-dictionary dimension', () => {
    const issues = check('tableIndexConfig:\n  noDictionaryColumns: [city]\n  starTreeIndexConfigs:\n    - { dimensionsSplitOrder: [city], skipStarNodeCreationForDimensions: [id], functionColumnPairs: [COUNT__*] }\n');
    expect(problems(issues)).toEqual([]);
    expect(warnings(issues).map((line) => line.split(': ')[1])).toEqual(['tableIndexConfig.starTreeIndexConfigs[0].dimensionsSplitOrder[0]', 'tableIndexConfig.starTreeIndexConfigs[0].skipStarNodeCreationForDimensions[0]']);
  });
});

describe('field configs (validateFieldConfigList)', () => {
  it('name a column, agree with the no-dictionary list, and put TEXT and FST indexes on strings', () => {
    const yaml = 'tableIndexConfig:\n  noDictionaryColumns: [id]\nfieldConfigList:\n  - { name: nope, encodingType: RAW }\n  - { name: id, encodingType: DICTIONARY }\n  - { name: count, encodingType: RAW, indexTypes: [TEXT] }\n  - { name: tags, encodingType: DICTIONARY, indexType: FST }\n  - { name: city, encodingType: RAW, indexTypes: [TEXT] }\n';
    expect(problems(check(yaml)).map((line) => line.split(': ').slice(1).join(': '))).toEqual([
      'fieldConfigList[0].name: field config column "nope" is not a column of schema orders',
      'fieldConfigList[1].encodingType: field config of "id" is DICTIONARY-encoded while tableIndexConfig lists it among the no-dictionary columns',
      'fieldConfigList[2].name: TEXT index column "count" is INT: the store builds it on STRING columns',
      'fieldConfigList[3].name: FST index column "tags" must be a single-value, dictionary-encoded STRING column',
    ]);
  });
});

describe('ingestion (validateIngestionConfig, validateMetricsAggregation)', () => {
  it('a transform fills a column of the schema, once, from other columns', () => {
    const yaml = 'ingestionConfig:\n  transformConfigs:\n    - { columnName: city, transformFunction: "upper(rawCity)" }\n    - { columnName: cty, transformFunction: "lower(x)" }\n    - { columnName: city, transformFunction: "trim(y)" }\n    - { columnName: count, transformFunction: "plus(count, 1)" }\n';
    expect(problems(check(yaml)).map((line) => line.split(': ').slice(1).join(': '))).toEqual([
      'ingestionConfig.transformConfigs[1].columnName: transform destination "cty" is not a column of schema orders, nor the source of an aggregation',
      'ingestionConfig.transformConfigs[2].columnName: column "city" has two transforms',
      'ingestionConfig.transformConfigs[3].transformFunction: the transform of "count" reads "count" itself: the store refuses a destination among its function\'s arguments',
    ]);
  });

  it('a transform may fill an aggregation\'s source column, and (newest releases) another transform\'s input', () => {
    const aggregated = 'ingestionConfig:\n  aggregationConfigs:\n    - { columnName: price, aggregationFunction: "SUM(rawPrice)" }\n  transformConfigs:\n    - { columnName: rawPrice, transformFunction: "jsonPathDouble(payload, \'$.price\')" }\n';
    expect(check(aggregated)).toEqual([]);
    const chained = 'ingestionConfig:\n  transformConfigs:\n    - { columnName: obj, transformFunction: "jsonExtractObject(payload)" }\n    - { columnName: city, transformFunction: "JSONPATHSTRING(obj, \'$.city\')" }\n';
    expect(problems(check(chained))).toEqual([]);
    expect(warnings(check(chained))[0]).toContain('release 0.11 refuses');
  });

  it('an aggregation fills each metric once, with a function of one column', () => {
    const yaml = 'ingestionConfig:\n  aggregationConfigs:\n    - { columnName: city, aggregationFunction: "MAX(c)" }\n    - { columnName: nope, aggregationFunction: "SUM(n)" }\n    - { columnName: ts, aggregationFunction: "price * 2" }\n';
    expect(problems(check(yaml)).map((line) => line.split(': ').slice(1).join(': '))).toEqual([
      'ingestionConfig.aggregationConfigs[0].columnName: aggregation destination "city" must be a metric column, not a dimension',
      'ingestionConfig.aggregationConfigs[1].columnName: aggregation destination "nope" is not a column of schema orders',
      'ingestionConfig.aggregationConfigs[2].columnName: aggregation destination "ts" must be a metric column, not a date-time column',
      'ingestionConfig.aggregationConfigs[2].aggregationFunction: aggregation function "price * 2" must be a function of one column, as SUM(price)',
      'ingestionConfig.aggregationConfigs: every metric column must be aggregated once aggregationConfigs is set: "price" is not',
    ]);
    const hll = check('ingestionConfig:\n  aggregationConfigs:\n    - { columnName: price, aggregationFunction: "DISTINCTCOUNTHLL(id, 12)" }\n');
    expect(problems(hll)).toEqual([]);
    expect(warnings(hll)[0]).toContain('release 0.11 aggregates only with SUM, MIN, MAX or COUNT');
  });

  it('a complex-type prefix to rename is no schema column\'s beginning', () => {
    const yaml = 'ingestionConfig:\n  complexTypeConfig:\n    fieldsToUnnest: [items]\n    prefixesToRename: { "ci": "" }\n';
    expect(problems(check(yaml))).toEqual(['t.yaml:8:31: ingestionConfig.complexTypeConfig.prefixesToRename.ci: schema column "city" begins with "ci", a prefix the complex-type config renames: the store refuses the clash']);
  });

  it('does not judge a filter\'s columns: the store reads the incoming record there', () => {
    expect(check('ingestionConfig:\n  filterConfig:\n    filterFunction: "Groovy({rawStatus == \'x\'}, rawStatus)"\n')).toEqual([]);
  });
});

describe('the columns a transform function reads (FunctionEvaluatorFactory)', () => {
  it.each([
    ['upper(city)', ['city']],
    ["jsonPathString(payload, '$.a.b')", ['payload']],
    ['Groovy({a + b}, a, b)', ['a', 'b']],
    ['CAST(price AS LONG)', ['price']],
    ['now()', []],
    ['"my col"', ['my col']],
    ['plus(group.count, 1.5e3)', ['group.count']],
  ])('%s reads %j', (text, expected) => expect(functionArguments(text)).toEqual(expected));

  it("reads a Groovy script up to the last } the arguments follow, as GroovyFunctionEvaluator's pattern does", () => {
    expect(functionArguments('Groovy({if (a) { b } else { c }}, a, b, c)')).toEqual(['a', 'b', 'c']);
    expect(functionArguments('groovy({ m = [x: 1]; m.x })')).toEqual([]);
  });

  it("a template's transform cannot hold the run: braces and commas that a pattern would try in every split are read in linear time", () => {
    // Each `}, a ` doubled the time of the pattern this replaced: 24 of them took seconds, 26 took 42 s in `table render`.
    const started = performance.now();
    expect(functionArguments(`groovy({${'}, a '.repeat(24)}x`)).toEqual([...Array.from({ length: 24 }, () => 'a'), 'x']);
    // The script runs to the last }: what follows it is the one argument.
    expect(functionArguments(`groovy({${'}, a '.repeat(50_000)}x)`)).toEqual(['a x']);
    expect(functionArguments(`groovy({${'} '.repeat(50_000)}x)`)).toEqual(['x']);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
