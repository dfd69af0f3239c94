/**
 * Schemas as the analytics store's own reader and upload checks take them (issue 45, part 1):
 * each rule beside the store's code it mirrors (pinot-spi's DateTimeFormatSpec,
 * DateTimeGranularitySpec, Schema, FieldSpec; pinot-segment-local's SchemaUtils.validate).
 * The fixtures are written here, in the forms the store's examples use.
 */
import { describe, expect, it } from 'vitest';
import { dateTimeFormatProblem, granularityForm, isDateTimeFormat, isGranularity } from '../../src/contract/olap-vocabulary.js';
import { parseLocatedDocument } from '../../src/olap/located-document.js';
import { validateSchema, type ValidationIssue } from '../../src/olap/schema-validation.js';
import { failOnIssues } from '../../src/olap/table-template.js';

const checked = (text: string) => validateSchema(parseLocatedDocument(text, 's.yaml'));
const problems = (issues: ValidationIssue[]) => issues.filter((issue) => issue.severity !== 'warning');
const warnings = (issues: ValidationIssue[]) => issues.filter((issue) => issue.severity === 'warning');
const withTime = (format: string, granularity = '1:MILLISECONDS') => `schemaName: t\ndateTimeFieldSpecs:\n  - { name: ts, dataType: LONG, format: "${format}", granularity: "${granularity}" }\n`;

describe('date-time formats, as DateTimeFormatSpec(String) reads them', () => {
  it.each([
    '1:MILLISECONDS:EPOCH',
    '5:MINUTES:EPOCH',
    '1:WEEKS:EPOCH', // DateTimeFormatUnitSpec also takes its DateTimeTransformUnit names
    '1:MILLISECONDS:TIMESTAMP', // size and unit are not read for TIMESTAMP
    '1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd',
    '1:DAYS:SIMPLE_DATE_FORMAT', // no pattern: the ISO parser
    "1:SECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd'T'HH:mm:ss", // at most four parts, so the pattern keeps its colons
    '1:HOURS:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH tz(America/Los_Angeles)',
    '1:MILLISECONDS:EPOCH:ignored', // a fourth part is not read for EPOCH
    'EPOCH',
    'EPOCH|SECONDS',
    'EPOCH|MILLISECONDS|1',
    'TIMESTAMP',
    'SIMPLE_DATE_FORMAT',
    'SIMPLE_DATE_FORMAT|yyyy-MM-dd',
    'SIMPLE_DATE_FORMAT|yyyy-MM-dd HH:mm|UTC',
  ])('reads %s', (format) => expect(dateTimeFormatProblem(format)).toBeUndefined());

  it.each([
    ['', /empty/],
    ['1:MILLIS:EPOCH', /"MILLIS" is not a time unit/],
    ['0:MILLISECONDS:EPOCH', /must be positive/],
    ['1:MILLISECONDS', /<size>:<unit>/],
    ['1:MILLISECONDS:EPOCHS', /"EPOCHS" is not EPOCH/],
    ['2147483648:SECONDS:EPOCH', /not a whole number/], // Integer.parseInt
    ['EPOCH|SECONDS|0', /must be positive/],
    ['EPOCH|SECONDS|1|2', /not a whole number/], // at most three parts: the size is "1|2"
    ['EPOCH|', /is not a time unit/],
    ['MILLISECONDS:EPOCH', /the pipe form/],
    ['SIMPLE_DATE_FORMAT|', /pattern is empty/],
    ['1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMddq', /"q" is not a letter/], // Joda-Time's "Illegal pattern component"
    ['1:DAYS:SIMPLE_DATE_FORMAT:MM/dd/yyyy', /years down to milliseconds/], // SchemaUtils.validateDateTimeFieldSpec's order
  ])('refuses %j', (format, reason) => {
    expect(dateTimeFormatProblem(format)).toMatch(reason);
    expect(isDateTimeFormat(format)).toBe(false);
  });
});

describe('granularities, as DateTimeGranularitySpec(String) reads them', () => {
  it('reads size:unit in every release, and unit|size from 1.0 on', () => {
    expect(granularityForm('1:SECONDS')).toBe('colon');
    expect(granularityForm('15:MINUTES')).toBe('colon');
    expect(granularityForm('SECONDS|1')).toBe('pipe');
    expect(granularityForm('DAYS')).toBe('pipe');
    // The sandbox's store is 0.11: the colon form only.
    expect(isGranularity('SECONDS|1')).toBe(false);
    expect(isGranularity('SECONDS|1', { pipeForm: true })).toBe(true);
  });
  it.each(['', '1', '0:SECONDS', '1:SECOND', '1:WEEKS', 'SECONDS|0', 'SECONDS|x', '1:SECONDS:x', 'SECONDS|1|2'])('refuses %j', (granularity) => expect(granularityForm(granularity)).toBeUndefined());
});

describe('validateSchema', () => {
  it('takes a schema written as the store writes its examples: colon format, fieldType, notNull as text, a BYTES metric, description', () => {
    const { schema, issues } = checked(
      [
        'schemaName: events',
        'description: what the store keeps',
        'dimensionFieldSpecs:',
        '  - { name: id, dataType: STRING, fieldType: DIMENSION, notNull: "true", description: the key, maxLength: 64, maxLengthExceedStrategy: TRIM_LENGTH }',
        'metricFieldSpecs:',
        '  - { name: visitors, dataType: BYTES, fieldType: METRIC }',
        'dateTimeFieldSpecs:',
        '  - { name: ts, dataType: TIMESTAMP, fieldType: DATE_TIME, format: "1:MILLISECONDS:TIMESTAMP", granularity: "1:SECONDS", notNull: "False" }',
        'complexFieldSpecs:',
        '  - { name: attributes, dataType: MAP, fieldType: COMPLEX, childFieldSpecs: { key: { name: key, dataType: STRING, fieldType: DIMENSION } } }',
      ].join('\n'),
    );
    expect(issues).toEqual([]);
    // Read as the store reads them: the booleans as booleans.
    expect(schema!.dimensionFieldSpecs![0]).toMatchObject({ notNull: true });
    expect(schema!.dateTimeFieldSpecs![0]!.notNull).toBe(false);
  });

  it('warns, at its key, of a field the store ignores, and still gives the schema', () => {
    const { schema, issues } = checked('schemaName: t\ncolour: blue\ndimensionFieldSpecs:\n  - { name: a, dataType: STRING, aliases: [b] }\n');
    expect(schema).toBeDefined();
    expect(problems(issues)).toEqual([]);
    expect(warnings(issues).map((issue) => [issue.where, issue.field])).toEqual([
      [{ file: 's.yaml', line: 2, column: 1 }, 'colour'],
      [{ file: 's.yaml', line: 4, column: 34 }, 'dimensionFieldSpecs[0].aliases'],
    ]);
    expect(warnings(issues)[0]!.message).toMatch(/^"colour" is not a field dpgw checks, so it is sent as written and the store ignores it unless it knows it; known: schemaName, /);
  });

  it('takes a pipe granularity and a transformFunction, each with a warning', () => {
    const { schema, issues } = checked(
      'schemaName: t\ndimensionFieldSpecs:\n  - { name: day, dataType: STRING, transformFunction: "toDateTime(ts, \'yyyy-MM-dd\')" }\n' + withTime('1:MILLISECONDS:EPOCH', 'SECONDS|5').replace('schemaName: t\n', ''),
    );
    expect(schema).toBeDefined();
    expect(warnings(issues).map((issue) => issue.field)).toEqual(['dateTimeFieldSpecs[0].granularity', 'dimensionFieldSpecs[0].transformFunction']);
    expect(warnings(issues)[0]!.message).toMatch(/write 5:SECONDS to suit every release/);
  });

  it.each([
    ['a fieldType other than its group', 'schemaName: t\ndimensionFieldSpecs:\n  - { name: a, dataType: INT, fieldType: METRIC }\n', /fieldType "METRIC" does not match dimensionFieldSpecs, whose fields are DIMENSION/],
    ['a STRING metric', 'schemaName: t\nmetricFieldSpecs:\n  - { name: a, dataType: STRING }\n', /must be numeric \(INT, LONG, FLOAT, DOUBLE, BIG_DECIMAL\) or BYTES, not STRING/],
    ['notNull as other text', 'schemaName: t\ndimensionFieldSpecs:\n  - { name: a, dataType: INT, notNull: "yes" }\n', /notNull must be true or false, not "yes"/],
    ['an unknown maxLengthExceedStrategy', 'schemaName: t\ndimensionFieldSpecs:\n  - { name: a, dataType: STRING, maxLengthExceedStrategy: CUT }\n', /maxLengthExceedStrategy must be one of TRIM_LENGTH, ERROR, SUBSTITUTE_DEFAULT_VALUE, NO_ACTION/],
    ['a complex column of a plain type', 'schemaName: t\ncomplexFieldSpecs:\n  - { name: a, dataType: STRING }\n', /complex column "a" must be MAP or LIST/],
    ['a STRUCT complex column (release 1.x has no default for it)', 'schemaName: t\ncomplexFieldSpecs:\n  - { name: a, dataType: STRUCT }\n', /complex column "a" must be MAP or LIST/],
    ['a timeFieldSpec converting to a column of the same name', 'schemaName: t\ntimeFieldSpec:\n  incomingGranularitySpec: { name: ts, dataType: LONG, timeType: MILLISECONDS }\n  outgoingGranularitySpec: { name: ts, dataType: LONG, timeType: DAYS }\n', /must have a name of its own/],
    ['a FLOAT default of NaN', 'schemaName: t\nmetricFieldSpecs:\n  - { name: a, dataType: FLOAT, defaultNullValue: "NaN" }\n', /does not take NaN/],
    ['an INT default that is not a whole number', 'schemaName: t\ndimensionFieldSpecs:\n  - { name: a, dataType: INT, defaultNullValue: 1.5 }\n', /an INT column's default must be a whole number/],
    ['a BYTES default that is not hexadecimal', 'schemaName: t\nmetricFieldSpecs:\n  - { name: a, dataType: BYTES, defaultNullValue: "zz" }\n', /hexadecimal/],
    ['a multi-value JSON column', 'schemaName: t\ndimensionFieldSpecs:\n  - { name: a, dataType: JSON, singleValueField: false }\n', /a JSON column cannot be multi-value/],
    ['a multi-value metric', 'schemaName: t\nmetricFieldSpecs:\n  - { name: a, dataType: INT, singleValueField: false }\n', /a metric column holds one value/],
    ['two columns differing only in case', 'schemaName: t\ndimensionFieldSpecs:\n  - { name: a, dataType: INT }\n  - { name: A, dataType: INT }\n', /differs only in case/],
    ['a transform of its own column', 'schemaName: t\ndimensionFieldSpecs:\n  - { name: a, dataType: STRING, transformFunction: "upper(a)" }\n', /takes "a" itself as an argument/],
    ['a sampleValue outside 1971 to 2071', withTime('1:MILLISECONDS:EPOCH').replace('granularity:', 'sampleValue: 5, granularity:'), /must fall from 1971 to 2071/],
    ['a format the store cannot read', withTime('1:MILLIS:EPOCH'), /format "1:MILLIS:EPOCH" is not one the store reads \("MILLIS" is not a time unit/],
  ])('refuses %s', (_, text, message) => {
    const { schema, issues } = checked(text);
    expect(schema).toBeUndefined();
    expect(problems(issues).map((issue) => issue.message)).toEqual([expect.stringMatching(message)]);
  });

  it('takes the legacy timeFieldSpec with a warning naming dateTimeFieldSpecs, its column a column of the schema', () => {
    const { schema, issues } = checked('schemaName: t\ntimeFieldSpec:\n  incomingGranularitySpec: { name: ts, dataType: LONG, timeType: MILLISECONDS }\nprimaryKeyColumns: [ts]\n');
    expect(schema).toBeDefined();
    expect(problems(issues)).toEqual([]);
    expect(warnings(issues).map((issue) => [issue.field, issue.message])).toEqual([['timeFieldSpec', expect.stringMatching(/deprecated time column .* write the column in dateTimeFieldSpecs/)]]);
  });

  it('takes numbers, null and "" for booleans as the store reads them, with a warning', () => {
    const { schema, issues } = checked('schemaName: t\ndimensionFieldSpecs:\n  - { name: a, dataType: INT, notNull: 1, singleValueField: null, maxLength: "10", defaultNullValue: "+5" }\n');
    expect(problems(issues)).toEqual([]);
    expect(schema!.dimensionFieldSpecs![0]).toMatchObject({ notNull: true, singleValueField: false, maxLength: 10 });
    expect(warnings(issues).map((issue) => issue.message)).toEqual([expect.stringMatching(/notNull 1 is read by the store as true/), expect.stringMatching(/singleValueField null is read by the store as false/)]);
  });

  it('refuses a schema with only misspelt groups: the store ignores them and is left with no columns', () => {
    const { issues } = checked('schemaName: t\ndimensionFieldSpec:\n  - { name: a, dataType: STRING }\n');
    expect(warnings(issues)[0]!.message).toMatch(/did you mean dimensionFieldSpecs\?/);
    expect(problems(issues).map((issue) => issue.message)).toEqual([expect.stringMatching(/the schema has no columns/)]);
  });
});

describe('failOnIssues', () => {
  const warning: ValidationIssue = { where: 's.yaml:2:1', field: 'colour', message: 'ignored', severity: 'warning' };
  const problem: ValidationIssue = { where: 's.yaml:3:1', field: 'schemaName', message: 'missing' };
  it('shows each warning where it is and refuses only on problems', () => {
    const shown: string[] = [];
    failOnIssues([warning], 'schema file', (line) => shown.push(line));
    expect(shown).toEqual(['s.yaml:2:1: colour: ignored']);
    expect(() => failOnIssues([warning, problem], 'schema file', () => {})).toThrow(/^schemaName: missing$/);
  });
  it('refuses on a warning when there is nowhere to show it, so none is dropped unseen', () => {
    expect(() => failOnIssues([warning], 'schema file')).toThrow(/colour: ignored/);
  });
});
