/** `dpgw login`: its flags; the handler is login.handler.ts. */
import { defineCommand, type CommandFor } from '../../command-kit/command-definition.js';

const loginOptions = (command: CommandFor<'login'>) => command.option('--password-stdin', 'read the password from standard input (else DPGW_PASSWORD, else a hidden prompt)');
export type LoginCommand = ReturnType<typeof loginOptions>;

export const login = defineCommand({
  usage: 'login',
  description: 'sign in to the identity provider (the password grant, or --grant client-credentials|device) and cache the token',
  example: 'dpgw login --username admin --password-stdin < password.txt',
  options: loginOptions,
  handler: () => import('./login.handler.js').then((module) => module.login),
});
