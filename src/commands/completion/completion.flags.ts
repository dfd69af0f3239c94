/** `dpgw completion <shell>`: the flags and the types they give its handler; completion.command.ts declares the command with them, and completion.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';
import { SHELLS } from '../../command-kit/completion.js';

export const completionOptions = (command: CommandFor<'completion'>, kit: OptionKit) => command.addArgument(kit.argument('<shell>', 'bash, zsh or fish').choices(SHELLS));
export type CompletionCommand = ReturnType<typeof completionOptions>;
