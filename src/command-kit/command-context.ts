/**
 * What a command handler gets: its arguments and options, the io, a reporter,
 * and lazy access to settings and the gateway client (created on first use,
 * closed when the command ends).
 */
import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import type { GatewayClient } from '../gateway/gateway-client.js';
import type { CommandOutput, Reporter } from '../output/reporter.js';
import type { Settings } from '../settings/resolve-settings.js';
import type { Io } from '../output/io.js';

export interface CommandContext<Options = Record<string, unknown>, Args extends unknown[] = unknown[]> {
  /** The command path, e.g. `config set`. */
  name: string;
  /** Positional arguments as commander processed them. */
  args: Args;
  /** The command's options merged with the global ones (its definition declares and checks them). */
  options: Options;
  io: Io;
  reporter: Reporter;
  canPrompt: boolean;
  /** The words the command was run with (after `dpgw`), for the command line that answers its questions (commands/shared/questions.ts). */
  argv: readonly string[];
  settings(): Promise<Settings>;
  gateway(): Promise<GatewayClient>;
  /**
   * Runs another dpgw command line in this process, with this io, as if the user had typed it
   * (init's "Run the plan now?"); returns its exit code. The root hands it in (cli/run-cli.ts),
   * so that a command never imports the root that imports it.
   */
  runCommandLine(argv: readonly string[]): Promise<number>;
}

/** How the root runs a command line: what `runCommandLine` calls. */
export type RunCommandLine = (argv: readonly string[], io: Io) => Promise<number>;

export type Handler<Options = Record<string, unknown>, Args extends unknown[] = unknown[]> = (context: CommandContext<Options, Args>) => Promise<CommandOutput>;

/** The words of argv before a `--`: the ones that can be dpgw's own flags. */
export function flagWords(argv: readonly string[]): readonly string[] {
  return argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
}

export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current && current.parent; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}
