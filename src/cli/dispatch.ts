/**
 * Runs one parsed command: builds its context (reporter, lazy settings and
 * gateway client), calls its handler, renders the result or the error, and
 * returns the exit code. Loaded only when a command actually runs.
 */
import { githubActionsOf } from '../output/github-actions.js';
import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { DpgwError } from '../errors/dpgw-error.js';
import { ExitCode } from '../errors/exit-code.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { Reporter } from '../output/reporter.js';
import { guardedIo } from '../output/workflow-command-guard.js';
import { resolveSettings, type Settings } from '../settings/resolve-settings.js';
import { commandPath, flagWords, type CommandContext, type RunCommandLine } from '../command-kit/command-context.js';
import { findDefinition } from '../command-kit/command-definition.js';
import { COMMANDS } from '../commands/registry.js';
import { canPrompt, wantsColor, type Io } from '../output/io.js';

/** The profiles of config.yaml, for completing --profile; none when the file cannot be read. */
export async function profileNames(env: NodeJS.ProcessEnv): Promise<string[]> {
  const { configDirectory, loadConfigFile } = await import('../settings/config-file.js');
  try {
    return [...(await loadConfigFile(configDirectory(env))).profiles.keys()];
  } catch {
    return [];
  }
}

/** The live catalog's names for completing --dataset and --datasource; none when it cannot be asked quickly. */
export async function catalogNames(kind: 'data source' | 'data set' | 'offered data set' | 'table' | 'schema', env: NodeJS.ProcessEnv, profile: string | undefined, dataSource?: string): Promise<string[]> {
  const { catalogNames: names } = await import('../catalog/catalog-names.js');
  return names(
    kind,
    async () => {
      const settings = await resolveSettings({ flags: profile ? { profile } : {}, env });
      const { sessionOptionsOf } = await import('../settings/core-options.js');
      return { gateway: settings.values.gateway.value, profile: settings.profile, token: settings.values.token.value, session: sessionOptionsOf(settings, env) };
    },
    env,
    dataSource,
  );
}

/**
 * Tells bin/dpgw that the command's handler and what it needs have loaded, before it runs:
 * a long-running command's code cache is written then (bin/dpgw, runCached).
 */
function handlerLoaded(): void {
  (globalThis as { [key: symbol]: (() => void) | undefined })[Symbol.for('dpgw.handlerLoaded')]?.();
}

export async function dispatch(command: Command, io: Io, argv: readonly string[], runCommandLine: RunCommandLine): Promise<number> {
  const options: Record<string, unknown> = command.optsWithGlobals();
  const name = commandPath(command);
  const color = options.color as boolean | undefined;
  const reporter = new Reporter(io.stdout, io.stderr, {
    json: options.json === true,
    quiet: options.quiet === true,
    verbose: options.verbose === true,
    colorStdout: wantsColor(io.stdout, io.env, color),
    colorStderr: wantsColor(io.stderr, io.env, color),
    githubActions: githubActionsOf(io.env),
  });

  let settings: Promise<Settings> | undefined;
  let gateway: GatewayClient | undefined;
  const context: CommandContext = {
    name,
    args: command.processedArgs,
    options,
    io,
    reporter,
    canPrompt: canPrompt(io, options.input === false),
    argv,
    settings: () => (settings ??= resolveSettings({ flags: options, env: io.env })),
    gateway: async () => {
      if (!gateway) {
        const { createGatewayClient } = await import('../command-kit/create-gateway-client.js');
        gateway = createGatewayClient(await context.settings(), reporter, io);
      }
      return gateway;
    },
    runCommandLine: (words) => runCommandLine(words, io),
  };

  try {
    // program.ts declared the command from the same registry, so it is there; if not, that is a bug in dpgw, said as one.
    const definition = findDefinition(COMMANDS, name);
    if (!definition) throw new DpgwError('UNEXPECTED_FAILURE', `internal error: no definition of \`${name}\``, { hint: 'please report it' });
    const handler = await definition.handler();
    handlerLoaded();
    const output = await handler(context);
    reporter.result(output);
    return output.exitCode ?? ExitCode.Ok;
  } catch (error) {
    const known = error instanceof DpgwError ? error : unexpected(error);
    reporter.error(known);
    if (!(error instanceof DpgwError) && error instanceof Error) reporter.traceStack(error);
    return known.exitCode;
  } finally {
    gateway?.close();
  }
}

/**
 * The last word on an error that escaped every command (main.ts): one line, scrubbed of
 * the secrets this process has read, its stack only with --verbose, and with --json the
 * error document a pipeline expects. Returns the exit code.
 */
export function reportUnexpectedError(error: unknown, argv: readonly string[], given: Io): number {
  const io = guardedIo(given);
  const flags = flagWords(argv);
  const reporter = new Reporter(io.stdout, io.stderr, { json: flags.includes('--json'), quiet: false, verbose: flags.includes('--verbose'), colorStdout: false, colorStderr: false });
  reporter.error(unexpected(error));
  if (error instanceof Error) reporter.traceStack(error);
  return ExitCode.Failure;
}

function unexpected(error: unknown): DpgwError {
  const message = error instanceof Error ? error.message : String(error);
  return new DpgwError('UNEXPECTED_FAILURE', `unexpected error: ${message}`, { hint: 'run again with --verbose and report it with the trace', cause: error });
}
