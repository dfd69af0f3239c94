/**
 * The import graph of src/ has no circle (issue 46 §4): commands import the command kit
 * (src/command-kit/), the root (src/cli/) imports the registry and the commands, and the kit
 * imports neither. Every relative import counts — static `import … from`, `export … from`,
 * dynamic `import('…')`, and type-only ones too (`import type`, `import('…').T` in a type):
 * a type-only circle costs nothing at run time, but it still ties the two folders together,
 * and the layout is meant to show which side a module is on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const sourceRoot = join(repositoryRoot, 'src');

function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier a file names, whatever the form of the import. */
function moduleSpecifiers(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) specifiers.push(argument.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specifiers.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/** The file a relative specifier names: sources import `./x.js` for `./x.ts`. */
function resolveRelative(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  const target = resolve(dirname(from), specifier);
  const candidates = [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, join(target, 'index.ts')];
  return candidates.find((candidate) => files.has(candidate));
}

function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => [
      file,
      [...new Set(moduleSpecifiers(file, readFileSync(file, 'utf8')).filter((specifier) => specifier.startsWith('.')).flatMap((specifier) => resolveRelative(file, specifier, known) ?? []))],
    ]),
  );
}

/**
 * The graph's circles, one per strongly connected component of more than one module (or a
 * module importing itself), as Tarjan's algorithm finds them: each lists its members, sorted.
 */
function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let counter = 0;
  const connect = (node: string): void => {
    index.set(node, counter);
    lowLink.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        lowLink.set(node, Math.min(lowLink.get(node)!, lowLink.get(next)!));
      } else if (onStack.has(next)) {
        lowLink.set(node, Math.min(lowLink.get(node)!, index.get(next)!));
      }
    }
    if (lowLink.get(node) !== index.get(node)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== node);
    if (members.length > 1 || (graph.get(node) ?? []).includes(node)) circles.push(members.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return circles;
}

/** One import path around a circle, from its first member back to it, to name in a failure. */
function oneLoop(graph: ReadonlyMap<string, readonly string[]>, members: readonly string[]): string[] {
  const inCircle = new Set(members);
  const start = members[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!inCircle.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}

describe('the import graph of src/', () => {
  it('has no circle, type-only imports included', () => {
    const graph = importGraph(typeScriptFiles(sourceRoot));
    const name = (file: string): string => relative(repositoryRoot, file);
    const report = importCircles(graph).map(
      (members) => `${members.length} modules in a circle, for example ${oneLoop(graph, members).map(name).join(' → ')}; all: ${members.map(name).join(', ')}`,
    );
    expect(report).toEqual([]);
  });

  it('finds a circle where there is one, through any kind of import', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    expect(importCircles(graph)).toEqual([['a', 'b', 'c'], ['d']]);
    const everyKind = [
      "import { run } from './static.js';",
      "import type { Options } from './type-only.js';",
      "export { helper } from './re-export.js';",
      "const later = () => import('./dynamic.js');",
      "let typed: import('./in-a-type.js').Shape;",
      "import { readFile } from 'node:fs/promises';",
    ].join('\n');
    expect(moduleSpecifiers('every-kind.ts', everyKind)).toEqual(['./static.js', './type-only.js', './re-export.js', './dynamic.js', './in-a-type.js', 'node:fs/promises']);
  });
});
