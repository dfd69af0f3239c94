/** `dpgw storage touch`: the group and its flags; the handler is storage.handler.ts. */
import { defineCommand, defineGroup, type CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';
import { askedHelp } from '../shared/asked-help.js';

const touchOptions = (command: CommandFor<'touch'>, kit: OptionKit) =>
  command
    .addOption(kit.name('--dataset <name>', 'catalog data set (asked for at a terminal)', 'data set'))
    .addOption(kit.name('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'))
    .option('--force', 'make the call even when the platform does not need it')
    .option('--dry-run', 'print the request and send nothing');
export type StorageTouchCommand = ReturnType<typeof touchOptions>;

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
