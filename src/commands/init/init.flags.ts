/** `dpgw init [dir]`: the flags and the types they give its handler; init.command.ts declares the command with them, and init.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';
import { DEFAULT_TOPIC_SAMPLE } from '../../schema-inference/sample-size.js';
import { TIME_COLUMN_HELP } from '../../schema-inference/time-column-help.js';

export const initOptions = (command: CommandFor<'init [dir]'>, kit: OptionKit) =>
  kit.settings(
    command
      .addOption(kit.name('--datasource <name|id>', 'data source offering the data set', 'data source'))
      .addOption(kit.name('--dataset <name>', 'data set to provision', 'data set'))
      .addOption(kit.name('--enablement <name>', 'enablement to enable it in (default: the one it is enabled in, else its name)', 'enablement'))
      .addOption(kit.names('--group <group...>', 'group(s) that may read it (needed for a new enablement)', 'group'))
      .addOption(kit.name('--table <name>', "table name (default: the data set's name; with --schema, the schema's)", 'table'))
      .addOption(kit.option('--retention-days <days>', 'segment retention in days (default: the settings\' retentionDays, 7)').argParser(kit.wholeNumber(1, 36_500, 'number of days')))
      .option('--time-column <name>', TIME_COLUMN_HELP)
      .option('--metric <column...>', 'integer columns to make metrics (decimals are metrics already)')
      .option('--schema <file>', "take the schema from this file instead of the topic's messages")
      .option('--from-messages <file>', "infer the schema from this file of messages (JSON Lines or a JSON array) instead of the topic's")
      .option('--infer-at-first-run', "write schema: { infer } instead of a schema file: the first run infers it from the topic once it has enabled the data set (for one not enabled yet)")
      .addOption(kit.option('--sample <n>', "messages of the topic (or the file) to infer from").argParser(kit.wholeNumber(1, 10_000, 'sample')).default(DEFAULT_TOPIC_SAMPLE))
      .option('--force', 'replace provision.yaml and the schema file in the folder'),
    ['brokerList', 'streamUser', 'streamPassword'],
  );
export type InitCommand = ReturnType<typeof initOptions>;
