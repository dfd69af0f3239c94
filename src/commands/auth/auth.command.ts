/** `dpgw auth status|token`: the group and its subcommands (their types: auth.flags.ts); the handlers are auth.handler.ts. */
import { defineCommand, defineGroup } from '../../command-kit/command-definition.js';

export const auth = defineGroup({
  name: 'auth',
  description: 'inspect the signed-in session',
  commands: [
    defineCommand({
      usage: 'status',
      description: 'show user, realm, groups and expiry; exit 4 when not signed in',
      example: 'dpgw auth status',
      handler: () => import('./auth.handler.js').then((module) => module.status),
    }),
    defineCommand({
      usage: 'token',
      description: 'print the access token for scripts, refreshing it if needed',
      example: 'curl -H "Authorization: Bearer $(dpgw auth token)" …',
      handler: () => import('./auth.handler.js').then((module) => module.token),
    }),
  ],
});
