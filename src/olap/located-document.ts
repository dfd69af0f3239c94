/**
 * A YAML or JSON file read with the position of every value, so each complaint
 * about it can say where (file, line, column). JSON files are parsed as strict JSON (a
 * trailing comma is an error there, though YAML would accept it).
 */
import { MB, readRegularFile } from '../files/read-regular-file.js';
import { CORE_SCHEMA, load as loadYaml } from 'js-yaml';
import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { DpgwError } from '../errors/dpgw-error.js';
import type { ErrorCode } from '../errors/error-codes.js';
import { SourceLocation, type Where } from '../errors/source-location.js';

export type PathPart = string | number;

export interface LocatedDocument {
  file: string;
  value: unknown;
  /** Where the value at a path is (or its nearest parent that exists). */
  at(path: readonly PathPart[]): SourceLocation;
  /** Where the key of the entry at a path is (for unknown keys). */
  keyAt(path: readonly PathPart[]): SourceLocation;
}

/** Where the value at a path is, found only when read: a position costs a second parse of a large file. */
export function lazyLocation(document: LocatedDocument, path: readonly PathPart[]): { readonly location: SourceLocation } {
  return {
    get location() {
      return document.at(path);
    },
  };
}

/**
 * A value with its file:line:column as text, found only when read: a position costs a second parse of a large file.
 * Text, since the settings' sources it joins (flags, environment, config.yaml) say where as text.
 */
export function locatedValue<T>(document: LocatedDocument, path: readonly PathPart[], value: T): { value: T; readonly location: string } {
  return {
    value,
    get location() {
      return document.at(path).toString();
    },
  };
}

/** A manifest of 100,000 data sets is about 20 MB; far larger is a mistake, not a manifest. */
const MAX_DOCUMENT_BYTES = 256 * MB;

/** `missingCode`: the code when no file is at the path (MANIFEST_NOT_FOUND); FILE_NOT_FOUND by default. */
export async function readLocatedDocument(file: string, what: string, missingCode?: ErrorCode): Promise<LocatedDocument> {
  const text = readRegularFile(file, { what, maxBytes: MAX_DOCUMENT_BYTES, missingCode });
  const document = parseLocatedDocument(text, file);
  refuseAliasBombs(document.value, text.length, file, what);
  return document;
}

/**
 * YAML aliases share one node, so a 600-byte file can stand for a billion values ("billion
 * laughs"): harmless while parsed, it takes gigabytes and minutes once anything walks or
 * sends it. Counted with each shared node once (memoised), a document is refused when it
 * would expand to far more values than it holds.
 */
function refuseAliasBombs(value: unknown, textLength: number, file: string, what: string): void {
  const expanded = new Map<object, number>();
  const count = (node: unknown): number => {
    if (node === null || typeof node !== 'object') return 1;
    const known = expanded.get(node);
    if (known !== undefined) return known;
    expanded.set(node, 1); // a cycle counts once
    let total = 1;
    for (const child of Array.isArray(node) ? node : Object.values(node)) total += count(child);
    expanded.set(node, total);
    return total;
  };
  const total = count(value);
  if (total > Math.max(MAX_EXPANDED_VALUES, ALIAS_EXPANSION_FACTOR * textLength)) {
    throw new DpgwError('DOCUMENT_TOO_COMPLEX', `the ${what}'s aliases (*name) expand to ${total.toExponential(1)} values from ${textLength} bytes of text: more than dpgw expands`, { where: file, hint: 'write the values out, or use fewer nested aliases' });
  }
}

/** Every document dpgw reads expands to fewer values than this… */
const MAX_EXPANDED_VALUES = 1_000_000;
/** …or to at most this many values per byte of its text (a value written out takes two bytes at least; anchors for shared defaults stay far below it). */
const ALIAS_EXPANSION_FACTOR = 5;

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
    // Nesting past js-yaml's own bound (maxDepth, 100 nodes): the same refusal as past dpgw's, at js-yaml's mark —
    // the yaml library, asked for a position, would overflow its stack on the same text.
    const mark = (error as { mark?: { line: number; column: number } }).mark;
    if (/^nesting exceeded maxDepth/.test((error as { reason?: string }).reason ?? '')) throw tooDeep(file, () => new SourceLocation(file, (mark?.line ?? 0) + 1, (mark?.column ?? 0) + 1));
    if (error instanceof RangeError) throw tooDeep(file, () => file);
    // The yaml library's message and position are the ones dpgw reports.
    const { syntaxError } = locator();
    if (syntaxError) throw syntaxError;
    if (isJson) throw jsonSyntaxError(error as Error, locator());
    // js-yaml refused what the yaml library accepts: its own words and mark (0-based).
    throw new DpgwError('SYNTAX_INVALID', `YAML syntax error: ${(error as { reason?: string }).reason ?? (error as Error).message.split('\n')[0]}`, { where: new SourceLocation(file, (mark?.line ?? 0) + 1, (mark?.column ?? 0) + 1), hint: 'fix the YAML' });
  }
  // Positions of a document that parsed: js-yaml again, recording where each node starts;
  // the yaml library's positions cost a large manifest many times the time and memory
  // (docs/benchmarks.md, "A large manifest refused").
  let tree: PositionTree | undefined;
  const positions = () => {
    if (tree === undefined) {
      try {
        tree = positionTree(text, file);
      } catch {
        // A text JSON.parse takes and js-yaml does not (duplicate keys): the yaml library's positions.
        tree = { locate: (path, wantKey) => locator().locate(path, wantKey) };
      }
    }
    return tree;
  };
  const document: LocatedDocument = { file, value, at: (path) => positions().locate(path, false), keyAt: (path) => positions().locate(path, true) };
  const deep = tooDeepPath(value);
  // JSON's brackets say where at once; js-yaml, asked for positions of JSON nested past its own bound, would refuse it.
  if (deep) throw tooDeep(file, () => (isJson ? jsonDepthPosition(text, file) : document.at(deep)));
  return document;
}

/**
 * The deepest nesting of lists and mappings dpgw reads. Schema files, manifests and
 * settings nest a handful of levels; a column default nested 5,000 deep overflowed the
 * stack of whatever walked it ("unexpected error: Maximum call stack size exceeded",
 * issue #30). docs/tables.md says so.
 */
export const MAX_NESTING = 64;

function tooDeep(file: string, where: () => Where): DpgwError {
  let at: Where;
  try {
    at = where();
  } catch {
    at = file;
  }
  return new DpgwError('DOCUMENT_TOO_COMPLEX', `values nested more than ${MAX_NESTING} lists and mappings deep: more than dpgw reads`, { where: at, hint: `nest at most ${MAX_NESTING} levels; a default value is one text, number or true/false` });
}

/**
 * The path to the first value nested deeper than MAX_NESTING, or undefined. Without
 * recursion (the walk must not overflow where the parser did not), and each node shared
 * by YAML aliases measured once — aliases can nest deep in a short text.
 */
function tooDeepPath(root: unknown): PathPart[] | undefined {
  if (root === null || typeof root !== 'object') return undefined;
  const entries = (node: object): Array<[PathPart, unknown]> => (Array.isArray(node) ? node.map((child, index) => [index, child] as [PathPart, unknown]) : Object.entries(node));
  // Levels of lists and mappings from a node down, counting itself; 0 while it is being measured (a cycle adds nothing).
  const height = new Map<object, number>();
  const stack: Array<{ node: object; children: Array<[PathPart, unknown]>; next: number }> = [{ node: root, children: entries(root), next: 0 }];
  height.set(root, 0);
  while (stack.length > 0) {
    if (stack.length > MAX_NESTING) return pathOf(stack);
    const top = stack[stack.length - 1]!;
    if (top.next < top.children.length) {
      const child = top.children[top.next++]![1];
      if (child === null || typeof child !== 'object') continue;
      const known = height.get(child);
      if (known === undefined) {
        height.set(child, 0);
        stack.push({ node: child, children: entries(child), next: 0 });
      } else if (stack.length + known > MAX_NESTING) {
        return [...pathOf(stack), top.children[top.next - 1]![0], ...deepestWithin(child, known, MAX_NESTING - stack.length, height, entries)];
      }
      continue;
    }
    let tallest = 0;
    for (const [, child] of top.children) if (child !== null && typeof child === 'object') tallest = Math.max(tallest, height.get(child) ?? 0);
    height.set(top.node, tallest + 1);
    stack.pop();
  }
  return undefined;
}

/** Where the first JSON bracket nested deeper than MAX_NESTING (outside strings) is; the file when none is. */
function jsonDepthPosition(text: string, file: string): Where {
  let depth = 0;
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      for (index++; index < text.length && text[index] !== '"'; index++) if (text[index] === '\\') index++;
    } else if (char === '\n') {
      line++;
      lineStart = index + 1;
    } else if (char === '[' || char === '{') {
      if (++depth > MAX_NESTING) return new SourceLocation(file, line, index - lineStart + 1);
    } else if (char === ']' || char === '}') depth--;
  }
  return file;
}

/** The keys from the root to the top of the walk's stack. */
function pathOf(stack: Array<{ children: Array<[PathPart, unknown]>; next: number }>): PathPart[] {
  return stack.slice(0, -1).map((frame) => frame.children[frame.next - 1]![0]);
}

/** Down a measured node along its tallest children, `levels` levels: where the bound is passed. */
function deepestWithin(node: object, nodeHeight: number, levels: number, height: Map<object, number>, entries: (node: object) => Array<[PathPart, unknown]>): PathPart[] {
  const path: PathPart[] = [];
  let current = node;
  let currentHeight = nodeHeight;
  for (let level = 0; level < levels; level++) {
    const next = entries(current).find(([, child]) => child !== null && typeof child === 'object' && height.get(child) === currentHeight - 1);
    if (!next) break;
    path.push(next[0]);
    current = next[1] as object;
    currentHeight--;
  }
  return path;
}

interface PositionTree {
  locate(path: readonly PathPart[], wantKey: boolean): SourceLocation;
}

/** A node as js-yaml composed it: where it starts and ends, its kind, a scalar's value (keys are matched by it), its children in order. */
interface Composed {
  start: number;
  end: number;
  kind: string | null;
  scalar?: unknown;
  children?: Composed[];
}

function positionTree(text: string, file: string): PositionTree {
  const stack: Composed[] = [{ start: 0, end: text.length, kind: 'root' }];
  loadYaml(text, {
    schema: CORE_SCHEMA,
    filename: file,
    listener(event, state) {
      if (event === 'open') {
        stack.push({ start: state.position, end: state.position, kind: null });
        return;
      }
      const node = stack.pop()!;
      node.end = state.position;
      node.kind = state.kind;
      // Keys are short scalars; long values need no copy.
      if (state.kind === 'scalar' && !(typeof state.result === 'string' && state.result.length > 256)) node.scalar = state.result;
      (stack[stack.length - 1]!.children ??= []).push(node);
    },
  });
  const root = stack[0]!.children?.[0];
  let lineStarts: number[] | undefined;
  const position = (offset: number): SourceLocation => {
    // The node's first character: js-yaml opens a node before the blanks and comments ahead of it.
    let at = offset;
    for (;;) {
      while (at < text.length && /[ \t\r\n]/.test(text[at]!)) at++;
      if (text[at] !== '#') break;
      while (at < text.length && text[at] !== '\n') at++;
    }
    lineStarts ??= [0, ...[...text.matchAll(/\n/g)].map((match) => match.index + 1)];
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (lineStarts[middle]! <= at) low = middle;
      else high = middle - 1;
    }
    return new SourceLocation(file, low + 1, at - lineStarts[low]! + 1);
  };
  // A block sequence's flow item comes wrapped once more, over the same text.
  const unwrap = (node: Composed): Composed => {
    let current = node;
    while (current.children?.length === 1 && current.children[0]!.start === current.start && current.children[0]!.end === current.end && current.kind !== 'sequence') current = current.children[0]!;
    return current;
  };
  const pairs = (mapping: Composed): Array<{ key: Composed; value?: Composed }> => {
    const children = mapping.children ?? [];
    const found: Array<{ key: Composed; value?: Composed }> = [];
    for (let index = 0; index < children.length; index++) {
      const key = children[index]!;
      const next = children[index + 1];
      // A key's value follows a ':'; `{ a, b: 1 }` gives `a` none.
      if (next && text.slice(key.end, next.start).includes(':')) {
        found.push({ key, value: next });
        index++;
      } else found.push({ key });
    }
    return found;
  };
  return {
    locate(path, wantKey) {
      if (!root) return position(0);
      let node = unwrap(root);
      let key: Composed | undefined;
      for (const part of path) {
        if (node.kind === 'mapping') {
          const pair = pairs(node).find((p) => p.key.scalar === part || String(p.key.scalar) === String(part));
          if (!pair) return position(node.start);
          key = pair.key;
          node = unwrap(pair.value ?? pair.key);
        } else if (node.kind === 'sequence' && typeof part === 'number' && node.children?.[part]) {
          key = undefined;
          node = unwrap(node.children[part]);
        } else {
          return position(node.start);
        }
      }
      return position((wantKey && key ? key : node).start);
    },
  };
}

function locateWithYaml(text: string, file: string, isJson: boolean) {
  const lineCounter = new LineCounter();
  const position = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(offset);
    return new SourceLocation(file, line, col);
  };
  const document: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: !isJson });
  const first = document.errors[0];
  const syntaxError =
    first && !isJson ? new DpgwError('SYNTAX_INVALID', `YAML syntax error: ${first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`, { where: position(first.pos[0]), hint: 'fix the YAML' }) : undefined;

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
  const locate = (path: readonly PathPart[], wantKey: boolean): SourceLocation => position(nodeAt(path, wantKey)?.range?.[0] ?? 0);
  return { position, locate, syntaxError, firstErrorOffset: first?.pos[0] };
}

function jsonSyntaxError(error: Error, { position, firstErrorOffset }: ReturnType<typeof locateWithYaml>): DpgwError {
  const message = error.message;
  const offset = /position (\d+)/.exec(message)?.[1] ?? firstErrorOffset;
  const where = position(offset === undefined ? 0 : Number(offset));
  const summary = message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
  return new DpgwError('SYNTAX_INVALID', `JSON syntax error: ${summary}`, { where, hint: 'fix the JSON (no trailing commas, double-quoted keys)' });
}
