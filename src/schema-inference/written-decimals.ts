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
  const scan = new DecimalScan(text, messageDepth);
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    // Each step returns the index of the last character it read; the loop goes on after it.
    if (char === QUOTE) i = scan.string(i);
    else if (char === MINUS || isDigit(char)) i = scan.number(i);
    else scan.punctuation(char);
  }
  return scan.found;
}

const isDigit = (char: number): boolean => char >= 0x30 && char <= 0x39;

/** One pass over a message text: where it is (nesting, message, key) and what it found so far. */
class DecimalScan {
  readonly found = new Map<number, Set<string>>();
  /** The open brackets, `{` or `[`, outermost first. */
  private readonly open: number[] = [];
  private message = -1;
  private key: string | undefined;
  private expectKey = false;

  constructor(
    private readonly text: string,
    private readonly messageDepth: 1 | 2,
  ) {}

  /** A string from its opening quote: a key of a message's top level is remembered. */
  string(quote: number): number {
    const { text } = this;
    // The string's end: the next quote not escaped (preceded by an even number of backslashes); indexOf keeps long texts cheap.
    const start = quote + 1;
    let end = text.indexOf('"', start);
    while (end !== -1 && escapedAt(text, end)) end = text.indexOf('"', end + 1);
    const last = end === -1 ? text.length : end;
    if (this.expectKey && this.open.length === this.messageDepth) {
      const raw = text.slice(start, last);
      this.key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
    }
    return last;
  }

  /** JSON's punctuation: brackets open and close, a colon ends a key, a comma in an object starts the next. */
  punctuation(char: number): void {
    switch (char) {
      case 0x7b /* { */:
        this.open.push(char);
        if (this.open.length === this.messageDepth) {
          this.message++;
          this.key = undefined;
        }
        this.expectKey = true;
        return;
      case 0x5b /* [ */:
        this.open.push(char);
        this.expectKey = false;
        return;
      case 0x7d /* } */:
      case 0x5d /* ] */:
        this.open.pop();
        this.expectKey = false;
        return;
      case 0x3a /* : */:
        this.expectKey = false;
        return;
      case 0x2c /* , */:
        this.expectKey = this.open.at(-1) === 0x7b;
        return;
    }
  }

  /** A number from its first character: written with a fraction or exponent, directly in a top-level field or a list of one, it marks the field. */
  number(first: number): number {
    const { text, open, messageDepth } = this;
    let end = first + 1;
    let decimal = false;
    for (; end < text.length; end++) {
      const next = text.charCodeAt(end);
      if (next === 0x2e /* . */ || next === 0x65 /* e */ || next === 0x45 /* E */) decimal = true;
      else if (!(isDigit(next) || next === MINUS || next === 0x2b /* + */)) break;
    }
    const inField = open.length === messageDepth || (open.length === messageDepth + 1 && open.at(-1) === 0x5b);
    if (decimal && inField && this.key !== undefined) {
      let fields = this.found.get(this.message);
      if (!fields) this.found.set(this.message, (fields = new Set()));
      fields.add(this.key);
    }
    return end - 1;
  }
}
