/**
 * Which fields of a message hold a number written with a fraction or an exponent
 * (`1500.00`, `1e3`). JSON.parse makes `1500.00` the integer 1500, but the store's JSON
 * decoder reads it through Jackson, whose parser sees a float token (VALUE_NUMBER_FLOAT)
 * and gives a double: the column is DOUBLE. Only the number's written form tells, so the
 * message text is scanned — and only when a quick test finds such a number in it at all,
 * so that messages without one cost one regular-expression test.
 */

/** A number whose fraction is all zeros, or one with an exponent: the forms JSON.parse may turn into an integer. In a string, it only costs a scan. */
const MAYBE_INTEGRAL_DECIMAL = /[0-9]\.0+(?![0-9])|[0-9][eE][-+]?[0-9]/;

/** The answer for the usual message, which has no such number: shared, never written to. */
const NONE: ReadonlyMap<number, ReadonlySet<string>> = new Map();

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether the character at `index` is escaped: an odd number of backslashes before it. */
function escapedAt(text: string, index: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(index - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}
const MINUS = 0x2d;

/**
 * For each message in `text` (counted from 0, objects only), the names of its top-level fields
 * that hold such a number, directly or as an element of a list. `messageDepth` is 1 when the
 * text is one message, 2 when it is a JSON array of messages. Deeper values belong to a JSON
 * column, whose type the number's form does not change. The text is valid JSON (JSON.parse read it).
 */
export function fieldsWrittenAsDecimals(text: string, messageDepth: 1 | 2): ReadonlyMap<number, ReadonlySet<string>> {
  if (!MAYBE_INTEGRAL_DECIMAL.test(text)) return NONE;
  const found = new Map<number, Set<string>>();
  const open: number[] = [];
  let message = -1;
  let key: string | undefined;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) {
      // The string's end: the next quote not escaped (preceded by an even number of backslashes); indexOf keeps long texts cheap.
      const start = i + 1;
      let end = text.indexOf('"', start);
      while (end !== -1 && escapedAt(text, end)) end = text.indexOf('"', end + 1);
      i = end === -1 ? text.length : end;
      if (expectKey && open.length === messageDepth) {
        const raw = text.slice(start, i);
        key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
      }
      continue;
    }
    switch (char) {
      case 0x7b /* { */:
        open.push(char);
        if (open.length === messageDepth) {
          message++;
          key = undefined;
        }
        expectKey = true;
        continue;
      case 0x5b /* [ */:
        open.push(char);
        expectKey = false;
        continue;
      case 0x7d /* } */:
      case 0x5d /* ] */:
        open.pop();
        expectKey = false;
        continue;
      case 0x3a /* : */:
        expectKey = false;
        continue;
      case 0x2c /* , */:
        expectKey = open.at(-1) === 0x7b;
        continue;
    }
    if (char === MINUS || (char >= 0x30 && char <= 0x39)) {
      let end = i + 1;
      let decimal = false;
      for (; end < text.length; end++) {
        const next = text.charCodeAt(end);
        if (next === 0x2e /* . */ || next === 0x65 /* e */ || next === 0x45 /* E */) decimal = true;
        else if (!((next >= 0x30 && next <= 0x39) || next === MINUS || next === 0x2b /* + */)) break;
      }
      const inField = open.length === messageDepth || (open.length === messageDepth + 1 && open.at(-1) === 0x5b);
      if (decimal && inField && key !== undefined) {
        let fields = found.get(message);
        if (!fields) found.set(message, (fields = new Set()));
        fields.add(key);
      }
      i = end - 1;
    }
  }
  return found;
}
