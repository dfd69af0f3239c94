/** `dpgw schema push|get|validate|infer`: the flags of each subcommand and the types they give its handlers; schema.command.ts declares the command with them, and schema.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';
import { TIME_COLUMN_HELP } from '../../schema-inference/time-column-help.js';
import { DEFAULT_WAIT_RELOAD_SECONDS } from '../../provision/steps/wait-reload.js';

export const pushOptions = (command: CommandFor<'push [file]'>, kit: OptionKit) =>
  command
    .option('--dry-run', "compare with what is there (reads, and the store's own checks, which store nothing) and print the request it would send; change nothing")
    .addOption(kit.option('--wait-reload <seconds>', "when the schema gains columns, wait this long for the store to reload the segments of the table of its name (0: send the reload, do not wait)").argParser(kit.seconds).default(DEFAULT_WAIT_RELOAD_SECONDS))
    .option('--force-commit', "after such a reload, commit the table's consuming segments now, so the rows from then on carry the new columns (it makes small segments)");
export type SchemaPushCommand = ReturnType<typeof pushOptions>;
export type SchemaGetCommand = CommandFor<'get [name]'>;
export type SchemaListCommand = CommandFor<'list'>;
export const deleteOptions = (command: CommandFor<'delete [name]'>) => command.option('-y, --yes', 'delete without asking to type the name (needed without a terminal)').option('--dry-run', 'compare with what is there (reads only) and print the request it would send; change nothing');
export type SchemaDeleteCommand = ReturnType<typeof deleteOptions>;
export type SchemaValidateCommand = CommandFor<'validate [file]'>;

export const inferOptions = (command: CommandFor<'infer [files...]'>, kit: OptionKit) =>
  kit.settings(
    command
      .addOption(kit.name('--dataset <name>', "read the messages from this data set's topic (read-only, from the earliest offset)", 'data set'))
      .addOption(kit.name('--topic <name>', 'read the messages from this topic (no catalog lookup)', 'topic'))
      .addOption(kit.name('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'))
      .addOption(kit.option('--sample <n>', 'read at most this many messages (default: all of the files; 200 of a topic)').argParser(kit.wholeNumber(1, 10_000_000, 'number of messages')))
      .addOption(kit.name('--name <name>', 'schemaName (default: the data set, else the first file name)', 'schema'))
      .option('--time-column <name>', TIME_COLUMN_HELP)
      .option('--metric <column...>', 'integer columns to make metrics (decimals are metrics already)')
      .option('--check <schema file>', 'compare the messages with this schema instead: every missing, extra or mistyped column, exit 2 when any')
      .option('-o, --output <file>', 'write the schema here (.json: JSON; else YAML) instead of printing it; an existing file is refused without --force')
      .option('--force', 'replace an existing --output file (a link: the link itself, never its target)'),
    ['brokerList', 'streamUser', 'streamPassword'],
  );
export type SchemaInferCommand = ReturnType<typeof inferOptions>;
