/** `dpgw verify`: its flags; the handler is verify.handler.ts. */
import { defineCommand, type CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';
import { askedHelp } from '../shared/asked-help.js';

const verifyOptions = (command: CommandFor<'verify'>, kit: OptionKit) =>
  kit
    .scopedSettings(command, 'query')
    .addOption(kit.name('--dataset <name>', 'the data set whose table is checked (asked for at a terminal)', 'data set'))
    .addOption(kit.name('--table <name>', 'the table (default: the data set name)', 'table'))
    .addOption(kit.option('--expect <outcome>', 'visible: schema, table and rows are there; hidden: none of them is').choices(['visible', 'hidden'] as const).default('visible' as const))
    .addOption(kit.option('--min-rows <n>', 'rows the SELECT must return with --expect visible').argParser(kit.wholeNumber(0, 1_000_000_000)).default(1))
    .addOption(kit.option('--wait <seconds>', 'with --expect visible, ask again until the checks hold or this time is up (ingestion is asynchronous)').argParser(kit.seconds).default(0));
export type VerifyCommand = ReturnType<typeof verifyOptions>;

export const verify = defineCommand({
  usage: 'verify',
  description: 'prove in the SQL query engine that the signed-in user sees the table and gets rows, or sees nothing (contract steps 7 and 8)',
  example: 'dpgw verify --dataset track --profile sandbox-analyst --wait 60',
  // The example's profile is another user's: a newcomer who signed in only as admin got exit 4 "not signed in".
  moreHelp: '  (sign that profile in once first: dpgw login --profile sandbox-analyst)\n' + askedHelp('--dataset (the enabled data sets)'),
  options: verifyOptions,
  handler: () => import('./verify.handler.js').then((module) => module.verify),
});
