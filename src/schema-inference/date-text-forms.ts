/**
 * Dates written as text — ISO-8601 and the common forms near it — and the pattern the
 * store reads them with. The store parses a SIMPLE_DATE_FORMAT column with Joda-Time
 * (DateTimeFormatPatternSpec builds `DateTimeFormat.forPattern(pattern)`, UTC unless the
 * pattern names a zone), so a pattern here is Joda's: letters y M d H m s S, literal text
 * in single quotes, `Z` for an offset `+0100` and `ZZ` for `+01:00` (both also read `Z`).
 * Only forms running from year down to second are recognised: the store's upload check
 * (SchemaUtils.validateDateTimeFieldSpec) refuses a pattern out of that order, such as
 * `MM/dd/yyyy`, so such text stays a STRING column.
 */

export interface DateTextForm {
  /** The Joda-Time pattern, e.g. `yyyy-MM-dd'T'HH:mm:ss'Z'`. */
  pattern: string;
  /** The finest unit the pattern writes: the column's granularity. */
  unit: 'DAYS' | 'MINUTES' | 'SECONDS' | 'MILLISECONDS';
  /** The instant, as epoch milliseconds (an offset ignored: a day's error at most), for the plausible-range check. */
  epochMs: number;
}

// year, separator (- / or none), month, day; then optionally T or space, hours:minutes(:seconds(.fraction)); then a zone.
const DATE_TEXT = /^([0-9]{4})([-/]?)([0-9]{2})\2([0-9]{2})(?:([T ])([0-9]{2}):([0-9]{2})(?::([0-9]{2})(\.[0-9]{1,9})?)?)?(Z|[+-][0-9]{2}:[0-9]{2}|[+-][0-9]{4})?$/;

/** The form of a date written as text, or undefined when it is not one (or not a real date). */
export function dateTextForm(text: string): DateTextForm | undefined {
  if (text.length < 8 || text.length > 40) return undefined;
  const found = DATE_TEXT.exec(text);
  if (!found) return undefined;
  const [, year, separator, month, day, timeSeparator, hours, minutes, seconds, fraction, zone] = found;
  // A zone without a time, or 8 digits with a time after no separator, is not a form anyone writes.
  if (zone !== undefined && hours === undefined) return undefined;
  const [y, mo, d, h, mi, s] = [year, month, day, hours ?? '0', minutes ?? '0', seconds ?? '0'].map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return undefined;
  const epochMs = Date.UTC(y, mo - 1, d, h, mi, s);
  if (new Date(epochMs).getUTCDate() !== d && s < 60) return undefined; // 2014-02-30
  let pattern = `yyyy${separator}MM${separator}dd`;
  let unit: DateTextForm['unit'] = 'DAYS';
  if (hours !== undefined) {
    pattern += `${timeSeparator === 'T' ? "'T'" : ' '}HH:mm`;
    unit = 'MINUTES';
    if (seconds !== undefined) {
      pattern += ':ss';
      unit = 'SECONDS';
      // Joda's `S` reads up to 9 fraction digits (appendFractionOfSecond(count, 9)), so one pattern reads .5, .123 and .123456.
      if (fraction !== undefined) {
        pattern += '.SSS';
        unit = 'MILLISECONDS';
      }
    }
  }
  if (zone === 'Z') pattern += "'Z'";
  else if (zone !== undefined) pattern += zone.includes(':') ? 'ZZ' : 'Z';
  return { pattern, unit, epochMs };
}

/**
 * One pattern that reads the text of both forms, or undefined. They must agree but for the
 * zone: Joda's `Z` and `ZZ` also read a literal `Z` (their zero-offset text), so `'Z'` beside
 * an offset becomes the offset's letter.
 */
export function commonPattern(one: string, other: string): string | undefined {
  if (one === other) return one;
  const zoneless = (pattern: string) => pattern.replace(/('Z'|ZZ|Z)$/, '');
  if (zoneless(one) !== zoneless(other)) return undefined;
  const zones = new Set([one.slice(zoneless(one).length), other.slice(zoneless(other).length)]);
  if (zones.has('') || (zones.has('Z') && zones.has('ZZ'))) return undefined;
  return zoneless(one) + (zones.has('ZZ') ? 'ZZ' : 'Z');
}
