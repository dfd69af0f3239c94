/**
 * The analytics store's vocabulary that schemas and tables are written in:
 * data types, time units and date-time formats. The contract uses a subset
 * (CONTRACT_DATA_TYPES, `1:MILLISECONDS:EPOCH`); the store accepts these.
 * Shared by dpgw's validation and the sandbox's store, so both agree.
 */

export const STORE_DATA_TYPES = ['INT', 'LONG', 'FLOAT', 'DOUBLE', 'BIG_DECIMAL', 'BOOLEAN', 'TIMESTAMP', 'STRING', 'JSON', 'BYTES'] as const;
export const NUMERIC_DATA_TYPES: ReadonlySet<string> = new Set(['INT', 'LONG', 'FLOAT', 'DOUBLE', 'BIG_DECIMAL']);
export const TIME_UNITS = ['NANOSECONDS', 'MICROSECONDS', 'MILLISECONDS', 'SECONDS', 'MINUTES', 'HOURS', 'DAYS'] as const;

/**
 * The data types a metric column may have: the store's Schema.validate(FieldType, DataType)
 * takes the numeric types and BYTES (serialized sketches such as HLL) for METRIC.
 */
export const METRIC_DATA_TYPES: ReadonlySet<string> = new Set([...NUMERIC_DATA_TYPES, 'BYTES']);
/**
 * The data types of a complex column: Schema.validate(FieldType, DataType) names STRUCT, MAP and LIST, but from release 1.0
 * FieldSpec.getDefaultNullValue(COMPLEX, …) has a default only for MAP and LIST and refuses STRUCT on upload.
 */
export const COMPLEX_DATA_TYPES = ['MAP', 'LIST'] as const;
/**
 * The units an EPOCH format may name: the store's DateTimeFormatUnitSpec(String) takes a
 * java.util.concurrent.TimeUnit name or one of its DateTimeTransformUnit names (up to YEARS).
 */
const FORMAT_UNITS: readonly string[] = [...TIME_UNITS, 'WEEKS', 'MONTHS', 'YEARS'];

/**
 * What the store's reader finds wrong with a date-time format, or undefined when it reads it.
 * Mirrors the store's DateTimeFormatSpec(String) (pinot-spi): a format starting with a digit
 * is the colon form `size:unit:EPOCH`, `size:unit:TIMESTAMP` (size and unit not read),
 * `size:unit:SIMPLE_DATE_FORMAT(:pattern)`, split into at most four parts so a pattern may
 * hold colons; anything else is the pipe form `EPOCH(|unit(|size))`, `TIMESTAMP`,
 * `SIMPLE_DATE_FORMAT(|pattern(|time zone))`, split into at most three parts. Then the
 * upload check SchemaUtils.validateDateTimeFieldSpec (pinot-segment-local) on the pattern.
 */
export function dateTimeFormatProblem(format: string): string | undefined {
  if (format === '') return 'the format is empty';
  if (/^[0-9]/.test(format)) {
    const [size, unit, kind, pattern] = splitAtMost(format, ':', 4);
    if (kind === undefined) return 'a format starting with a digit is <size>:<unit>:<EPOCH|TIMESTAMP|SIMPLE_DATE_FORMAT>(:<pattern>)';
    if (kind === 'EPOCH') return sizeProblem(size!) ?? (FORMAT_UNITS.includes(unit!) ? undefined : `"${unit}" is not a time unit (${FORMAT_UNITS.join(', ')})`);
    if (kind === 'TIMESTAMP') return undefined;
    if (kind === 'SIMPLE_DATE_FORMAT') return pattern === undefined ? undefined : datePatternProblem(withoutTimeZone(pattern));
    return `"${kind}" is not EPOCH, TIMESTAMP or SIMPLE_DATE_FORMAT`;
  }
  const [kind, second, third] = splitAtMost(format, '|', 3);
  if (kind === 'EPOCH') {
    if (third !== undefined && sizeProblem(third)) return sizeProblem(third);
    return second === undefined || FORMAT_UNITS.includes(second) ? undefined : `"${second}" is not a time unit (${FORMAT_UNITS.join(', ')})`;
  }
  if (kind === 'TIMESTAMP') return undefined;
  // DateTimeFormatPatternSpec: with a third part the pattern is taken as written; with two, a trailing ` tz(<zone>)` is the time zone.
  if (kind === 'SIMPLE_DATE_FORMAT') return second === undefined ? undefined : datePatternProblem(third === undefined ? withoutTimeZone(second) : second);
  return `"${kind}" is not EPOCH, TIMESTAMP or SIMPLE_DATE_FORMAT (the pipe form), and the format does not start with a digit (the colon form)`;
}

/**
 * Why release 0.11 refuses a format the newest release reads, or undefined: its DateTimeFormatSpec needs the unit of an
 * EPOCH format and the pattern of a SIMPLE_DATE_FORMAT one; from release 1.0 `EPOCH` means milliseconds and no pattern
 * means the ISO parser.
 */
export function dateTimeFormatOlderReleaseNote(format: string): string | undefined {
  const colon = /^[0-9]/.test(format);
  const [kind, second] = colon ? splitAtMost(format, ':', 4).slice(2) : splitAtMost(format, '|', 3);
  if (kind === 'EPOCH' && second === undefined && !colon) return 'is read from the store\'s release 1.0 on; release 0.11 refuses it: write 1:MILLISECONDS:EPOCH to suit every release';
  if (kind === 'SIMPLE_DATE_FORMAT' && second === undefined) return 'has no pattern, which the store reads from release 1.0 on (its ISO parser); release 0.11 refuses it: add the pattern';
  return undefined;
}

/** A value's text as the store's Java code sees it (Jackson reads defaultNullValue and sampleValue as an Object, then toString). */
function javaText(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

const INT_RANGE = [-(2n ** 31n), 2n ** 31n - 1n] as const;
const LONG_RANGE = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const wholeIn = (text: string, [low, high]: readonly [bigint, bigint]) => /^[+-]?[0-9]+$/.test(text) && BigInt(text) >= low && BigInt(text) <= high;
/** Java's Float.valueOf and Double.valueOf (decimal forms; the text is trimmed). */
const JAVA_FLOATING = /^[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFdD]?)$/;
/** java.math.BigDecimal(String). */
const JAVA_BIG_DECIMAL = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
/** java.sql.Timestamp.valueOf, which TimestampUtils.toMillisSinceEpoch tries after a whole number of milliseconds. */
const JAVA_TIMESTAMP = /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2} [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]{1,9})?$/;

/**
 * Why the store refuses a column's defaultNullValue, or undefined: FieldSpec.setDefaultNullValue converts its text with
 * DataType.convert (Integer.valueOf, Long.valueOf, Float.valueOf, Double.valueOf, new BigDecimal, TimestampUtils,
 * BytesUtils.toBytes as hex; BOOLEAN, STRING and JSON take any text); SchemaUtils.validateDefaultIsNotNaN (release 1.x)
 * refuses NaN for FLOAT and DOUBLE.
 */
export function defaultValueProblem(dataType: string, value: unknown): string | undefined {
  const text = javaText(value);
  switch (dataType) {
    case 'INT':
      return wholeIn(text, INT_RANGE) ? undefined : 'an INT column\'s default must be a whole number from -2147483648 to 2147483647';
    case 'LONG':
      return wholeIn(text, LONG_RANGE) ? undefined : 'a LONG column\'s default must be a whole number that fits 64 bits';
    case 'FLOAT':
    case 'DOUBLE':
      if (!JAVA_FLOATING.test(text.trim())) return `a ${dataType} column's default must be a number`;
      return text === 'NaN' ? `the store does not take NaN as a ${dataType} column's default (from release 1.0): write a number` : undefined;
    case 'BIG_DECIMAL':
      return JAVA_BIG_DECIMAL.test(text) ? undefined : 'a BIG_DECIMAL column\'s default must be a decimal number (no NaN or Infinity)';
    case 'TIMESTAMP':
      return wholeIn(text, LONG_RANGE) || JAVA_TIMESTAMP.test(text) ? undefined : 'a TIMESTAMP column\'s default must be milliseconds since 1970 or yyyy-MM-dd HH:mm:ss[.fff]';
    case 'BYTES':
      return /^([0-9a-fA-F]{2})*$/.test(text) ? undefined : 'a BYTES column\'s default must be hexadecimal text with an even number of digits';
    default:
      return undefined;
  }
}

/** TimeUtils.VALID_MIN_TIME_MILLIS and VALID_MAX_TIME_MILLIS: 1971-01-01 and 2071-01-01, UTC. */
const VALID_TIME_MILLIS = [Date.UTC(1971, 0, 1), Date.UTC(2071, 0, 1)] as const;
const UNIT_MILLIS: Record<string, number> = { NANOSECONDS: 1e-6, MICROSECONDS: 1e-3, MILLISECONDS: 1, SECONDS: 1e3, MINUTES: 6e4, HOURS: 3.6e6, DAYS: 8.64e7 };

/**
 * Why the store refuses a date-time column's sampleValue, or undefined: SchemaUtils.validateDateTimeFieldSpec (release 1.x)
 * converts it with the format (DateTimeFormatSpec.fromFormatToMillis) and needs a time from 1971 to 2071. dpgw converts
 * EPOCH and TIMESTAMP values; a SIMPLE_DATE_FORMAT sample must match its pattern's digits and separators.
 */
export function sampleValueProblem(format: string, value: unknown): string | undefined {
  if (dateTimeFormatProblem(format) !== undefined) return undefined;
  const text = javaText(value);
  const colon = /^[0-9]/.test(format);
  const [size, unit, kind, pattern] = colon ? splitAtMost(format, ':', 4) : ((([k, u, s]) => [s ?? '1', u ?? 'MILLISECONDS', k, u])(splitAtMost(format, '|', 3)) as string[]);
  const range = `must fall from 1971 to 2071 in format ${format}`;
  if (kind === 'EPOCH' || kind === 'TIMESTAMP') {
    if (!/^[+-]?[0-9]+$/.test(text)) return `is not a whole number, which format ${format} needs`;
    const millis = Number(text) * (kind === 'TIMESTAMP' ? 1 : Number(size) * (UNIT_MILLIS[unit!] ?? Number.NaN));
    if (Number.isNaN(millis)) return undefined;
    return millis >= VALID_TIME_MILLIS[0] && millis <= VALID_TIME_MILLIS[1] ? undefined : range;
  }
  const sdf = colon ? pattern : unit === 'MILLISECONDS' ? undefined : unit;
  if (sdf === undefined) return undefined;
  const digitsOnly = sdf.replace(/ tz\(.*\)$/, '');
  if (/[^yMdHmsS\-/:. T']/.test(digitsOnly)) return undefined;
  const shape = new RegExp(`^${digitsOnly.replace(/'([^']*)'/g, '$1').replace(/[-/:.]/g, '\\$&').replace(/y+|M+|d+|H+|m+|s+|S+/g, (letters) => `[0-9]{${letters.length === 1 ? '1,2' : letters.length === 4 && letters[0] === 'y' ? '4' : `1,${Math.max(letters.length, 2)}`}}`)}$`);
  if (!shape.test(text)) return `does not match the pattern ${sdf}`;
  const year = /yyyy/.test(digitsOnly) ? Number(text.slice(digitsOnly.replace(/'/g, '').indexOf('yyyy'), digitsOnly.replace(/'/g, '').indexOf('yyyy') + 4)) : undefined;
  return year === undefined || (year >= 1971 && year <= 2071) ? undefined : range;
}

export function isDateTimeFormat(format: string): boolean {
  return dateTimeFormatProblem(format) === undefined;
}

/**
 * How the store reads a granularity: `colon` (`size:unit`, every release), `pipe`
 * (`unit` or `unit|size`, read from release 1.0.0 on), or undefined when it cannot read it.
 * Mirrors DateTimeGranularitySpec(String) (pinot-spi): a digit first means the colon form,
 * split into exactly two parts; otherwise the pipe form, at most two; the unit a TimeUnit name.
 */
export function granularityForm(granularity: string): 'colon' | 'pipe' | undefined {
  if (granularity === '') return undefined;
  const colon = /^[0-9]/.test(granularity);
  const [first, second] = splitAtMost(granularity, colon ? ':' : '|', 2);
  const [size, unit] = colon ? [first, second] : [second, first];
  if (unit === undefined || !(TIME_UNITS as readonly string[]).includes(unit)) return undefined;
  if ((colon || size !== undefined) && sizeProblem(size!) !== undefined) return undefined;
  return colon ? 'colon' : 'pipe';
}

/**
 * Whether a granularity is read. The sandbox's store is release 0.11, whose
 * DateTimeGranularitySpec reads only `size:unit`; `pipeForm` takes the later releases' form too.
 */
export function isGranularity(granularity: string, options: { pipeForm?: boolean } = {}): boolean {
  const form = granularityForm(granularity);
  return form === 'colon' || (form === 'pipe' && options.pipeForm === true);
}

/** The store's StringUtil.split(text, separator, max): at most `max` parts, the last one holding the rest. */
function splitAtMost(text: string, separator: string, max: number): string[] {
  const parts = text.split(separator);
  return parts.length <= max ? parts : [...parts.slice(0, max - 1), parts.slice(max - 1).join(separator)];
}

/** A size as Java's Integer.parseInt reads it, then the store's "must be positive". */
function sizeProblem(size: string): string | undefined {
  if (!/^[+-]?[0-9]+$/.test(size) || Number(size) > 2 ** 31 - 1 || Number(size) < -(2 ** 31)) return `"${size}" is not a whole number`;
  return Number(size) > 0 ? undefined : `the size ${size} must be positive`;
}

/** DateTimeFormatPatternSpec's SDF_PATTERN_WITH_TIMEZONE: `<pattern> tz(<zone>)` keeps the pattern, trimmed. */
function withoutTimeZone(pattern: string): string {
  const found = /^(.+)( tz *\((.+)\)) */.exec(pattern);
  return found ? found[1]!.trim() : pattern;
}

/** The letters Joda-Time's DateTimeFormat.forPattern reads; any other unquoted letter is an "Illegal pattern component". */
const PATTERN_LETTERS = new Set('GCYxweEDyMdaKhHkmsSzZ');
/** The order SchemaUtils.validateDateTimeFieldSpec requires, so that text order is time order: year, month, day, hour, minute, second, millisecond. */
const PATTERN_ORDER = 'yMdHmsS';

/** A SIMPLE_DATE_FORMAT pattern as the store's formatter and its upload check take it. */
function datePatternProblem(pattern: string): string | undefined {
  if (pattern === '') return 'the SIMPLE_DATE_FORMAT pattern is empty';
  let quoted = false;
  for (const char of pattern) {
    if (char === "'") quoted = !quoted;
    else if (!quoted && /[A-Za-z]/.test(char) && !PATTERN_LETTERS.has(char)) return `"${char}" is not a letter of a date pattern (${pattern})`;
  }
  // The last place of each of y M d H m s S (every character counts, quoted or not) must not come after that of a later one.
  let latest = -1;
  for (const letter of PATTERN_ORDER) {
    const last = pattern.lastIndexOf(letter);
    if (last === -1) continue;
    if (last < latest) return `the pattern ${pattern} must run from years down to milliseconds (${[...PATTERN_ORDER].join(' ')}), so that its text sorts as its time does`;
    latest = last;
  }
  return undefined;
}

/** Default class names of the store's stream plugins (Pinot's JSON decoder and its Kafka 2.0 consumer factory). */
export const STREAM_PLUGIN_CLASSES = {
  decoder: 'org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder',
  consumerFactory: 'org.apache.pinot.plugin.stream.kafka20.KafkaConsumerFactory',
  stringDeserializer: 'org.apache.kafka.common.serialization.StringDeserializer',
  scramLoginModule: 'org.apache.kafka.common.security.scram.ScramLoginModule',
} as const;
