/** `dpgw completion bash|zsh|fish`: the script that hooks dpgw into the shell's Tab completion. */
import type { HandlerModule, HandlerOf } from '../cli/command-context.js';
import { completionScript } from '../cli/completion.js';

const completion: HandlerOf<'completion'> = async (context) => {
  const [shell] = context.args;
  const script = completionScript(shell);
  return { data: { shell, script }, human: () => script.trimEnd() };
};

export const handlers: HandlerModule['handlers'] = { completion };
