/** `dpgw table create|render|get`: the group and each subcommand's flags; the handlers are table.handler.ts. */
import { defineCommand, defineGroup, type CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';
import { DEFAULT_TOPIC_SAMPLE } from '../../schema-inference/sample-size.js';
import { askedHelp } from '../shared/asked-help.js';

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
const createOptions = (command: CommandFor<'create'>, kit: OptionKit) =>
  kit
    .scopedSettings(tableOptions(command, kit), 'create')
    .option('--no-stream-check', 'same as --stream-check off: send the table without first signing in to the brokers and finding its topic')
    .addOption(kit.option('--sample <n>', "messages of the topic held against the schema before the table is sent").argParser(kit.wholeNumber(1, 10_000, 'sample')).default(DEFAULT_TOPIC_SAMPLE))
    .option('--no-sample-check', "send the table without first holding the topic's messages against the schema")
    .addOption(kit.option('--sample-ignore <column>', 'a column of the schema the sample check passes unjudged (you know the store fills it); repeatable').argParser(repeated))
    .addOption(kit.option('--wait-consuming <seconds>', 'after creating, wait this long for the store to consume every partition (0: do not check)').argParser(kit.seconds).default(60))
    .option('--dry-run', 'print the request and send nothing');
const renderOptions = (command: CommandFor<'render'>, kit: OptionKit) => tableOptions(command, kit);
export type TableCreateCommand = ReturnType<typeof createOptions>;
export type TableRenderCommand = ReturnType<typeof renderOptions>;
export type TableGetCommand = CommandFor<'get [name]'>;
const deleteOptions = (command: CommandFor<'delete [name]'>) => command.option('-y, --yes', 'delete without asking to type the name (needed without a terminal)').option('--dry-run', 'print the request and send nothing');
export type TableDeleteCommand = ReturnType<typeof deleteOptions>;
const statusOptions = (command: CommandFor<'status [name]'>, kit: OptionKit) =>
  kit
    .settings(command, ['brokerList', 'streamUser', 'streamPassword'])
    .addOption(kit.option('--stream-check <mode>', "ask the brokers for the topic's latest offsets: auto (not when they cannot be reached from here), require, or off"))
    .addOption(kit.option('--watch <seconds>', 'read again every few seconds (in place on a terminal) until Ctrl-C').argParser(kit.positiveSeconds));
export type TableStatusCommand = ReturnType<typeof statusOptions>;
const templateOptions = (command: CommandFor<'template <config>'>) =>
  command.option('-o, --output <file>', 'write the template here instead of printing it; an existing file is refused without --force').option('--force', 'replace an existing --output file (a link: the link itself, never its target)');
export type TableTemplateCommand = ReturnType<typeof templateOptions>;

export const table = defineGroup({
  name: 'table',
  description: 'real-time tables',
  commands: [
    defineCommand({
      usage: 'create',
      description: "check the stream, hold the topic's messages against the schema, fill the table template from the data set, create the real-time table and wait until it consumes",
      example: 'dpgw table create --dataset track --schema examples/track/schema.yaml',
      moreHelp: askedHelp('--dataset (the enabled data sets) or --schema (the schema files under this folder)'),
      options: createOptions,
      handler: () => import('./table.handler.js').then((module) => module.create),
    }),
    defineCommand({
      usage: 'render',
      description: 'print the filled table definition (password masked)',
      example: 'dpgw table render --dataset track --schema examples/track/schema.yaml',
      moreHelp: askedHelp('--dataset (the enabled data sets) or --schema (the schema files under this folder)'),
      options: renderOptions,
      handler: () => import('./table.handler.js').then((module) => module.render),
    }),
    defineCommand({
      usage: 'get [name]',
      description: "print the table the analytics store holds, as it stores it (YAML; --json: the store's JSON; the stream password masked)",
      example: 'dpgw table get track',
      moreHelp: askedHelp("<name> (the store's tables)"),
      handler: () => import('./table.handler.js').then((module) => module.get),
    }),
    defineCommand({
      usage: 'delete [name]',
      description: 'delete a real-time table from the analytics store and wait until the store has dropped it (at a terminal: type the name to confirm)',
      example: 'dpgw table delete track --yes',
      moreHelp:
        '  $ dpgw table delete track              at a terminal: type track to confirm\n  $ dpgw table delete track --dry-run    print the DELETE, send nothing\n\nWithout a terminal --yes is needed (exit 2, nothing sent); a table the store does not hold\nis exit 9. The store drops a table in the background: dpgw reads it until it is gone, for\nup to --timeout, so a table of that name can be created right after (still there: exit 1).\nIts schema stays: dpgw schema delete <name>. Delete what a manifest no longer lists with\ndpgw provision <manifest> --prune (docs/lifecycle.md).\n' + askedHelp("<name> (the store's tables)"),
      options: deleteOptions,
      handler: () => import('./table.handler.js').then((module) => module.remove),
    }),
    defineCommand({
      usage: 'status [name]',
      description: "per partition: consuming or not, the segment's state, offsets and lag, the store's errors; exit 6 when not all consume",
      example: 'dpgw table status track --watch 5',
      moreHelp:
        "\nColumns: PARTITION, CONSUMING, STATE (its newest segment's), ROWS, OFFSET (reached), LATEST (the\n  topic's), LAG (LATEST − OFFSET). error: lines give the store's reasons; unknown: lines the reads\n  the gateway does not pass on (docs/tables.md, \"table status\").\nExit: 0 every partition consumes; 6 one does not, or the store reports an error; 9 no such table;\n  3 nothing tells whether it consumes.\n" + askedHelp("<name> (the store's tables)"),
      options: statusOptions,
      handler: () => import('./table-status.handler.js').then((module) => module.status),
    }),
    defineCommand({
      usage: 'template <config>',
      description: "turn the store's REALTIME table config (JSON or YAML, as GET /tables/x or its examples write it) into a dpgw template: the names, topic, stream connection, retention and tenants become placeholders, the rest is kept",
      example: 'dpgw table template table-config.json -o template.yaml',
      options: templateOptions,
      handler: () => import('./table-template.handler.js').then((module) => module.template),
    }),
  ],
});
