/** `dpgw completion <shell>`: its definition (its argument: completion.flags.ts); the handler is completion.handler.ts, the candidates command-kit/completion.ts. */
import { defineCommand } from '../../command-kit/command-definition.js';
import { completionOptions } from './completion.flags.js';

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
