/** `dpgw logout`: no flags of its own; the handler is logout.handler.ts. */
import { defineCommand, type CommandFor } from '../../command-kit/command-definition.js';

export type LogoutCommand = CommandFor<'logout'>;

export const logout = defineCommand({
  usage: 'logout',
  description: 'forget the cached token of the current profile and end the session',
  example: 'dpgw logout',
  handler: () => import('./logout.handler.js').then((module) => module.logout),
});
