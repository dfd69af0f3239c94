/**
 * Every command's help, rendered once at build time (scripts/build.mjs writes it under
 * dist/cli/answers/, a file for each) so that `dpgw --help`, `dpgw <command> --help`, `dpgw help <command>`
 * and `dpgw --version` are answered by bin/answer.js without loading commander
 * (docs/benchmarks.md, start-up).
 *
 * The help is rendered by runCli itself, as a user gets it, from the command tree of
 * src/commands/registry.ts; only the wrapping is left for later: commander wraps each
 * description to the terminal's width (Help.boxWrap), so that call is recorded instead,
 * as a part `[indent, text]` that bin/answer.js wraps for the width at hand. The package's
 * folder, named in the help, is a placeholder too: it is wherever the package is installed.
 * test/cli/help-answers.test.ts holds both ends to commander's own rendering at every width.
 */
import { Help } from 'commander';
import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { buildProgram } from './program.js';
import { runCli } from './run-cli.js';
import { COMPLETE_COMMAND } from '../command-kit/completion.js';
import { packageRoot } from '../package-root.js';
import { VERSION } from '../command-kit/version.js';

/**
 * Text as it is, or a description commander wraps: `[indent, text]`, wrapped to the help's
 * width less `indent` (the term column; 0 for a command's own description) and continued
 * at that indent.
 */
export type HelpPart = string | [indent: number, text: string];

/** One help: as written without a terminal (100 columns), and in parts for a terminal's width. */
export interface HelpAnswer {
  text: string;
  parts: HelpPart[];
}

export interface HelpAnswers {
  version: string;
  /** `dpgw` alone (and `dpgw help`): the help without the text added after it. */
  usage: HelpAnswer;
  /** `<command words> --help`, by the words joined with a space ('' is `dpgw --help`). */
  help: Record<string, HelpAnswer>;
}

/** The file of a command's help under dist/cli/answers/ (bin/answer.js names it the same way). */
export function answerFile(words: string): string {
  return `help/${['dpgw', ...words.split(' ').filter(Boolean)].join('.')}.json`;
}

/** Where the package's folder goes in the text; bin/answer.js puts the installed one there. */
export const PACKAGE_ROOT_MARK = '\u0000';
/** A width no help reaches: every description commander would wrap goes through boxWrap. */
const UNBOUNDED = 1_000_000;
// eslint-disable-next-line no-control-regex -- a character no help holds marks where a description was
const MARK = /\u0001(\d+)\u0001/;
// eslint-disable-next-line no-control-regex -- ANSI escapes are what this looks for
const ANSI = /\u001b\[/;

/** Every visible command's words, groups and their subcommands alike (`[]` is dpgw itself). */
export function commandPaths(program: Command): string[][] {
  const visible = (command: Command) => command.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden && c.name() !== COMPLETE_COMMAND);
  return [[], ...visible(program).flatMap((c) => [[c.name()], ...visible(c).map((sub) => [c.name(), sub.name()])])];
}

export async function helpAnswers(): Promise<HelpAnswers> {
  const paths = commandPaths(buildProgram(VERSION, async () => undefined));
  const root = packageRoot();
  const render = async (argv: string[]): Promise<string> => {
    let out = '';
    let err = '';
    const io = { stdout: { write: (chunk: string) => (out += chunk), isTTY: false }, stderr: { write: (chunk: string) => (err += chunk), isTTY: false }, stdin: process.stdin, env: {}, cwd: root };
    const code = await runCli(argv, io);
    if (code !== 0 || err !== '') throw new Error(`dpgw ${argv.join(' ')}: exit ${code}, ${err}`);
    if (ANSI.test(out)) throw new Error(`dpgw ${argv.join(' ')} has colours in its help: bin/answer.js would write them to every stream`);
    return out;
  };
  const answer = async (argv: string[]): Promise<HelpAnswer> => ({ text: (await render(argv)).replaceAll(root, PACKAGE_ROOT_MARK), parts: await inParts(() => render(argv), root) });
  const help: Record<string, HelpAnswer> = {};
  for (const path of paths) help[path.join(' ')] = await answer([...path, '--help']);
  return { version: VERSION, usage: await answer([]), help };
}

/** What render writes, with every description commander would wrap left as a part to wrap later. */
async function inParts(render: () => Promise<string>, root: string): Promise<HelpPart[]> {
  const wrapped: Array<[number, string]> = [];
  const prototype = Help.prototype as Help & Record<'prepareContext' | 'boxWrap', unknown>;
  const { prepareContext, boxWrap } = prototype;
  prototype.prepareContext = function (this: Help) {
    this.helpWidth = UNBOUNDED;
  };
  prototype.boxWrap = function (this: Help, text: string, width: number) {
    wrapped.push([UNBOUNDED - width, text]);
    return `\u0001${wrapped.length - 1}\u0001`;
  };
  let out: string;
  try {
    out = await render();
  } finally {
    prototype.prepareContext = prepareContext;
    prototype.boxWrap = boxWrap;
  }
  return out.split(MARK).flatMap((piece, index): HelpPart[] => {
    if (index % 2 === 0) return piece === '' ? [] : [piece.replaceAll(root, PACKAGE_ROOT_MARK)];
    const [indent, text] = wrapped[Number(piece)]!;
    return [[indent, text.replaceAll(root, PACKAGE_ROOT_MARK)]];
  });
}
