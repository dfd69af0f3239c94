/** `dpgw storage touch`: the group and its definition (flags: storage.flags.ts); the handler is storage.handler.ts. */
import { defineCommand, defineGroup } from '../../command-kit/command-definition.js';
import { askedHelp } from '../shared/asked-help.js';
import { touchOptions } from './storage.flags.js';

export const storage = defineGroup({
  name: 'storage',
  description: 'catalog storages',
  commands: [
    defineCommand({
      usage: 'touch',
      description: 'create store permissions by reading the default storage (platforms older than 1.15.165)',
      example: 'dpgw storage touch --dataset track',
      moreHelp: askedHelp('--dataset (the enabled data sets)'),
      options: touchOptions,
      handler: () => import('./storage.handler.js').then((module) => module.touch),
    }),
  ],
});
