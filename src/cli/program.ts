/**
 * The command tree, built from the definitions of src/commands/registry.ts: names,
 * descriptions, arguments, options and examples. Only commander and the definitions are
 * loaded here; a command's handler is imported by dispatch.ts when it runs, so
 * `dpgw --help` loads no handler (its start-up: docs/benchmarks.md).
 */
import type * as Typed from '@commander-js/extra-typings';
import { Command as CommanderCommand, Help, Option as CommanderOption } from 'commander';
import { closestMatch } from '../text/closest-match.js';
import { SETTING_DEFINITIONS } from '../settings/setting-definitions.js';
import { COMMANDS } from '../commands/registry.js';
import { commandName, type AnyCommand, type CommandDefinition, type GlobalOptions } from '../command-kit/command-definition.js';
import { optionKit } from '../command-kit/option-kit.js';
import { packageRoot } from '../package-root.js';
import { join } from 'node:path';

/** commander's own classes, seen through @commander-js/extra-typings (types only: nothing more is loaded). */
const Command = CommanderCommand as unknown as typeof Typed.Command;
const Option = CommanderOption as unknown as typeof Typed.Option;
export type { AnyCommand };

/** Runs a parsed command; supplied by run-cli.ts so this module stays light. */
export type Dispatch = (command: AnyCommand) => Promise<void>;

interface Example {
  command: string;
  example: string;
}

export function buildProgram(version: string, dispatch: Dispatch): AnyCommand {
  const examples: Example[] = [];
  const program = declareProgram(version);
  declareCommands(program as unknown as AnyCommand, dispatch, examples);
  const width = Math.max(...examples.map((e) => e.command.length));
  // Where the package is installed, not a path relative to a checkout: after `npm i -g dpgw` no examples/ is at hand.
  program.addHelpText(
    'after',
    () =>
      `\nExamples:\n${examples.map((e) => `  ${e.command.padEnd(width)}  $ ${e.example}`).join('\n')}\n\nExit codes: 0 ok, 1 failed (a table that would not consume included), 2 usage or invalid input, 3 rejected by the gateway, 4 authentication (the brokers refusing the stream user included), 5 network, 6 unhealthy, 7 changes made (provision --detailed-exitcode), 8 verification failed, 9 not found (schema get|delete, table get|delete|status, export), 130 interrupted.\nExample files (examples/… above): ${join(packageRoot(), 'examples')}\nDocs: ${join(packageRoot(), 'README.md')} and ${join(packageRoot(), 'docs')}\n`,
  );
  return program;
}

function declareProgram(version: string) {
  const program = new Command('dpgw')
    .description('Provision analytics tables on a data platform gateway: sign in, enable a data set, push its schema, create its real-time table.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    // commander's guesses are looser than dpgw's (it offered `logout` for `bogus`): off, and
    // suggestInUsageError adds dpgw's one rule instead. Set before the commands, which inherit it.
    .showSuggestionAfterError(false)
    // A command's help describes its own options; the global ones are named compactly after them (globalOptionsText).
    .configureHelp({
      showGlobalOptions: false,
      sortSubcommands: false,
      optionDescription(this: Help, option: CommanderOption) {
        const described = Help.prototype.optionDescription.call(this, option);
        return option.mandatory ? `${described} (required)` : described;
      },
    })
    .optionsGroup('Output:')
    .option('--json', 'write the result as one JSON document on stdout')
    .option('-q, --quiet', 'print only results and errors')
    .option('--verbose', 'trace HTTP requests on stderr (secrets masked)')
    .option('--no-color', 'no colour, even on a terminal')
    .option('--no-input', 'never prompt; fail with the flag to pass instead')
    .optionsGroup('Settings (flag > environment > profile > default; see `dpgw config`):')
    .option('--profile <name>', 'settings profile of config.yaml (env DPGW_PROFILE)');
  // The settings' flags: read through resolveSettings, so they need no static type here.
  for (const definition of SETTING_DEFINITIONS) {
    if (!definition.flag || definition.scope !== undefined) continue;
    program.addOption(new Option(definition.flag, `${definition.description}${definition.env ? ` (env ${definition.env})` : ''}`));
  }
  return program;
}
/**
 * The global options as declared above are the ones the command kit promises every handler
 * (GlobalOptions, written out there so that the kit imports nothing of the root): a flag added,
 * renamed or retyped here and not there is a type error.
 */
type DeclaredGlobalOptions = ReturnType<ReturnType<typeof declareProgram>['opts']>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const globalOptionsAgree: Same<DeclaredGlobalOptions, GlobalOptions> = true;
void globalOptionsAgree;

/** The definitions of src/commands/registry.ts as commander commands, each wired to dispatch. */
function declareCommands(program: AnyCommand, dispatch: Dispatch, examples: Example[]): void {
  const globals = globalOptionsText(program);
  const declare = (parent: AnyCommand, definition: CommandDefinition, group?: string) => {
    const command = parent.command(definition.usage).description(definition.description).helpOption('-h, --help', 'show help');
    definition.options?.(command, optionKit);
    // An example naming examples/… says where that folder is installed (computed only when help is shown).
    command.addHelpText('after', () => `\nExample:\n  $ ${definition.example}\n${/\bexamples\//.test(definition.example) ? `  (examples/ is ${join(packageRoot(), 'examples')})\n` : ''}${definition.moreHelp ?? ''}${globals}`);
    examples.push({ command: [group, commandName(definition)].filter(Boolean).join(' '), example: definition.example });
    command.action(async function (this: AnyCommand) {
      await dispatch(this);
    });
  };
  for (const definition of COMMANDS) {
    if (definition.kind === 'command') {
      declare(program, definition);
      continue;
    }
    const group = program.command(definition.name).description(definition.description).helpOption('-h, --help', 'show help').helpCommand(false);
    group.addHelpText('after', globals);
    for (const command of definition.commands) declare(group, command, definition.name);
    // Without a subcommand, or with an unknown one, say so in one line (commander would print the whole help).
    // [subcommand...]: a misspelt subcommand with its arguments (`schema pish file.yaml`) is still named as one.
    const runWithout = definition.runWithout;
    group.argument('[subcommand...]').usage(runWithout ? '[command] [options]' : '<command> [options]').action(async function (this: AnyCommand) {
      if (this.args.length > 0 || !runWithout) requireSubcommand(this);
      await dispatch(this);
    });
  }
}

/** The global options by name only, wrapped: `dpgw --help` describes them. */
function globalOptionsText(program: AnyCommand): string {
  const names = program.options.map((option) => option.flags.replace(/^-\w, /, ''));
  const lines: string[] = [];
  let line = ' ';
  for (const name of names) {
    const next = `${line} ${name}${name === names.at(-1) ? '' : ','}`;
    if (next.length > 80 && line.trim() !== '') {
      lines.push(line);
      line = `  ${name}${name === names.at(-1) ? '' : ','}`;
    } else line = next;
  }
  lines.push(line);
  return `\nGlobal options (\`dpgw --help\` describes them):\n${lines.join('\n')}\n`;
}

/**
 * commander's "unknown command 'x'" and "unknown option '--x'", with dpgw's "did you mean"
 * (src/text/closest-match.ts: the same nearness as every other name dpgw looks up) in
 * commander's words, `(Did you mean y?)`. Other messages are returned as they are.
 */
export function suggestInUsageError(command: AnyCommand, text: string): string {
  const unknown = /^(error: unknown (command|option) '([^']*)')\s*$/.exec(text);
  if (!unknown) return text;
  const [, said, kind, given] = unknown as unknown as [string, string, string, string];
  let near: string | undefined;
  if (kind === 'command') near = closestMatch(given, command.commands.map((c) => c.name()));
  else if (given.startsWith('--')) {
    // The command's long options and those of the commands above it (the global ones), compared without the dashes,
    // so that `--x` is not measured as three letters long.
    const longs: string[] = [];
    for (let at: AnyCommand | null = command; at; at = at.parent) longs.push(...at.createHelp().visibleOptions(at).flatMap((option) => (option.long ? [option.long.slice(2)] : [])));
    const flag = closestMatch(given.slice(2), longs);
    near = flag === undefined ? undefined : `--${flag}`;
  }
  return near ? `${said} (Did you mean ${near}?)\n` : text;
}

function requireSubcommand(group: AnyCommand): never {
  const names = group.commands.map((c) => c.name());
  const given = group.args[0];
  const path = `dpgw ${group.name()}`;
  if (given === undefined) group.error(`${path} needs a subcommand: ${names.join(', ')}`, { code: 'dpgw.missingSubcommand', exitCode: 2 });
  // The same nearness as every other "did you mean" of dpgw (src/text/closest-match.ts).
  const near = closestMatch(given, names);
  group.error(`unknown command '${given}' for '${path}'${near ? ` (Did you mean ${near}?)` : ''}; its subcommands: ${names.join(', ')}`, { code: 'dpgw.unknownSubcommand', exitCode: 2 });
}
