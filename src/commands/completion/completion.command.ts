/** `dpgw completion <shell>`: its argument; the handler is completion.handler.ts, the candidates command-kit/completion.ts. */
import { defineCommand, type CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';
import { SHELLS } from '../../command-kit/completion.js';

const completionOptions = (command: CommandFor<'completion'>, kit: OptionKit) => command.addArgument(kit.argument('<shell>', 'bash, zsh or fish').choices(SHELLS));
export type CompletionCommand = ReturnType<typeof completionOptions>;

export const completion = defineCommand({
  usage: 'completion',
  description: 'print the shell completion script (bash, zsh or fish): commands, options, choices and profile names',
  example: 'eval "$(dpgw completion bash)"',
  // The fish line makes the folder: a new user has none (test/cli/completion.test.ts runs these lines in an empty home).
  moreHelp:
    '\nInstall:\n  bash  eval "$(dpgw completion bash)"   in ~/.bashrc\n  zsh   eval "$(dpgw completion zsh)"    in ~/.zshrc, after autoload -Uz compinit && compinit\n  fish  mkdir -p ~/.config/fish/completions && dpgw completion fish > ~/.config/fish/completions/dpgw.fish\n',
  options: completionOptions,
  handler: () => import('./completion.handler.js').then((module) => module.completion),
});
