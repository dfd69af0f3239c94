/** `dpgw verify`: its definition (flags: verify.flags.ts); the handler is verify.handler.ts. */
import { defineCommand } from '../../command-kit/command-definition.js';
import { askedHelp } from '../shared/asked-help.js';
import { verifyOptions } from './verify.flags.js';

export const verify = defineCommand({
  usage: 'verify',
  description: 'prove in the SQL query engine that the signed-in user sees the table and gets rows, or sees nothing (contract steps 7 and 8)',
  example: 'dpgw verify --dataset track --profile sandbox-analyst --wait 60',
  // The example's profile is another user's: a newcomer who signed in only as admin got exit 4 "not signed in".
  moreHelp: '  (sign that profile in once first: dpgw login --profile sandbox-analyst)\n' + askedHelp('--dataset (the enabled data sets)'),
  options: verifyOptions,
  handler: () => import('./verify.handler.js').then((module) => module.verify),
});
