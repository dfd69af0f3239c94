/**
 * JSON.stringify(value, null, 2), in pieces: a top-level object's arrays are written
 * one element at a time, so a provision summary of thousands of data sets never exists
 * as one string (with its redacted copy and its bytes) at the end of a long run, when
 * memory is at its highest (docs/benchmarks.md). The text is the same, byte for byte, with
 * each piece (a key, an element, a member) written by the `stringify` given, at indent 2
 * (secrets/redaction.ts redactedJson masks as it writes).
 */
type Stringify = (value: unknown) => string | undefined;

const INDENT = '  ';
const plainJson: Stringify = (value) => JSON.stringify(value, null, 2);

export function* jsonChunks(value: unknown, stringify: Stringify = plainJson): Generator<string> {
  if (!isPlainObject(value)) {
    yield stringify(value) ?? 'null';
    return;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol');
  if (entries.length === 0) {
    yield '{}';
    return;
  }
  yield '{\n';
  for (const [index, [key, member]] of entries.entries()) {
    yield `${INDENT}${stringify(key)!}: `;
    if (Array.isArray(member) && member.length > 0) {
      yield '[\n';
      for (const [position, element] of member.entries()) {
        const text = stringify(element) ?? 'null';
        yield `${INDENT.repeat(2)}${indentFollowingLines(text, INDENT.repeat(2))}${position < member.length - 1 ? ',' : ''}\n`;
      }
      yield `${INDENT}]`;
    } else {
      yield indentFollowingLines(stringify(member)!, INDENT);
    }
    yield index < entries.length - 1 ? ',\n' : '\n';
  }
  yield '}';
}

function indentFollowingLines(text: string, indent: string): string {
  return text.includes('\n') ? text.replace(/\n/g, `\n${indent}`) : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
