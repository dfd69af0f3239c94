/** The command tree as users meet it, from the program itself: so a test's "every command" never lags behind it. */
import { buildProgram, type AnyCommand } from '../../src/cli/program.js';
import { COMPLETE_COMMAND } from '../../src/command-kit/completion.js';

const program = buildProgram('0.0.0', async () => undefined);

const visible = (command: AnyCommand) => command.commands.filter((c) => !(c as AnyCommand & { _hidden?: boolean })._hidden && c.name() !== COMPLETE_COMMAND);

/** The top-level commands, in the order `dpgw --help` lists them. */
export const TOP_LEVEL_COMMANDS: string[] = visible(program).map((c) => c.name());

/** Every command's words, groups and their subcommands alike (`[]` is dpgw itself). */
export const COMMAND_PATHS: string[][] = [[], ...visible(program).flatMap((c) => [[c.name()], ...visible(c).map((sub) => [c.name(), sub.name()])])];
