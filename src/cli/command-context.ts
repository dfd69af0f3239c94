/**
 * What a command handler gets: its arguments and options, the io, a reporter,
 * and lazy access to settings and the gateway client (created on first use,
 * closed when the command ends).
 */
import type { Command } from 'commander';
import type { GatewayClient } from '../gateway/gateway-client.js';
import type { CommandOutput, Reporter } from '../output/reporter.js';
import type { Settings } from '../settings/resolve-settings.js';
import type { Io } from './io.js';

export interface CommandContext {
  /** The command path, e.g. `config set`. */
  name: string;
  /** Positional arguments as commander processed them. */
  args: unknown[];
  /** The command's options merged with the global ones. */
  options: Record<string, unknown>;
  io: Io;
  reporter: Reporter;
  canPrompt: boolean;
  settings(): Promise<Settings>;
  gateway(): Promise<GatewayClient>;
}

export type Handler = (context: CommandContext) => Promise<CommandOutput>;

/**
 * A command module exports `handlers` keyed by command path (`config set`);
 * one module may serve a whole command group.
 */
export interface HandlerModule {
  handlers: Record<string, Handler>;
}

/** The handler modules dispatch.ts can load; program.ts names them without importing them. */
export type HandlerModuleName = 'config' | 'sandbox' | 'session' | 'enable' | 'schema' | 'table' | 'storage' | 'health' | 'provision' | 'access-control' | 'verify' | 'dashboard' | 'completion';

export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current && current.parent; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}
