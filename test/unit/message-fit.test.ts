/**
 * The sample check judges each column as the analytics store fills it (its StreamDataDecoderImpl,
 * Kafka consumer, ComplexTypeTransformer, ExpressionTransformer, ingestion aggregation and
 * TimestampUtils): what the store fills is never "carried by no message", what it cannot
 * judge is named and passed, and what the user ignores is not judged.
 */
import { describe, expect, it } from 'vitest';
import type { AnalyticsSchema, RealtimeTableDefinition } from '../../src/contract/types.js';
import { expressionInputs, fitsColumn, MessageFit } from '../../src/schema-inference/message-fit.js';

const schemaOf = (dimensions: Array<Record<string, unknown>>, metrics: Array<Record<string, unknown>> = []): AnalyticsSchema =>
  ({ schemaName: 's', dimensionFieldSpecs: dimensions, metricFieldSpecs: metrics }) as unknown as AnalyticsSchema;
const tableOf = (ingestionConfig: Record<string, unknown> = {}, streamConfigs: Record<string, string> = {}): RealtimeTableDefinition =>
  ({ tableName: 't', tableType: 'REALTIME', tableIndexConfig: { loadMode: 'MMAP', streamConfigs: { streamType: 'kafka', ...streamConfigs } }, ingestionConfig }) as unknown as RealtimeTableDefinition;

function fit(schema: AnalyticsSchema, table: RealtimeTableDefinition | undefined, messages: Array<Record<string, unknown>>, ignore?: string[]) {
  const check = new MessageFit(schema, table, { ignore });
  messages.forEach((message, index) => check.observe(message, `t/0@${index}`));
  return check.result();
}

describe('MessageFit: columns the store fills from the stream', () => {
  it('__key is filled by the store; __metadata$offset only with stream.kafka.metadata.populate "true"', () => {
    const schema = schemaOf([{ name: 'id', dataType: 'STRING' }, { name: '__key', dataType: 'STRING' }, { name: '__metadata$offset', dataType: 'STRING' }]);
    const populated = fit(schema, tableOf({}, { 'stream.kafka.metadata.populate': 'TRUE' }), [{ id: 'a' }]);
    expect(populated.missing).toEqual([]);
    expect(populated.judged.filledByStore).toEqual(['__key', '__metadata$offset']);
    const plain = fit(schema, tableOf(), [{ id: 'a' }]);
    expect(plain.missing).toEqual([{ column: '__metadata$offset', because: 'the store fills it from the stream only when the stream config sets stream.kafka.metadata.populate: "true"' }]);
  });

  it('reads the stream config from streamIngestionConfig.streamConfigMaps too', () => {
    const schema = schemaOf([{ name: '__metadata$partition', dataType: 'INT' }]);
    const table = tableOf({ streamIngestionConfig: { streamConfigMaps: [{ streamType: 'kafka', 'stream.kafka.metadata.populate': 'true' }] } });
    expect(fit(schema, table, [{ x: 1 }]).missing).toEqual([]);
  });
});

describe('MessageFit: the table\'s ingestion', () => {
  it('an aggregation\'s output needs its input carried, not itself', () => {
    const schema = schemaOf([{ name: 'city', dataType: 'STRING' }], [{ name: 'total', dataType: 'LONG' }, { name: 'rows', dataType: 'LONG' }]);
    const table = tableOf({ aggregationConfigs: [{ columnName: 'total', aggregationFunction: 'SUM(amount)' }, { columnName: 'rows', aggregationFunction: 'COUNT(*)' }] });
    const carried = fit(schema, table, [{ city: 'x', amount: 3 }]);
    expect(carried.missing).toEqual([]);
    expect(carried.judged.aggregated).toEqual(['total', 'rows']);
    expect(fit(schema, table, [{ city: 'x', amout: 3 }]).missing).toEqual([{ column: 'total', input: 'amount', expression: 'SUM(amount)', likely: 'amout' }]);
  });

  it('complexTypeConfig: nested objects flattened with the delimiter, fieldsToUnnest one row per item, other object arrays JSON text', () => {
    const schema = schemaOf([
      { name: 'group.id', dataType: 'LONG' },
      { name: 'group.topics.name', dataType: 'STRING' },
      { name: 'tags', dataType: 'STRING' },
      { name: 'venue_name', dataType: 'STRING' },
    ]);
    const table = tableOf({ complexTypeConfig: { fieldsToUnnest: ['group.topics'], prefixesToRename: { 'venue.': 'venue_' } } });
    const message = { group: { id: 7, topics: [{ name: 'a' }, { name: 'b' }] }, tags: [{ k: 1 }], venue: { name: 'hall' } };
    const report = fit(schema, table, [message]);
    expect(report.missing).toEqual([]);
    expect(report.mistyped).toEqual([]);
    expect(report.judged.flattened).toEqual(['group.id', 'group.topics.name', 'venue_name']);
    // Without the config the store does not flatten: the same columns are carried by no message.
    expect(fit(schema, tableOf(), [message]).missing.map((m) => m.column)).toEqual(['group.id', 'group.topics.name', 'venue_name']);
  });

  it('a custom delimiter is the store\'s', () => {
    const schema = schemaOf([{ name: 'a__b', dataType: 'INT' }]);
    expect(fit(schema, tableOf({ complexTypeConfig: { delimiter: '__' } }), [{ a: { b: 1 } }]).missing).toEqual([]);
  });

  it('a transform\'s output needs its inputs carried; an expression dpgw does not read is named, not refused', () => {
    const schema = schemaOf([{ name: 'day', dataType: 'LONG' }, { name: 'full', dataType: 'STRING' }, { name: 'odd', dataType: 'STRING' }]);
    const table = tableOf({
      transformConfigs: [
        { columnName: 'day', transformFunction: 'toEpochDays(ts)' },
        { columnName: 'full', transformFunction: 'Groovy({first + " " + last}, first, last)' },
        { columnName: 'odd', transformFunction: 'CASE WHEN a > 1 THEN \'x\' ELSE \'y\' END' },
      ],
    });
    const report = fit(schema, table, [{ ts: 1, first: 'a', last: 'b' }]);
    expect(report.missing).toEqual([]);
    expect(report.judged.transformed).toEqual(['day', 'full']);
    expect(report.judged.notJudged).toEqual([{ column: 'odd', reason: "transform CASE WHEN a > 1 THEN 'x' ELSE 'y' END is an expression dpgw does not read" }]);
    expect(fit(schema, table, [{ first: 'a', last: 'b' }]).missing).toEqual([{ column: 'day', input: 'ts', expression: 'toEpochDays(ts)' }]);
  });

  it('reads the inputs of call expressions: columns, not functions, literals or quoted text', () => {
    expect(expressionInputs("jsonPathString(payload, '$.a.b', 'none')")).toEqual(['payload']);
    expect(expressionInputs('now()')).toEqual([]);
    expect(expressionInputs('plus(a, times(b, 2))')).toEqual(['a', 'b']);
    expect(expressionInputs('"my col" + 1')).toEqual(['my col']);
    expect(expressionInputs('a ? b')).toBeUndefined();
  });
});

describe('MessageFit: types', () => {
  it('multi-value columns take arrays of their element type; a single-value column is refused an array of several', () => {
    const schema = schemaOf([{ name: 'ids', dataType: 'INT', singleValueField: false }, { name: 'one', dataType: 'INT' }]);
    expect(fit(schema, undefined, [{ ids: [1, 2, 3], one: [4] }]).mistyped).toEqual([]);
    expect(fit(schema, undefined, [{ ids: [1, 'x'], one: [4, 5] }]).mistyped.map((m) => m.column)).toEqual(['ids', 'one']);
  });

  it('TIMESTAMP takes epoch milliseconds as a number or text, and the store\'s timestamp text forms', () => {
    for (const value of [1700000000000, '1700000000000', '2024-03-01 10:00:00', '2024-03-01 10:00:00.123', '2024-03-01T10:00:00Z', '2024-03-01', '2024-03-01T10:00+02:00']) expect(fitsColumn(value, 'TIMESTAMP'), String(value)).toBe(true);
    for (const value of ['March 1, 2024', '1.5e12', 'yesterday', {}]) expect(fitsColumn(value, 'TIMESTAMP'), String(value)).toBe(false);
  });

  it('a type dpgw has no rule for, and a complex column, are named as not judged', () => {
    const schema = { schemaName: 's', dimensionFieldSpecs: [{ name: 'b', dataType: 'BYTES' }], complexFieldSpecs: [{ name: 'm', dataType: 'MAP' }] } as unknown as AnalyticsSchema;
    const report = fit(schema, undefined, [{}]);
    expect(report.missing).toEqual([]);
    expect(report.judged.notJudged.map((c) => c.column)).toEqual(['b', 'm']);
  });

  it('an ignored column is not judged, missing or mistyped', () => {
    const schema = schemaOf([{ name: 'late', dataType: 'STRING' }, { name: 'n', dataType: 'INT' }]);
    const report = fit(schema, undefined, [{ n: 'text' }], ['late', 'n']);
    expect(report).toMatchObject({ missing: [], mistyped: [], judged: { ignored: ['late', 'n'] } });
  });
});
