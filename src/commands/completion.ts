/** `dpgw completion bash|zsh|fish`: the script that hooks dpgw into the shell's Tab completion. */
import type { Handler, HandlerModule } from '../cli/command-context.js';
import { completionScript, SHELLS, type Shell } from '../cli/completion.js';
import { DpgwError } from '../errors/dpgw-error.js';

const completion: Handler = async (context) => {
  const [shell] = context.args as [string];
  if (!SHELLS.includes(shell as Shell)) throw new DpgwError('usage', `no completion for shell "${shell}"`, { where: '<shell>', hint: `choose ${SHELLS.join(', ')}` });
  const script = completionScript(shell as Shell);
  return { data: { shell, script }, human: () => script.trimEnd() };
};

export const handlers: HandlerModule['handlers'] = { completion };
