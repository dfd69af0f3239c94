/** `dpgw enable`: its flags; the handler is enable.handler.ts. */
import { defineCommand, type CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

const enableOptions = (command: CommandFor<'enable'>, kit: OptionKit) =>
  command
    .addOption(kit.name('--datasource <name|id>', 'data source offering the data set (asked for at a terminal)', 'data source'))
    .addOption(kit.name('--dataset <name>', 'data set to enable (asked for at a terminal)', 'data set'))
    .addOption(kit.names('--group <group...>', 'group(s) that may read the data set (needed for a new enablement; asked for at a terminal)', 'group'))
    .addOption(kit.name('--enablement <name>', 'enablement name (reused when it exists)', 'enablement'))
    .addOption(kit.option('--wait-timeout <seconds>', 'how long to wait for the topic').argParser(kit.seconds).default(120))
    .option('--dry-run', 'print the requests and send nothing');
export type EnableCommand = ReturnType<typeof enableOptions>;

export const enable = defineCommand({
  usage: 'enable',
  description: 'create (or reuse) an enablement, enable a data set in it and wait for its topic',
  example: 'dpgw enable --datasource mock-data-library --dataset track --group track-readers',
  moreHelp: '\nAt a terminal, `dpgw enable` alone asks for the data source, the data set, the enablement and its\ngroups from the live catalog, then prints the same command with flags. With --no-input, or\nwithout a terminal, a missing --datasource or --dataset is exit 2 and nothing is sent.\n',
  options: enableOptions,
  handler: () => import('./enable.handler.js').then((module) => module.enable),
});
