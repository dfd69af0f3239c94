/** `dpgw storage touch`: the flags of each subcommand and the types they give its handlers; storage.command.ts declares the command with them, and storage.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

export const touchOptions = (command: CommandFor<'touch'>, kit: OptionKit) =>
  command
    .addOption(kit.name('--dataset <name>', 'catalog data set (asked for at a terminal)', 'data set'))
    .addOption(kit.name('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'))
    .option('--force', 'make the call even when the platform does not need it')
    .option('--dry-run', 'compare with what is there (reads only) and print the request it would send; change nothing');
export type StorageTouchCommand = ReturnType<typeof touchOptions>;
