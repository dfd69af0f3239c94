/**
 * A document a serializer wrote, as lines for the reporter (reporter.ts: a result is lines).
 * Only a serializer's text is split at its line breaks: JSON.stringify and the `yaml`
 * package (block scalars and folding off) keep every value on its own line, a line break
 * inside one written as `\n`, so no value can start a line. Never split text joined by hand
 * around data.
 */
import { Document, visit } from 'yaml';
import { holdsControlCharacter } from '../text/terminal-text.js';

/** The value as indented JSON, a line each. */
export function jsonLines(value: unknown): string[] {
  return (JSON.stringify(value, null, 2) ?? 'null').split('\n');
}

/**
 * The value as YAML, a line each. A string with a line break or another control (a key too)
 * is one double-quoted scalar with escapes (`"a\n::error …"`), never a block or a folded
 * single-quoted scalar, whose lines would stand at the start of lines; the rest is quoted
 * as YAML readers expect to see it (`'7'`).
 */
export function yamlLines(value: unknown): string[] {
  const document = new Document(value);
  visit(document, {
    Scalar(_, scalar) {
      if (typeof scalar.value === 'string' && holdsControlCharacter(scalar.value)) scalar.type = 'QUOTE_DOUBLE';
    },
  });
  // No folding: a long double-quoted scalar would otherwise turn its `\n` into real line breaks.
  return document.toString({ blockQuote: false, lineWidth: 0, doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER, singleQuote: true }).trimEnd().split('\n');
}
