/**
 * A YAML or JSON file read with the position of every value, so each complaint
 * about it can say file:line:column. JSON files are parsed as strict JSON (a
 * trailing comma is an error there, though YAML would accept it).
 */
import { readFile } from 'node:fs/promises';
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

export function parseLocatedDocument(text: string, file: string): LocatedDocument {
  const lineCounter = new LineCounter();
  const position = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  const isJson = /\.json$/i.test(file);
  let value: unknown;
  let document: Document;
  if (isJson) {
    document = parseDocument(text, { lineCounter, prettyErrors: false });
    try {
      value = JSON.parse(text);
    } catch (error) {
      const message = (error as Error).message;
      const offset = /position (\d+)/.exec(message)?.[1];
      const where = offset !== undefined ? position(Number(offset)) : document.errors[0] ? position(document.errors[0].pos[0]) : `${file}:1:1`;
      const summary = message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
      throw new DpgwError('input', `JSON syntax error: ${summary}`, { where, hint: 'fix the JSON (no trailing commas, double-quoted keys)' });
    }
  } else {
    document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
    const first = document.errors[0];
    if (first) {
      throw new DpgwError('input', `YAML syntax error: ${first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`, { where: position(first.pos[0]), hint: 'fix the YAML' });
    }
    value = document.toJS();
  }

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
  const locate = (path: readonly PathPart[], wantKey: boolean): string => {
    const node = nodeAt(path, wantKey);
    return position(node?.range?.[0] ?? 0);
  };
  return { file, value, at: (path) => locate(path, false), keyAt: (path) => locate(path, true) };
}
