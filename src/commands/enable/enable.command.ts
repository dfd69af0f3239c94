/** `dpgw enable`: its flags; the handler is enable.handler.ts. */
import { defineCommand, type CommandFor } from '../../cli/command-definition.js';
import type { OptionKit } from '../../cli/option-kit.js';

const enableOptions = (command: CommandFor<'enable'>, kit: OptionKit) =>
  command
    .addOption(kit.name('--datasource <name|id>', 'data source offering the data set', 'data source').makeOptionMandatory())
    .addOption(kit.name('--dataset <name>', 'data set to enable', 'data set').makeOptionMandatory())
    .addOption(kit.names('--group <group...>', 'group(s) that may read the data set', 'group'))
    .addOption(kit.name('--enablement <name>', 'enablement name (reused when it exists)', 'enablement'))
    .addOption(kit.option('--wait-timeout <seconds>', 'how long to wait for the topic').argParser(kit.seconds).default(120))
    .option('--dry-run', 'print the requests and send nothing');
export type EnableCommand = ReturnType<typeof enableOptions>;

export const enable = defineCommand({
  usage: 'enable',
  description: 'create (or reuse) an enablement, enable a data set in it and wait for its topic',
  example: 'dpgw enable --datasource mock-data-library --dataset track --group track-readers',
  options: enableOptions,
  handler: () => import('./enable.handler.js').then((module) => module.enable),
});
