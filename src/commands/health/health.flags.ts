/** `dpgw health`: the flags and the types they give its handler; health.command.ts declares the command with them, and health.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

export const healthOptions = (command: CommandFor<'health [component]'>, kit: OptionKit) =>
  command.addOption(kit.option('--watch <seconds>', 'check again every few seconds (in place on a terminal) until Ctrl-C').argParser(kit.positiveSeconds));
export type HealthCommand = ReturnType<typeof healthOptions>;
