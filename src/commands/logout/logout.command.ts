/** `dpgw logout`: no flags of its own (its type: logout.flags.ts); the handler is logout.handler.ts. */
import { defineCommand } from '../../command-kit/command-definition.js';

export const logout = defineCommand({
  usage: 'logout',
  description: 'forget the cached token of the current profile and end the session',
  example: 'dpgw logout',
  handler: () => import('./logout.handler.js').then((module) => module.logout),
});
