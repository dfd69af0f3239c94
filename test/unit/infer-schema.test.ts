/** SchemaInference's rules, each on the messages that show it, read as dpgw reads them (parseMessage, readMessages). */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { dateTextForm } from '../../src/schema-inference/date-text-forms.js';
import { SchemaInference, InferenceError, type InferOptions } from '../../src/schema-inference/infer-schema.js';
import { parseMessage, readMessages } from '../../src/schema-inference/read-messages.js';
import { fieldsWrittenAsDecimals } from '../../src/schema-inference/written-decimals.js';

const NOW = Date.UTC(2024, 5, 1);

/** The inference of message lines, each parsed as a file's line is. */
function inferLines(lines: string[], options: Partial<InferOptions> = {}) {
  const inference = new SchemaInference();
  lines.forEach((line, index) => {
    const parsed = parseMessage(line, `m:${index + 1}`, () => {
      throw new Error(`skipped ${line}`);
    });
    inference.observe(parsed!.message, parsed!.where, parsed!.decimals);
  });
  return inference.result({ name: 'x', now: NOW, ...options });
}

const specOf = (schema: Record<string, unknown>, name: string) =>
  ['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs'].flatMap((group) => ((schema[group] as Array<Record<string, unknown>>) ?? []).map((spec): Record<string, unknown> => ({ group, ...spec }))).find((spec) => spec.name === name);

describe('types as the store reads the values', () => {
  it('lists of values are multi-value columns of their type, mixed values widen, lists of objects are JSON', () => {
    const { schema, multiValue, notes, warnings } = inferLines(['{"tags": ["a", "b"], "ids": [1, 2], "mixed": [1, 2.5], "objects": [{"a": 1}], "some": [1], "empty": []}', '{"tags": [], "ids": [3000000000], "mixed": [3], "objects": [], "some": 5, "empty": []}']);
    expect(specOf(schema as never, 'tags')).toEqual({ group: 'dimensionFieldSpecs', name: 'tags', dataType: 'STRING', singleValueField: false });
    expect(specOf(schema as never, 'ids')).toMatchObject({ dataType: 'LONG', singleValueField: false });
    expect(specOf(schema as never, 'mixed')).toMatchObject({ group: 'dimensionFieldSpecs', dataType: 'DOUBLE', singleValueField: false });
    expect(specOf(schema as never, 'objects')).toEqual({ group: 'dimensionFieldSpecs', name: 'objects', dataType: 'JSON' });
    expect(specOf(schema as never, 'some')).toMatchObject({ dataType: 'INT', singleValueField: false });
    expect([...multiValue].sort()).toEqual(['empty', 'ids', 'mixed', 'some', 'tags']);
    expect(notes).toContain('column objects holds lists of objects: one JSON column');
    expect(notes.join('\n')).toContain('column some holds lists in 1 messages and single values in others: multi-value');
    expect(warnings.join('\n')).toContain('column empty holds only empty lists (2)');
  });

  it('a multi-value column cannot be a metric', () => {
    expect(() => inferLines(['{"ids": [1, 2]}'], { metrics: ['ids'] })).toThrow(InferenceError);
  });

  it('true/false is BOOLEAN; mixed with text it is STRING, with a warning', () => {
    const { schema, warnings } = inferLines(['{"ok": true, "maybe": true}', '{"ok": false, "maybe": "no"}']);
    expect(specOf(schema as never, 'ok')).toMatchObject({ group: 'dimensionFieldSpecs', dataType: 'BOOLEAN' });
    expect(specOf(schema as never, 'maybe')).toMatchObject({ dataType: 'STRING' });
    expect(warnings.join('\n')).toContain('column maybe mixes types (true/false at m:1, string at m:2): widened to STRING');
  });

  it('a number written with a fraction or an exponent is DOUBLE, though JSON.parse makes it an integer; integers by size', () => {
    const { schema } = inferLines(['{"price": 1500.00, "count": 1, "big": 3000000000, "exp": 1e3, "huge": 1e30, "list": [2.0, 3], "note": "v1.0"}', '{"price": 12, "count": 2, "big": 1, "exp": 2, "huge": 1, "list": [4], "note": "1e5"}']);
    expect(specOf(schema as never, 'price')).toMatchObject({ group: 'metricFieldSpecs', dataType: 'DOUBLE' });
    expect(specOf(schema as never, 'exp')).toMatchObject({ dataType: 'DOUBLE' });
    expect(specOf(schema as never, 'huge')).toMatchObject({ dataType: 'DOUBLE' });
    expect(specOf(schema as never, 'list')).toMatchObject({ dataType: 'DOUBLE', singleValueField: false });
    expect(specOf(schema as never, 'count')).toMatchObject({ group: 'dimensionFieldSpecs', dataType: 'INT' });
    expect(specOf(schema as never, 'big')).toMatchObject({ dataType: 'LONG' });
    expect(specOf(schema as never, 'note')).toMatchObject({ dataType: 'STRING' });
  });

  it('finds decimals by their text: in strings, nested objects and escaped keys as JSON reads them; in a JSON array file by element', async () => {
    expect(fieldsWrittenAsDecimals('{"a": 1, "s": "1.0 and 2e5"}', 1).get(0)).toBeUndefined();
    expect([...fieldsWrittenAsDecimals('{"n": {"deep": 1.0}, "k\\"ey": 2.00, "s": "x\\\\", "t": -1E2}', 1).get(0)!]).toEqual(['k"ey', 't']);
    const messages = [];
    for await (const message of readMessages('arr.json', Readable.from([Buffer.from('[{"a": 1}, 7, {"a": 2.0}, {"b": [1.0]}]')]), () => {})) messages.push(message);
    expect(messages.map((m) => [m.where, m.decimals && [...m.decimals]])).toEqual([
      ['arr.json[0]', undefined],
      ['arr.json[2]', ['a']],
      ['arr.json[3]', ['b']],
    ]);
  });

  it('objects stay one JSON column, with a note; JSON written as text is a JSON column', () => {
    const { schema, notes } = inferLines(['{"payload": {"a": 1}, "actor": "{\\"id\\": 1}"}', '{"payload": {"a": 2}, "actor": "{\\"id\\": 2}"}']);
    expect(specOf(schema as never, 'payload')).toMatchObject({ dataType: 'JSON' });
    expect(specOf(schema as never, 'actor')).toMatchObject({ dataType: 'JSON' });
    expect(notes).toContain('column payload holds objects: kept as one JSON column, not flattened (see docs/schema-infer.md, "Nested objects")');
    expect(notes).toContain('column actor holds JSON objects written as text: one JSON column');
  });
});

describe('the time column by its values', () => {
  const at = (iso: string) => Date.parse(iso);

  it.each([
    ['epoch milliseconds', at('2024-05-01'), { dataType: 'LONG', format: '1:MILLISECONDS:EPOCH', granularity: '1:MILLISECONDS' }],
    ['epoch seconds', at('2024-05-01') / 1000, { dataType: 'LONG', format: '1:SECONDS:EPOCH', granularity: '1:SECONDS' }],
    ['epoch microseconds', at('2024-05-01') * 1000, { dataType: 'LONG', format: '1:MICROSECONDS:EPOCH', granularity: '1:MICROSECONDS' }],
  ])('%s', (_, value, spec) => {
    const { schema, notes } = inferLines([`{"id": 1, "at": ${value}}`, `{"id": 2, "at": ${value + 60}}`]);
    expect(schema.dateTimeFieldSpecs).toEqual([{ name: 'at', notNull: false, ...spec }]);
    expect(notes.join('\n')).toContain(`column at holds ${_} (2024-05-01 to 2024-05-01): the date-time column, ${spec.format}`);
  });

  it('day numbers under a name that says day or date; the same numbers under another name are no time', () => {
    const days = inferLines(['{"DaysSinceEpoch": 16071, "AirlineID": 19805}', '{"DaysSinceEpoch": 16101, "AirlineID": 19790}']);
    expect(days.schema.dateTimeFieldSpecs).toEqual([{ name: 'DaysSinceEpoch', dataType: 'INT', notNull: false, format: '1:DAYS:EPOCH', granularity: '1:DAYS' }]);
    expect(inferLines(['{"AirlineID": 19805}']).schema.dateTimeFieldSpecs?.[0]?.name).toBe('time');
  });

  it.each([
    ['2024-05-01', "1:DAYS:SIMPLE_DATE_FORMAT:yyyy-MM-dd", '1:DAYS'],
    ['20240501', '1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd', '1:DAYS'],
    ['2024/05/01 10:00', '1:MINUTES:SIMPLE_DATE_FORMAT:yyyy/MM/dd HH:mm', '1:MINUTES'],
    ['2024-05-01T10:00:00Z', "1:SECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd'T'HH:mm:ss'Z'", '1:SECONDS'],
    ['2024-05-01T10:00:00.123+02:00', "1:MILLISECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd'T'HH:mm:ss.SSSZZ", '1:MILLISECONDS'],
    ['2024-05-01 10:00:00+0200', '1:SECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH:mm:ssZ', '1:SECONDS'],
  ])('dates as text %s: SIMPLE_DATE_FORMAT with the pattern found', (text, format, granularity) => {
    const { schema } = inferLines([`{"created_at": "${text}"}`]);
    expect(schema.dateTimeFieldSpecs).toEqual([{ name: 'created_at', dataType: 'STRING', notNull: false, format, granularity }]);
  });

  it("text the store's upload check would refuse as a pattern, or that is no date, is no time", () => {
    expect(dateTextForm('05/01/2024')).toBeUndefined();
    expect(dateTextForm('2024-02-30')).toBeUndefined();
    expect(dateTextForm('2024-13-01')).toBeUndefined();
    expect(inferLines(['{"d": "2024-05-01"}', '{"d": "2024-05-01T10:00:00Z"}']).schema.dateTimeFieldSpecs?.[0]?.name).toBe('time');
    // 'Z' beside an offset: Joda's ZZ reads both.
    expect(inferLines(['{"d": "2024-05-01T10:00:00Z"}', '{"d": "2024-05-01T10:00:00+02:00"}']).schema.dateTimeFieldSpecs?.[0]?.format).toBe("1:SECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd'T'HH:mm:ssZZ");
  });

  it('several: time wins, then epoch integers, then dates as text, with a warning naming them', () => {
    const { schema, warnings } = inferLines([`{"FlightDate": "2014-01-01", "DaysSinceEpoch": 16071}`]);
    expect(schema.dateTimeFieldSpecs?.[0]?.name).toBe('DaysSinceEpoch');
    expect(specOf(schema as never, 'FlightDate')).toMatchObject({ group: 'dimensionFieldSpecs', dataType: 'STRING' });
    expect(warnings.join('\n')).toContain('columns DaysSinceEpoch, FlightDate all hold times; DaysSinceEpoch');
  });

  it('a declared column takes its unit from its values; one no unit fits is milliseconds, with a warning of the dates that gives', () => {
    const declared = inferLines(['{"Days": 16071, "n": 5}', '{"Days": 16102, "n": 7}'], { timeColumn: 'Days' });
    expect(declared.schema.dateTimeFieldSpecs).toEqual([{ name: 'Days', dataType: 'INT', notNull: false, format: '1:DAYS:EPOCH', granularity: '1:DAYS' }]);
    expect(declared.warnings).toEqual([]);
    const implausible = inferLines(['{"n": 5}', '{"n": 7}'], { timeColumn: 'n' });
    expect(implausible.schema.dateTimeFieldSpecs?.[0]).toMatchObject({ name: 'n', format: '1:MILLISECONDS:EPOCH' });
    expect(implausible.warnings).toEqual(['column n, read as epoch milliseconds, runs from 1970-01-01 to 1970-01-01, outside 1990-01-01 to 2024-06-02: check that it is the time column and its unit']);
    const oldDates = inferLines(['{"d": "1950-01-01"}'], { timeColumn: 'd' });
    expect(oldDates.schema.dateTimeFieldSpecs?.[0]?.format).toBe('1:DAYS:SIMPLE_DATE_FORMAT:yyyy-MM-dd');
    expect(oldDates.warnings.join('\n')).toContain('runs from 1950-01-01 to 1950-01-01, outside 1990-01-01');
    expect(() => inferLines(['{"s": "abc"}'], { timeColumn: 's' })).toThrow(/the messages make it STRING; a date-time column holds epoch integers/);
    expect(() => inferLines(['{"s": [1]}'], { timeColumn: 's' })).toThrow(/lists/);
  });
});
