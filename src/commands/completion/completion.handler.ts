/** `dpgw completion bash|zsh|fish`: the script that hooks dpgw into the shell's Tab completion. */
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { CompletionCommand } from './completion.flags.js';
import { completionScript } from '../../command-kit/completion.js';

export const completion: HandlerOf<CompletionCommand> = async (context) => {
  const [shell] = context.args;
  const script = completionScript(shell);
  // The script is dpgw's own text (its commands and flags), a line each.
  return { data: { shell, script }, human: () => script.trimEnd().split('\n') };
};

