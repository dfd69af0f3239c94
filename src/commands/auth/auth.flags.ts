/** `dpgw auth status|token`: the flags of each subcommand and the types they give its handlers; auth.command.ts declares the command with them, and auth.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';

export type AuthStatusCommand = CommandFor<'status'>;
export type AuthTokenCommand = CommandFor<'token'>;
