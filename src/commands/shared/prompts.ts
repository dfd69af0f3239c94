import type { CommandContext } from '../../cli/command-context.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { registerSecret } from '../../secrets/redaction.js';

/** Ctrl-C at a prompt: inquirer rejects with ExitPromptError; dpgw exits 130 as a shell expects. */
async function unlessInterrupted<T>(asked: Promise<T>): Promise<T> {
  try {
    return await asked;
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') throw new DpgwError('interrupted', 'interrupted at the prompt; nothing was sent', { code: 'INTERRUPTED' });
    throw error;
  }
}

/**
 * A hidden prompt on stderr (stdout stays data); the answer is registered as a secret.
 * No mask: a `*` per key would show the password's length to anyone watching the screen
 * or a recording of it, so nothing is echoed, as sudo and ssh do (issue #31 §3).
 */
export async function hiddenPrompt(context: CommandContext, message: string): Promise<string> {
  const { password } = await import('@inquirer/prompts');
  const answer = await unlessInterrupted(password({ message, mask: false }, { input: context.io.stdin, output: context.io.stderr as NodeJS.WritableStream }));
  registerSecret(answer);
  return answer;
}

/** A visible prompt on stderr. */
export async function textPrompt(context: CommandContext, message: string): Promise<string> {
  const { input } = await import('@inquirer/prompts');
  return unlessInterrupted(input({ message }, { input: context.io.stdin, output: context.io.stderr as NodeJS.WritableStream }));
}

/** A yes/no question on stderr, no unless answered yes. */
export async function confirmPrompt(context: CommandContext, message: string): Promise<boolean> {
  const { confirm } = await import('@inquirer/prompts');
  return unlessInterrupted(confirm({ message, default: false }, { input: context.io.stdin, output: context.io.stderr as NodeJS.WritableStream }));
}
