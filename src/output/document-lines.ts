/**
 * A document a serializer wrote, as lines for the reporter (reporter.ts: a result is lines).
 * Only a serializer's text is split at its line breaks: JSON.stringify and the `yaml`
 * package (block scalars off, no folding) keep every value on its own line, a line break
 * inside one written as `\n`, so no value can start a line. Never split text joined by hand
 * around data.
 */
import { stringify } from 'yaml';

/** The value as indented JSON, a line each. */
export function jsonLines(value: unknown): string[] {
  return (JSON.stringify(value, null, 2) ?? 'null').split('\n');
}

/** The value as YAML, a line each; a multi-line string is one double-quoted scalar (`"a\nb"`), never a block. */
export function yamlLines(value: unknown): string[] {
  return stringify(value, { blockQuote: false, lineWidth: 0 }).trimEnd().split('\n');
}
