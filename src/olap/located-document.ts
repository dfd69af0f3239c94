/**
 * A YAML or JSON file read with the position of every value, so each complaint
 * about it can say file:line:column. JSON files are parsed as strict JSON (a
 * trailing comma is an error there, though YAML would accept it).
 */
import { readFile } from 'node:fs/promises';
import { CORE_SCHEMA, load as loadYaml } from 'js-yaml';
import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { DpgwError } from '../errors/dpgw-error.js';

export type PathPart = string | number;

export interface LocatedDocument {
  file: string;
  value: unknown;
  /** file:line:column of the value at a path (or of its nearest parent that exists). */
  at(path: readonly PathPart[]): string;
  /** file:line:column of the key of the entry at a path (for unknown keys). */
  keyAt(path: readonly PathPart[]): string;
}

/** A value with its file:line:column, found only when read: a position costs a second parse of a large file. */
export function locatedValue<T>(document: LocatedDocument, path: readonly PathPart[], value: T): { value: T; readonly location: string } {
  return {
    value,
    get location() {
      return document.at(path);
    },
  };
}

export async function readLocatedDocument(file: string, what: string): Promise<LocatedDocument> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DpgwError('input', `cannot read the ${what} ${file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`, { where: file, hint: 'check the path' });
  }
  return parseLocatedDocument(text, file);
}

/**
 * The value comes from the fastest parser that fits (JSON.parse, js-yaml); the `yaml`
 * library, which knows every node's position but parses several times slower, runs
 * only when a position is asked for or the fast parser refuses the text — so a large
 * valid manifest costs one quick parse (docs/benchmarks.md).
 */
export function parseLocatedDocument(text: string, file: string): LocatedDocument {
  const isJson = /\.json$/i.test(file);
  let located: ReturnType<typeof locateWithYaml> | undefined;
  const locator = () => (located ??= locateWithYaml(text, file, isJson));
  let value: unknown;
  try {
    value = isJson ? JSON.parse(text) : loadYaml(text, { schema: CORE_SCHEMA, filename: file });
  } catch (error) {
    // The yaml library's message and position are the ones dpgw reports.
    const { syntaxError } = locator();
    if (syntaxError) throw syntaxError;
    if (isJson) throw jsonSyntaxError(error as Error, locator());
    // js-yaml refused what the yaml library accepts: its own words and mark (0-based).
    const mark = (error as { mark?: { line: number; column: number } }).mark;
    throw new DpgwError('input', `YAML syntax error: ${(error as { reason?: string }).reason ?? (error as Error).message.split('\n')[0]}`, { where: `${file}:${(mark?.line ?? 0) + 1}:${(mark?.column ?? 0) + 1}`, hint: 'fix the YAML' });
  }
  return { file, value, at: (path) => locator().locate(path, false), keyAt: (path) => locator().locate(path, true) };
}

function locateWithYaml(text: string, file: string, isJson: boolean) {
  const lineCounter = new LineCounter();
  const position = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  const document: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: !isJson });
  const first = document.errors[0];
  const syntaxError =
    first && !isJson ? new DpgwError('input', `YAML syntax error: ${first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`, { where: position(first.pos[0]), hint: 'fix the YAML' }) : undefined;

  const nodeAt = (path: readonly PathPart[], wantKey: boolean): Node | undefined => {
    let node: unknown = document.contents;
    let keyNode: unknown;
    for (const part of path) {
      if (isMap(node)) {
        const pair = node.items.find((item) => (item.key as { value?: unknown } | null)?.value === part);
        if (!pair) return (node as Node) ?? undefined;
        keyNode = pair.key;
        node = pair.value;
      } else if (isSeq(node) && typeof part === 'number') {
        const item = node.items[part];
        if (item === undefined) return node as Node;
        keyNode = undefined;
        node = item;
      } else {
        return node as Node;
      }
    }
    return ((wantKey ? keyNode : undefined) ?? node) as Node | undefined;
  };
  const locate = (path: readonly PathPart[], wantKey: boolean): string => position(nodeAt(path, wantKey)?.range?.[0] ?? 0);
  return { position, locate, syntaxError, firstErrorOffset: first?.pos[0] };
}

function jsonSyntaxError(error: Error, { position, firstErrorOffset }: ReturnType<typeof locateWithYaml>): DpgwError {
  const message = error.message;
  const offset = /position (\d+)/.exec(message)?.[1] ?? firstErrorOffset;
  const where = position(offset === undefined ? 0 : Number(offset));
  const summary = message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
  return new DpgwError('input', `JSON syntax error: ${summary}`, { where, hint: 'fix the JSON (no trailing commas, double-quoted keys)' });
}
