/** `dpgw logout`: the flags and the types they give its handler; logout.command.ts declares the command with them, and logout.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';

export type LogoutCommand = CommandFor<'logout'>;
