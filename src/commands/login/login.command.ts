/** `dpgw login`: its definition (flags: login.flags.ts); the handler is login.handler.ts. */
import { defineCommand } from '../../command-kit/command-definition.js';
import { loginOptions } from './login.flags.js';

export const login = defineCommand({
  usage: 'login',
  description: 'sign in to the identity provider (the password grant, or --grant client-credentials|device) and cache the token',
  example: 'dpgw login --username admin --password-stdin < password.txt',
  options: loginOptions,
  handler: () => import('./login.handler.js').then((module) => module.login),
});
