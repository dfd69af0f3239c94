/**
 * The generated half of the differential test's corpus: schemas written to probe each rule of
 * dpgw's schema check against the analytics store's own reader and upload checks. Each case is
 * one small schema, most of them a base schema with one field changed.
 */
export interface SchemaCase {
  name: string;
  /** The schema as JSON text (text, so that duplicate keys and raw numbers can be written). */
  text: string;
}

const DATA_TYPES = ['INT', 'LONG', 'FLOAT', 'DOUBLE', 'BIG_DECIMAL', 'BOOLEAN', 'TIMESTAMP', 'STRING', 'JSON', 'BYTES', 'UUID', 'OPEN_STRUCT', 'STRUCT', 'MAP', 'LIST', 'long', 'TEXT'];
const GROUPS = ['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs', 'complexFieldSpecs'] as const;
const TIME = { name: 'ts', dataType: 'LONG', format: '1:MILLISECONDS:EPOCH', granularity: '1:MILLISECONDS' };

const schema = (fields: Record<string, unknown>): string => JSON.stringify({ schemaName: 'cases', ...fields }, null, 2);
const withDimension = (field: Record<string, unknown>, more: Record<string, unknown> = {}) => schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING', ...field }], ...more });
const withTime = (field: Record<string, unknown>) => schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }], dateTimeFieldSpecs: [{ ...TIME, ...field }] });
const inGroup = (group: (typeof GROUPS)[number], field: Record<string, unknown>) =>
  schema({ dimensionFieldSpecs: group === 'dimensionFieldSpecs' ? [field] : [{ name: 'd', dataType: 'STRING' }], ...(group === 'dimensionFieldSpecs' ? {} : { [group]: [field] }) });

export function generatedSchemaCases(): SchemaCase[] {
  const cases: SchemaCase[] = [];
  const add = (name: string, text: string) => cases.push({ name, text });

  // Date-time formats: both forms, every kind, with and without sizes, units and patterns.
  const formats = [
    '1:MILLISECONDS:EPOCH', '1:SECONDS:EPOCH', '5:MINUTES:EPOCH', '1:HOURS:EPOCH', '1:DAYS:EPOCH', '1:WEEKS:EPOCH', '1:MONTHS:EPOCH', '1:YEARS:EPOCH', '1:NANOSECONDS:EPOCH', '1:MICROSECONDS:EPOCH',
    '0:MILLISECONDS:EPOCH', '-1:MILLISECONDS:EPOCH', '1:MILLIS:EPOCH', '1:milliseconds:EPOCH', '1.5:MILLISECONDS:EPOCH', '99999999999:MILLISECONDS:EPOCH', '1:MILLISECONDS', '1:MILLISECONDS:EPOCH:extra', '1:MILLISECONDS:epoch', '1:MILLISECONDS:DATE',
    '1:MILLISECONDS:TIMESTAMP', '1:DAYS:TIMESTAMP', '1:FOO:TIMESTAMP', '0:MILLISECONDS:TIMESTAMP',
    '1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd', '1:DAYS:SIMPLE_DATE_FORMAT:yyyy-MM-dd', "1:SECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd'T'HH:mm:ss", '1:SECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH:mm:ss.SSS', '1:DAYS:SIMPLE_DATE_FORMAT:MM/dd/yyyy', '1:DAYS:SIMPLE_DATE_FORMAT:dd-MM-yyyy',
    '1:DAYS:SIMPLE_DATE_FORMAT', '1:DAYS:SIMPLE_DATE_FORMAT:', '1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd tz(America/New_York)', '1:DAYS:SIMPLE_DATE_FORMAT:yyyy-MM-dd tz(Not/AZone)', '1:DAYS:SIMPLE_DATE_FORMAT:yyyyqqdd', '1:HOURS:SIMPLE_DATE_FORMAT:yyyyMMddHH', '1:DAYS:SIMPLE_DATE_FORMAT:EEE, yyyy MMM dd', "1:DAYS:SIMPLE_DATE_FORMAT:yyyy'T'MM",
    '0:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd', '1:FOO:SIMPLE_DATE_FORMAT:yyyyMMdd',
    'EPOCH', 'EPOCH|MILLISECONDS', 'EPOCH|SECONDS|1', 'EPOCH|MINUTES|5', 'EPOCH|', 'EPOCH|MILLIS', 'EPOCH|SECONDS|0', 'EPOCH|SECONDS|x', 'EPOCH|SECONDS|1|2', 'EPOCH|WEEKS',
    'TIMESTAMP', 'TIMESTAMP|MILLISECONDS', 'SIMPLE_DATE_FORMAT', 'SIMPLE_DATE_FORMAT|yyyy-MM-dd', 'SIMPLE_DATE_FORMAT|yyyy-MM-dd HH:mm|UTC', 'SIMPLE_DATE_FORMAT|yyyy-MM-dd|Not/AZone', 'SIMPLE_DATE_FORMAT|', 'SIMPLE_DATE_FORMAT|MM/dd/yyyy', 'SIMPLE_DATE_FORMAT|yyyyMMdd tz(UTC)',
    'epoch', 'DATE', '', ' 1:MILLISECONDS:EPOCH', '1 :MILLISECONDS:EPOCH',
  ];
  for (const format of formats) add(`format ${JSON.stringify(format)}`, withTime({ format }));
  add('format missing', withTime({ format: undefined }));
  add('format a number', withTime({ format: 1 }));

  // Granularities, both forms.
  const granularities = ['1:MILLISECONDS', '1:SECONDS', '15:MINUTES', '1:DAYS', '0:SECONDS', '-1:SECONDS', '1:WEEKS', '1:MILLIS', '1', 'SECONDS', 'SECONDS|1', 'SECONDS|5', 'MINUTES|15', 'SECONDS|0', 'SECONDS|x', 'SECONDS|1|2', 'DAYS|', 'seconds|1', '1:SECONDS:EXTRA', '', 'x'];
  for (const granularity of granularities) add(`granularity ${JSON.stringify(granularity)}`, withTime({ granularity }));
  add('granularity missing', withTime({ granularity: undefined }));

  // Every dataType in every field kind, and multi-value.
  for (const group of GROUPS) {
    for (const dataType of DATA_TYPES) {
      const field: Record<string, unknown> = group === 'dateTimeFieldSpecs' ? { ...TIME, dataType } : { name: 'c', dataType };
      add(`${group} dataType ${dataType}`, inGroup(group, field));
    }
    add(`${group} dataType missing`, inGroup(group, { name: 'c' }));
  }
  for (const dataType of DATA_TYPES.slice(0, 12)) add(`multi-value dimension ${dataType}`, withDimension({ dataType, singleValueField: false }));
  add('multi-value metric', schema({ metricFieldSpecs: [{ name: 'm', dataType: 'INT', singleValueField: false }] }));
  add('multi-value date-time', schema({ dateTimeFieldSpecs: [{ ...TIME, singleValueField: false }] }));

  // fieldType agreeing and disagreeing with its group.
  for (const group of GROUPS) {
    for (const fieldType of ['DIMENSION', 'METRIC', 'DATE_TIME', 'COMPLEX', 'TIME', 'dimension', 'FOO']) {
      const field: Record<string, unknown> = group === 'dateTimeFieldSpecs' ? { ...TIME, fieldType } : group === 'complexFieldSpecs' ? { name: 'c', dataType: 'MAP', fieldType } : group === 'metricFieldSpecs' ? { name: 'c', dataType: 'INT', fieldType } : { name: 'c', dataType: 'STRING', fieldType };
      add(`${group} fieldType ${fieldType}`, inGroup(group, field));
    }
  }

  // Booleans written as text and numbers.
  for (const given of [true, false, 'true', 'True', 'TRUE', 'false', 'yes', '1', 1, 0, 2, null, '']) {
    add(`notNull ${JSON.stringify(given)}`, withDimension({ notNull: given }));
    add(`singleValueField ${JSON.stringify(given)}`, withDimension({ singleValueField: given }));
    add(`enableColumnBasedNullHandling ${JSON.stringify(given)}`, withDimension({}, { enableColumnBasedNullHandling: given }));
  }

  // defaultNullValue per type, as text, numbers and other JSON.
  const defaults: unknown[] = [5, '5', 1.5, '1.5', 'abc', true, 'true', 0, '0', 'NaN', 'Infinity', '-Infinity', '2024-01-01 00:00:00', '00ff', 'zz', '{"a":1}', [], {}, null, 2 ** 40, '1e3'];
  for (const dataType of ['INT', 'LONG', 'FLOAT', 'DOUBLE', 'BIG_DECIMAL', 'BOOLEAN', 'TIMESTAMP', 'STRING', 'JSON', 'BYTES']) {
    for (const defaultNullValue of defaults) add(`defaultNullValue ${JSON.stringify(defaultNullValue)} for ${dataType}`, withDimension({ dataType, defaultNullValue }));
  }
  for (const defaultNullValue of [0, '0', 'NaN', 'abc', 1.5]) add(`metric defaultNullValue ${JSON.stringify(defaultNullValue)}`, schema({ metricFieldSpecs: [{ name: 'm', dataType: 'DOUBLE', defaultNullValue }] }));
  add('date-time defaultNullValue abc', withTime({ defaultNullValue: 'abc' }));

  // maxLength and its strategy.
  for (const maxLength of [1, 512, 0, -1, 1.5, '10', 2 ** 31 - 1, 2 ** 31]) add(`maxLength ${JSON.stringify(maxLength)}`, withDimension({ maxLength }));
  for (const maxLengthExceedStrategy of ['TRIM_LENGTH', 'ERROR', 'SUBSTITUTE_DEFAULT_VALUE', 'NO_ACTION', 'trim_length', 'FOO']) add(`maxLengthExceedStrategy ${maxLengthExceedStrategy}`, withDimension({ maxLengthExceedStrategy }));

  // The legacy time column.
  const incoming = { name: 'ts', dataType: 'LONG', timeType: 'MILLISECONDS', timeUnitSize: 1 };
  add('timeFieldSpec incoming only', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }], timeFieldSpec: { incomingGranularitySpec: incoming } }));
  add('timeFieldSpec alone', schema({ timeFieldSpec: { incomingGranularitySpec: incoming } }));
  add('timeFieldSpec incoming and outgoing, other names', schema({ timeFieldSpec: { incomingGranularitySpec: incoming, outgoingGranularitySpec: { ...incoming, name: 'days', timeType: 'DAYS' } } }));
  add('timeFieldSpec incoming and outgoing, same name', schema({ timeFieldSpec: { incomingGranularitySpec: incoming, outgoingGranularitySpec: { ...incoming, timeType: 'DAYS' } } }));
  add('timeFieldSpec with a SIMPLE_DATE_FORMAT conversion', schema({ timeFieldSpec: { incomingGranularitySpec: { ...incoming, timeFormat: 'SIMPLE_DATE_FORMAT:yyyyMMdd' }, outgoingGranularitySpec: { ...incoming, name: 'days', timeType: 'DAYS' } } }));
  add('timeFieldSpec with a bad unit', schema({ timeFieldSpec: { incomingGranularitySpec: { ...incoming, timeType: 'MILLIS' } } }));
  add('timeFieldSpec with no name', schema({ timeFieldSpec: { incomingGranularitySpec: { dataType: 'LONG', timeType: 'MILLISECONDS' } } }));
  add('timeFieldSpec with a STRING type', schema({ timeFieldSpec: { incomingGranularitySpec: { ...incoming, dataType: 'STRING', timeFormat: 'SIMPLE_DATE_FORMAT:yyyyMMdd', timeType: 'DAYS' } } }));
  add('timeFieldSpec beside a date-time column of its name', schema({ dateTimeFieldSpecs: [TIME], timeFieldSpec: { incomingGranularitySpec: incoming } }));
  add('timeFieldSpec of a metric type', schema({ timeFieldSpec: { incomingGranularitySpec: { ...incoming, dataType: 'BYTES' } } }));
  add('timeFieldSpec not a mapping', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }], timeFieldSpec: 'ts' }));

  // Complex columns.
  add('complex MAP with children', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }], complexFieldSpecs: [{ name: 'attrs', dataType: 'MAP', childFieldSpecs: { key: { name: 'key', dataType: 'STRING' }, value: { name: 'value', dataType: 'INT' } } }] }));
  add('complex MAP with bad child', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }], complexFieldSpecs: [{ name: 'attrs', dataType: 'MAP', childFieldSpecs: { key: { name: 'key', dataType: 'NOPE' } } }] }));
  add('complex column only', schema({ complexFieldSpecs: [{ name: 'attrs', dataType: 'MAP' }] }));

  // Keys the store ignores.
  add('unknown top-level key', withDimension({}, { owner: 'web team' }));
  add('unknown field key', withDimension({ colour: 'blue' }));
  add('description', withDimension({ description: 'a column' }, { description: 'a schema' }));
  add('description a number', withDimension({ description: 5 }));
  add('dimensionFieldSpecs not a list', schema({ dimensionFieldSpecs: { name: 'd', dataType: 'STRING' } }));
  add('field spec not a mapping', schema({ dimensionFieldSpecs: ['d'] }));
  add('no columns', schema({}));
  add('top level a list', '[]');
  add('not JSON', '{ "schemaName": ');

  // Names: duplicates, missing, reserved, odd.
  add('duplicate column in a group', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }, { name: 'd', dataType: 'INT' }] }));
  add('duplicate column across groups', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }], metricFieldSpecs: [{ name: 'd', dataType: 'INT' }] }));
  add('columns differing only in case', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }, { name: 'D', dataType: 'STRING' }] }));
  add('duplicate key in JSON', '{ "schemaName": "cases", "dimensionFieldSpecs": [{ "name": "a", "name": "b", "dataType": "STRING" }] }');
  add('column name missing', withDimension({ name: undefined }));
  add('column name empty', withDimension({ name: '' }));
  add('column name with a space', withDimension({ name: 'a b' }));
  add('column name with a tab', withDimension({ name: 'a\tb' }));
  for (const name of ['$docId', '$hostName', '$segmentName', '$ts', 'a.b', 'a-b', '__key', 'a__b', 'ñame', '1abc', 'select']) add(`column name ${name}`, withDimension({ name }));
  add('schemaName missing', JSON.stringify({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }] }));
  add('schemaName empty', JSON.stringify({ schemaName: '', dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }] }));
  add('schemaName blank', JSON.stringify({ schemaName: ' ', dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }] }));
  add('schemaName with __', JSON.stringify({ schemaName: 'my__cases', dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }] }));
  add('schemaName a number', JSON.stringify({ schemaName: 5, dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }] }));

  // Primary keys.
  add('primary key present', withDimension({}, { primaryKeyColumns: ['d'] }));
  add('primary key absent', withDimension({}, { primaryKeyColumns: ['nope'] }));
  add('primary key a text', withDimension({}, { primaryKeyColumns: 'd' }));
  add('primary key empty', withDimension({}, { primaryKeyColumns: [] }));

  // sampleValue of a date-time column.
  for (const [format, sampleValue] of [['1:MILLISECONDS:EPOCH', 1_700_000_000_000], ['1:MILLISECONDS:EPOCH', '1700000000000'], ['1:MILLISECONDS:EPOCH', 'abc'], ['1:MILLISECONDS:EPOCH', 5], ['1:SECONDS:EPOCH', 1_700_000_000], ['1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd', '20240101'], ['1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd', '2024-01-01'], ['1:MILLISECONDS:EPOCH', 99_999_999_999_999]] as const) {
    add(`sampleValue ${JSON.stringify(sampleValue)} for ${format}`, withTime({ format, sampleValue }));
  }

  // Transforms in the schema.
  add('transform of another column', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }, { name: 'upper', dataType: 'STRING', transformFunction: 'upper(d)' }] }));
  add('transform of its own column', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING', transformFunction: 'upper(d)' }] }));
  add('transform Groovy', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }, { name: 'e', dataType: 'STRING', transformFunction: 'Groovy({d + "x"}, d)' }] }));
  add('transform chained', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }, { name: 'e', dataType: 'STRING', transformFunction: 'upper(d)' }, { name: 'f', dataType: 'STRING', transformFunction: 'lower(e)' }] }));
  add('transform unknown function', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }, { name: 'e', dataType: 'STRING', transformFunction: 'noSuchFunction(d)' }] }));
  add('transform not an expression', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }, { name: 'e', dataType: 'STRING', transformFunction: 'upper(' }] }));
  add('transform empty', schema({ dimensionFieldSpecs: [{ name: 'd', dataType: 'STRING' }, { name: 'e', dataType: 'STRING', transformFunction: '' }] }));
  add('transform toEpochDays', schema({ dateTimeFieldSpecs: [TIME, { name: 'days', dataType: 'LONG', format: '1:DAYS:EPOCH', granularity: '1:DAYS', transformFunction: 'toEpochDays(ts)' }] }));
  return cases;
}
