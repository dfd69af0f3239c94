/** `dpgw verify`: the flags and the types they give its handler; verify.command.ts declares the command with them, and verify.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

export const verifyOptions = (command: CommandFor<'verify'>, kit: OptionKit) =>
  kit
    .scopedSettings(command, 'query')
    .addOption(kit.name('--dataset <name>', 'the data set whose table is checked (asked for at a terminal)', 'data set'))
    .addOption(kit.name('--table <name>', 'the table (default: the data set name)', 'table'))
    .addOption(kit.option('--expect <outcome>', 'visible: schema, table and rows are there; hidden: none of them is').choices(['visible', 'hidden'] as const).default('visible' as const))
    .addOption(kit.option('--min-rows <n>', 'rows the SELECT must return with --expect visible').argParser(kit.wholeNumber(0, 1_000_000_000)).default(1))
    .addOption(kit.option('--wait <seconds>', 'with --expect visible, ask again until the checks hold or this time is up (ingestion is asynchronous)').argParser(kit.seconds).default(0));
export type VerifyCommand = ReturnType<typeof verifyOptions>;
