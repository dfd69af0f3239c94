/** `dpgw login`: its definition (flags: login.flags.ts); the handler is login.handler.ts. */
import { defineCommand } from '../../command-kit/command-definition.js';
import { loginOptions } from './login.flags.js';

export const login = defineCommand({
  usage: 'login',
  description: 'sign in to the identity provider (the password grant, or --grant client-credentials|device) and cache the token',
  example: 'dpgw login --username admin --password-stdin < password.txt',
  moreHelp:
    '\nAt a terminal, for a profile that lacks the gateway or where to sign in, `dpgw login` asks for them\n' +
    "(the realm's grants from its discovery document), saves the answers to the profile (the client\n" +
    'secret only as a reference, never the password), signs in, then prints the same command with flags.\n' +
    'With --no-input, or without a terminal, every missing setting is named in one error (exit 2) and\nnothing is sent.\n',
  options: loginOptions,
  handler: () => import('./login.handler.js').then((module) => module.login),
});
