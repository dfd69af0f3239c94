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
/** The data types of a complex column: the store's Schema.validate(FieldType, DataType) for COMPLEX. */
export const COMPLEX_DATA_TYPES = ['STRUCT', 'MAP', 'LIST'] as const;
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
