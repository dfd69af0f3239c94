/** `dpgw login`: the flags and the types they give its handler; login.command.ts declares the command with them, and login.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';

export const loginOptions = (command: CommandFor<'login'>) => command.option('--password-stdin', 'read the password from standard input (else DPGW_PASSWORD, else a hidden prompt)');
export type LoginCommand = ReturnType<typeof loginOptions>;
