/** `dpgw schema push|get|validate|infer`: the group and each subcommand's flags; the handlers are schema.handler.ts. */
import { defineCommand, defineGroup, type CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';
import { askedHelp } from '../shared/asked-help.js';

const pushOptions = (command: CommandFor<'push [file]'>) => command.option('--dry-run', 'print the request and send nothing');
export type SchemaPushCommand = ReturnType<typeof pushOptions>;
export type SchemaGetCommand = CommandFor<'get [name]'>;
const deleteOptions = (command: CommandFor<'delete [name]'>) => command.option('-y, --yes', 'delete without asking to type the name (needed without a terminal)').option('--dry-run', 'print the request and send nothing');
export type SchemaDeleteCommand = ReturnType<typeof deleteOptions>;
export type SchemaValidateCommand = CommandFor<'validate [file]'>;

const inferOptions = (command: CommandFor<'infer [files...]'>, kit: OptionKit) =>
  kit.settings(
    command
      .addOption(kit.name('--dataset <name>', "read the messages from this data set's topic (read-only, from the earliest offset)", 'data set'))
      .addOption(kit.name('--topic <name>', 'read the messages from this topic (no catalog lookup)', 'topic'))
      .addOption(kit.name('--enablement <name|id>', 'enablement, when the data set is enabled in several', 'enablement'))
      .addOption(kit.option('--sample <n>', 'read at most this many messages (default: all of the files; 200 of a topic)').argParser(kit.wholeNumber(1, 10_000_000, 'number of messages')))
      .addOption(kit.name('--name <name>', 'schemaName (default: the data set, else the first file name)', 'schema'))
      .option('--time-column <name>', 'the date-time column (default: the one column whose values are dates (epoch seconds, milliseconds or days, or dates as text), else time, filled with now())')
      .option('--metric <column...>', 'integer columns to make metrics (decimals are metrics already)')
      .option('--check <schema file>', 'compare the messages with this schema instead: every missing, extra or mistyped column, exit 2 when any')
      .option('-o, --output <file>', 'write the schema here (.json: JSON; else YAML) instead of printing it; an existing file is refused without --force')
      .option('--force', 'replace an existing --output file (a link: the link itself, never its target)'),
    ['brokerList', 'streamUser', 'streamPassword'],
  );
export type SchemaInferCommand = ReturnType<typeof inferOptions>;

export const schema = defineGroup({
  name: 'schema',
  description: 'analytics schemas',
  commands: [
    defineCommand({
      usage: 'push [file]',
      description: 'validate a schema file (YAML or JSON) and store it in the analytics store',
      example: 'dpgw schema push examples/track/schema.yaml',
      moreHelp: askedHelp('<file> (the schema files under this folder)'),
      options: pushOptions,
      handler: () => import('./schema.handler.js').then((module) => module.push),
    }),
    defineCommand({
      usage: 'get [name]',
      description: "print the schema the analytics store holds (YAML; --json: the store's JSON)",
      example: 'dpgw schema get track',
      moreHelp: askedHelp('<name> (typed)'),
      handler: () => import('./schema.handler.js').then((module) => module.get),
    }),
    defineCommand({
      usage: 'delete [name]',
      description: 'delete a schema from the analytics store; refused while a table uses it (at a terminal: type the name to confirm)',
      example: 'dpgw schema delete track --yes',
      moreHelp:
        '  $ dpgw schema delete track             at a terminal: type track to confirm\n\nRefused while a table uses the schema (exit 3, SCHEMA_IN_USE, naming the table): delete\nthe table first, dpgw table delete <name>. Without a terminal --yes is needed (exit 2,\nnothing sent); a schema the store does not hold is exit 9.\n' + askedHelp('<name> (typed)'),
      options: deleteOptions,
      handler: () => import('./schema.handler.js').then((module) => module.remove),
    }),
    defineCommand({
      usage: 'validate [file]',
      description: 'check a schema file without sending it; lists every problem',
      example: 'dpgw schema validate examples/track/schema.yaml',
      moreHelp: askedHelp('<file> (the schema files under this folder)'),
      handler: () => import('./schema.handler.js').then((module) => module.validate),
    }),
    defineCommand({
      usage: 'infer [files...]',
      description: "infer the schema from messages (JSON Lines or a JSON array; - or none: stdin; or the data set's topic), or --check them against one",
      example: 'dpgw schema infer --dataset track -o track-schema.yaml',
      options: inferOptions,
      handler: () => import('./schema.handler.js').then((module) => module.infer),
    }),
  ],
});
