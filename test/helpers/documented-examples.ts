/**
 * The shell examples of README.md and docs/*.md, as a reader meets them: README.md first, then each
 * docs page in the order README.md first links it. An example is a line of a ```sh, ```bash or
 * ```shell block (a ```console block: its lines that start with `$ `), `\` continuations joined and a
 * heredoc kept whole; blank lines and comment lines are not examples.
 *
 * The expected exit is 0 unless the line's own comment starts with `exit N` (`dpgw table status
 * track_unreachable   # exit 6`): the convention docs/README's "How the examples are checked" states.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from './run-dpgw.js';

export interface DocumentedExample {
  /** The page, relative to the repository: `README.md`, `docs/tables.md`. */
  page: string;
  /** The 1-based line of the page where the example starts. */
  line: number;
  /** The example as a shell runs it: continuations joined with their newlines, a heredoc whole. */
  text: string;
  /** The exit the page promises: 0, or the N of a comment starting `# exit N`. */
  expectedExit: number;
}

const SHELL_FENCE = /^```(sh|bash|shell|console)\s*$/;
const ANY_FENCE = /^```/;
const HEREDOC = /<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?/;
/** `# exit 7`, `# exit 0: no changes`: a comment that starts with the exit it promises, after a blank. */
const EXIT_COMMENT = /(?:^|\s)#\s*exit (\d+)\b/;

export function expectedExitOf(text: string): number {
  const match = EXIT_COMMENT.exec(text);
  return match ? Number(match[1]) : 0;
}

/** The examples of one page's text, in page order. */
export function examplesOf(page: string, text: string): DocumentedExample[] {
  const lines = text.split('\n');
  const examples: DocumentedExample[] = [];
  let fence: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index]!;
    if (fence === undefined) {
      const opened = SHELL_FENCE.exec(raw);
      if (opened) fence = opened[1];
      else if (ANY_FENCE.test(raw)) index = closingFence(lines, index);
      continue;
    }
    if (ANY_FENCE.test(raw)) {
      fence = undefined;
      continue;
    }
    let first = raw;
    if (fence === 'console') {
      if (!raw.startsWith('$ ')) continue;
      first = raw.slice(2);
    }
    if (first.trim() === '' || first.trimStart().startsWith('#')) continue;
    const start = index;
    const parts = [first];
    while (parts.at(-1)!.endsWith('\\') && index + 1 < lines.length && !ANY_FENCE.test(lines[index + 1]!)) {
      index++;
      parts.push(fence === 'console' ? lines[index]!.replace(/^> /, '') : lines[index]!);
    }
    const heredoc = HEREDOC.exec(parts.join('\n'));
    if (heredoc) {
      const delimiter = heredoc[1]!;
      while (index + 1 < lines.length && !ANY_FENCE.test(lines[index + 1]!)) {
        index++;
        parts.push(lines[index]!);
        if (lines[index]!.trim() === delimiter) break;
      }
    }
    const joined = parts.join('\n');
    examples.push({ page, line: start + 1, text: joined, expectedExit: expectedExitOf(joined) });
  }
  return examples;
}

/** Skips a non-shell fenced block (yaml, json, …) so a ``` inside it is not taken for an opening. */
function closingFence(lines: readonly string[], opening: number): number {
  for (let index = opening + 1; index < lines.length; index++) if (ANY_FENCE.test(lines[index]!)) return index;
  return lines.length;
}

/** README.md, then each docs/*.md in the order README.md first links it; `unreached` lists the pages README links nowhere. */
export function readingOrder(root: string): { pages: string[]; unreached: string[] } {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const linked: string[] = [];
  for (const match of readme.matchAll(/\]\((docs\/[A-Za-z0-9._-]+\.md)(?:#[^)]*)?\)/g)) if (!linked.includes(match[1]!)) linked.push(match[1]!);
  const existing = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return { pages: ['README.md', ...linked.filter((page) => existing.includes(page))], unreached: existing.filter((page) => !linked.includes(page)).sort() };
}

/**
 * The examples of `--help`, as `dpgw <command> --help` prints them (the built help answers, dist/cli/answers/help), in
 * the order `dpgw --help` lists the commands (`paths`), each once: a line `  $ dpgw …`, the command before a run of three
 * or more spaces and the words after it saying what it does (`# exit N` there, as on a page). Their "page" is the help
 * that shows them first: `dpgw table --help`.
 */
export function helpExamples(root: string, paths: readonly (readonly string[])[]): DocumentedExample[] {
  const examples: DocumentedExample[] = [];
  const seen = new Set<string>();
  for (const words of paths) {
    const page = ['dpgw', ...words, '--help'].join(' ');
    const { text } = JSON.parse(readFileSync(join(root, 'dist/cli/answers/help', `${['dpgw', ...words].join('.')}.json`), 'utf8')) as { text: string };
    text.split('\n').forEach((line, index) => {
      const example = /^ {2}\$ (.*)$/.exec(line)?.[1];
      if (example === undefined) return;
      const [command, ...said] = example.split(/\s{3,}/);
      if (seen.has(command!)) return;
      seen.add(command!);
      examples.push({ page, line: index + 1, text: command!, expectedExit: expectedExitOf(said.join(' ')) });
    });
  }
  return examples;
}

/** Every documented example, README.md first, then the docs pages in reading order. */
export function documentedExamples(root: string): { examples: DocumentedExample[]; pages: string[]; unreached: string[] } {
  const { pages, unreached } = readingOrder(root);
  return { examples: pages.flatMap((page) => examplesOf(page, readFileSync(join(root, page), 'utf8'))), pages, unreached };
}

/** A folder holding `dpgw`, a link to this build, to put first on a line's PATH (`npm link` or `npm install -g` does it for a user). */
export function dpgwOnPath(): string {
  const bin = mkdtempSync(join(tmpdir(), 'dpgw-bin-'));
  symlinkSync(BIN, join(bin, 'dpgw'));
  return bin;
}

/** Runs a documented line in `sh`, as a reader's shell does: its exit code (1 when it could not be started or timed out) and its output. */
export function inSh(text: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile('sh', ['-c', text], { ...options, timeout: 180_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0, stdout, stderr }),
    ),
  );
}
