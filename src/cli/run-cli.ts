/**
 * Runs dpgw for an argv and an io; returns the exit code. The binary and the
 * in-process tests both go through here, so tests see what a user sees.
 *
 * This module and program.ts are all that `dpgw --help` and `dpgw --version`
 * load: running a command imports dispatch.ts, and it imports the rest.
 */
import { CommanderError } from 'commander';
import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { DpgwError } from '../errors/dpgw-error.js';
import type { ErrorCode } from '../errors/error-codes.js';
import { commandPath, flagWords } from '../command-kit/command-context.js';
import type { Io } from '../output/io.js';
import { loadDispatch } from './load-dispatch.js';
import { guardedIo } from '../output/workflow-command-guard.js';
import { terminalLine } from '../text/terminal-text.js';
import { COMPLETE_COMMAND, completionCandidates, HELP_COMMAND } from '../command-kit/completion.js';
import { buildProgram, suggestInUsageError } from './program.js';
import { COMMANDS } from '../commands/registry.js';
import { VERSION } from '../command-kit/version.js';

const EXIT_USAGE = 2;

export async function runCli(argv: readonly string[], given: Io): Promise<number> {
  // In GitHub Actions, every line written from here on passes the workflow-command guard.
  const io = guardedIo(given);
  let exitCode = 0;
  const program = buildProgram(VERSION, async (command) => {
    const { dispatch } = await loadDispatch();
    exitCode = await dispatch(command, io, argv, runCli);
  });
  const wantsJson = flagWords(argv).includes('--json');
  const helpWidth = io.stdout.isTTY && io.stdout.columns ? Math.min(io.stdout.columns, 120) : 100;
  const configure = (command: Command): void => {
    command.exitOverride();
    command.configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHelpWidth: () => helpWidth,
      getErrHelpWidth: () => helpWidth,
      outputError: (said, write) => {
        const text = suggestInUsageError(command, said);
        const hint = `see \`${['dpgw', commandPath(command)].filter(Boolean).join(' ')} --help\``;
        write(`${terminalLine(`dpgw: ${oneLine(text)} — ${hint}`)}\n`);
        // With --json a pipeline always gets one document, a usage error included.
        if (wantsJson) io.stdout.write(`${JSON.stringify({ error: new DpgwError(usageCodeOf(said), oneLine(text), { hint }).toJSON() }, null, 2)}\n`);
      },
    });
    command.commands.forEach(configure);
  };
  configure(program);

  if (argv[0] === COMPLETE_COMMAND) {
    const candidates = await completionCandidates(
      program,
      COMMANDS,
      argv.slice(1),
      async () => (await loadDispatch()).profileNames(io.env),
      async (kind, profile, dataSource) => (await loadDispatch()).catalogNames(kind, io.env, profile, dataSource),
    );
    io.stdout.write(candidates.map((candidate) => `${candidate}\n`).join(''));
    return 0;
  }
  if (argv.length === 0 || (argv.length === 1 && argv[0] === HELP_COMMAND)) {
    io.stdout.write(program.helpInformation());
    return 0;
  }
  // `dpgw help table create` is `dpgw table create --help`; an unknown command is said as always.
  const known = (name: string | undefined) => program.commands.some((c) => c.name() === name);
  const words = argv[0] !== HELP_COMMAND ? argv : known(argv[1]) ? [...argv.slice(1), '--help'] : argv.slice(1);
  try {
    await program.parseAsync([...words], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    // Everything else commander throws is a usage error: unknown option or command,
    // missing argument, a group named without a subcommand (its help went to stderr).
    return EXIT_USAGE;
  }
}

function oneLine(text: string): string {
  return text
    .replace(/^error:\s*/i, '')
    // commander quotes a refused value raw (line breaks and all); dpgw's own checks (option-kit.ts) quote it escaped.
    .replace(/^option '(-[^\s']+)[^']*' argument '[\s\S]*' is invalid\. (the [a-z ]+ name "|")/, '$1: $2')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}

/** The stable code of a command-line parser's complaint, told by its words (commander's messages). */
function usageCodeOf(said: string): ErrorCode {
  if (/unknown command/i.test(said)) return 'UNKNOWN_COMMAND';
  if (/unknown option/i.test(said)) return 'UNKNOWN_OPTION';
  if (/missing required argument|required option .* not specified|argument missing/i.test(said)) return 'MISSING_ARGUMENT';
  if (/argument .* is invalid|allowed choices|invalid argument/i.test(said)) return 'INVALID_ARGUMENT';
  return 'USAGE_ERROR';
}
