/** `dpgw sandbox`: its definition (flags: sandbox.flags.ts); the handler is sandbox.handler.ts, the emulators src/sandbox/. */
import { defineCommand } from '../../command-kit/command-definition.js';
import { sandboxOptions } from './sandbox.flags.js';

export const sandbox = defineCommand({
  usage: 'sandbox',
  description: 'run a local gateway, identity provider, message stream, query engine and dashboard tool on 127.0.0.1 to try dpgw on; Ctrl-C stops it',
  example: 'dpgw sandbox --write-profile sandbox',
  options: sandboxOptions,
  handler: () => import('./sandbox.handler.js').then((module) => module.run),
});
