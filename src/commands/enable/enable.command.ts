/** `dpgw enable`: its definition (flags: enable.flags.ts); the handler is enable.handler.ts. */
import { defineCommand } from '../../command-kit/command-definition.js';
import { enableOptions } from './enable.flags.js';

export const enable = defineCommand({
  usage: 'enable',
  description: 'create (or reuse) an enablement, enable a data set in it and wait for its topic',
  example: 'dpgw enable --datasource mock-data-library --dataset track --group track-readers',
  moreHelp: '\nAt a terminal, `dpgw enable` alone asks for the data source, the data set, the enablement and its\ngroups from the live catalog, then prints the same command with flags. With --no-input, or\nwithout a terminal, a missing --datasource or --dataset is exit 2 and nothing is sent.\n',
  options: enableOptions,
  handler: () => import('./enable.handler.js').then((module) => module.enable),
});
