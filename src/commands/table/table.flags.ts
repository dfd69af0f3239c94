/** `dpgw table create|render|get`: the flags of each subcommand and the types they give its handlers; table.command.ts declares the command with them, and table.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';
import { DEFAULT_TOPIC_SAMPLE } from '../../schema-inference/sample-size.js';

/** create and render take the same flags: the table they fill. */
const tableOptions = <Usage extends 'create' | 'render'>(command: CommandFor<Usage>, kit: OptionKit) =>
  kit.scopedSettings(
    command
      .addOption(kit.name('--dataset <name>', 'catalog data set whose topic feeds the table (asked for at a terminal)', 'data set'))
      .option('--schema <file|name>', 'schema file, or the name of a pushed schema (asked for at a terminal: the schema files under this folder)')
      .addOption(kit.name('--name <table>', 'table name (default: the schema name)', 'table'))
      .option('--template <file>', 'table template (default: templates/realtime-table.yaml)')
      .addOption(kit.name('--topic <name>', "topic name, overriding the data set's label", 'topic'))
      .addOption(kit.name('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'))
      .option('--time-column <name>', 'time column, when the schema has several date-time columns or is given by name'),
    'table',
  );
/** A flag given again adds to the list (`--sample-ignore a --sample-ignore b`). */
const repeated = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];
export const createOptions = (command: CommandFor<'create'>, kit: OptionKit) =>
  kit
    .scopedSettings(tableOptions(command, kit), 'create')
    .option('--no-stream-check', 'same as --stream-check off: send the table without first signing in to the brokers and finding its topic')
    .addOption(kit.option('--sample <n>', "messages of the topic held against the schema before the table is sent").argParser(kit.wholeNumber(1, 10_000, 'sample')).default(DEFAULT_TOPIC_SAMPLE))
    .option('--no-sample-check', "send the table without first holding the topic's messages against the schema")
    .addOption(kit.option('--sample-ignore <column>', 'a column of the schema the sample check passes unjudged (you know the store fills it); repeatable').argParser(repeated))
    .addOption(kit.option('--wait-consuming <seconds>', 'after creating, wait this long for the store to consume every partition (0: do not check)').argParser(kit.seconds).default(60))
    .option('--dry-run', "compare with what is there (reads, and the store's own checks, which store nothing) and print the request it would send; change nothing");
export const renderOptions = (command: CommandFor<'render'>, kit: OptionKit) => tableOptions(command, kit);
export type TableCreateCommand = ReturnType<typeof createOptions>;
export type TableRenderCommand = ReturnType<typeof renderOptions>;
export type TableGetCommand = CommandFor<'get [name]'>;
export type TableListCommand = CommandFor<'list'>;
export const deleteOptions = (command: CommandFor<'delete [name]'>) => command.option('-y, --yes', 'delete without asking to type the name (needed without a terminal)').option('--dry-run', 'compare with what is there (reads only) and print the request it would send; change nothing');
export type TableDeleteCommand = ReturnType<typeof deleteOptions>;
/** pause and resume ask at a terminal, as delete does; --yes in scripts. */
const consumptionOptions = <Usage extends 'pause [name]' | 'resume [name]'>(command: CommandFor<Usage>) =>
  command.option('-y, --yes', 'go ahead without asking (needed without a terminal)').option('--dry-run', 'read the table and print the request it would send; change nothing');
export const pauseOptions = (command: CommandFor<'pause [name]'>) => consumptionOptions(command);
export type TablePauseCommand = ReturnType<typeof pauseOptions>;
export const resumeOptions = (command: CommandFor<'resume [name]'>, kit: OptionKit) =>
  consumptionOptions(command).addOption(
    kit.option('--consume-from <where>', "start from the topic's earliest (smallest) or latest (largest) offset instead of the offsets the store holds (its consumeFrom)").choices(['smallest', 'largest'] as const),
  );
export type TableResumeCommand = ReturnType<typeof resumeOptions>;
export const statusOptions = (command: CommandFor<'status [name]'>, kit: OptionKit) =>
  kit
    .settings(command, ['brokerList', 'streamUser', 'streamPassword'])
    .addOption(kit.option('--stream-check <mode>', "ask the brokers for the topic's latest offsets: auto (not when they cannot be reached from here), require, or off"))
    .addOption(kit.option('--watch <seconds>', 'read again every few seconds (in place on a terminal) until Ctrl-C').argParser(kit.positiveSeconds));
export type TableStatusCommand = ReturnType<typeof statusOptions>;
export const templateOptions = (command: CommandFor<'template <config>'>) =>
  command.option('-o, --output <file>', 'write the template here instead of printing it; an existing file is refused without --force').option('--force', 'replace an existing --output file (a link: the link itself, never its target)');
export type TableTemplateCommand = ReturnType<typeof templateOptions>;
