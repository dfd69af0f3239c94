/** `dpgw enable`: the flags and the types they give its handler; enable.command.ts declares the command with them, and enable.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

export const enableOptions = (command: CommandFor<'enable'>, kit: OptionKit) =>
  command
    .addOption(kit.name('--datasource <name|id>', 'data source offering the data set (asked for at a terminal)', 'data source'))
    .addOption(kit.name('--dataset <name>', 'data set to enable (asked for at a terminal)', 'data set'))
    .addOption(kit.names('--group <group...>', 'group(s) that may read the data set (needed for a new enablement; asked for at a terminal)', 'group'))
    .addOption(kit.name('--enablement <name>', 'enablement name (reused when it exists)', 'enablement'))
    .addOption(kit.option('--wait-timeout <seconds>', 'how long to wait for the topic').argParser(kit.seconds).default(120))
    .option('--dry-run', 'compare with what is there (reads only) and print the requests it would send; change nothing');
export type EnableCommand = ReturnType<typeof enableOptions>;
