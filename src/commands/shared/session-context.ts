/** The session a login, logout or auth command works on: the settings, the io, and how to warn, trace and prompt. */
import type { CommandContext } from '../../command-kit/command-context.js';
import type { SessionContext } from '../../auth/session.js';
import { hiddenPrompt } from './prompts.js';
import { sessionOptionsOf } from '../../settings/core-options.js';
import type { Settings } from '../../settings/resolve-settings.js';

/** `settings`: when the command read them anew (a login that saved answers to the profile), else the run's. */
export async function sessionContext(context: CommandContext, settings?: Settings): Promise<SessionContext> {
  return {
    session: sessionOptionsOf(settings ?? (await context.settings()), context.io.env),
    env: context.io.env,
    warn: (message) => context.reporter.warn(message),
    trace: context.reporter.options.verbose ? (line) => context.reporter.trace(line) : undefined,
    prompt: context.canPrompt ? (message) => hiddenPrompt(context, message) : undefined,
  };
}

/** An expiry as the session commands print it: UTC to the second. */
export function clock(iso: string | undefined): string {
  return iso ? new Date(iso).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-';
}
