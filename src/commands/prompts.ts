import type { CommandContext } from '../cli/command-context.js';
import { registerSecret } from '../secrets/redaction.js';

/** A hidden prompt on stderr (stdout stays data); the answer is registered as a secret. */
export async function hiddenPrompt(context: CommandContext, message: string): Promise<string> {
  const { password } = await import('@inquirer/prompts');
  const answer = await password({ message, mask: true }, { input: context.io.stdin, output: context.io.stderr as NodeJS.WritableStream });
  registerSecret(answer);
  return answer;
}

/** A visible prompt on stderr. */
export async function textPrompt(context: CommandContext, message: string): Promise<string> {
  const { input } = await import('@inquirer/prompts');
  return input({ message }, { input: context.io.stdin, output: context.io.stderr as NodeJS.WritableStream });
}
