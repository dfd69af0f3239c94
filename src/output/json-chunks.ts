/**
 * JSON.stringify(value, null, 2), in pieces: a top-level object's arrays are written
 * one element at a time, so a provision summary of thousands of data sets never exists
 * as one string (with its redacted copy and its bytes) at the end of a long run, when
 * memory is at its highest (docs/benchmarks.md). The text is the same, byte for byte, with
 * the replacer given applied to every value and key as JSON.stringify applies it.
 */
type Replacer = (this: unknown, key: string, value: unknown) => unknown;

const INDENT = '  ';

export function* jsonChunks(data: unknown, replacer?: Replacer): Generator<string> {
  // The replacer sees the top level as JSON.stringify would show it to it: after toJSON.
  const value = replacer && isPlainObject(data) ? replacer.call({ '': data }, '', data) : data;
  if (!isPlainObject(value)) {
    yield JSON.stringify(value, replacer, 2) ?? 'null';
    return;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol');
  if (entries.length === 0) {
    yield '{}';
    return;
  }
  yield '{\n';
  for (const [index, [key, member]] of entries.entries()) {
    yield `${INDENT}${JSON.stringify(key)}: `;
    if (Array.isArray(member) && member.length > 0) {
      yield '[\n';
      for (const [position, element] of member.entries()) {
        const text = JSON.stringify(element, replacer, 2) ?? 'null';
        yield `${INDENT.repeat(2)}${indentFollowingLines(text, INDENT.repeat(2))}${position < member.length - 1 ? ',' : ''}\n`;
      }
      yield `${INDENT}]`;
    } else {
      yield indentFollowingLines(JSON.stringify(member, replacer, 2), INDENT);
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
