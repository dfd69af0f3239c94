/** `dpgw table create|render|list|get|…`: the group and each subcommand's definition (flags: table.flags.ts); the handlers are table.handler.ts. */
import { defineCommand, defineGroup } from '../../command-kit/command-definition.js';
import { askedHelp } from '../shared/asked-help.js';
import { createOptions, renderOptions, deleteOptions, pauseOptions, resumeOptions, statusOptions, templateOptions } from './table.flags.js';

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
      description: 'print the filled table definition as table get prints the store\'s (YAML; --json: JSON; the stream password masked)',
      example: 'dpgw table render --dataset track --schema examples/track/schema.yaml',
      moreHelp: askedHelp('--dataset (the enabled data sets) or --schema (the schema files under this folder)'),
      options: renderOptions,
      handler: () => import('./table.handler.js').then((module) => module.render),
    }),
    defineCommand({
      usage: 'list',
      description: 'list the tables the analytics store holds: schema, owner (the manifest whose mark it carries) and whether it consumes (--json: records)',
      example: 'dpgw table list',
      moreHelp: "\nColumns: TABLE, SCHEMA, OWNER (the manifest that marked it; none: made by hand or by table create),\n  CONSUMING (yes: every partition has a consuming segment). — is what the gateway does not\n  pass on (a warning says which). No tables: exit 0, a note on stderr; a gateway that does\n  not list them: exit 3 (docs/tables.md, \"table list\").\n",
      handler: () => import('./table-list.handler.js').then((module) => module.list),
    }),
    defineCommand({
      usage: 'get [name]',
      argumentValues: ['table'],
      description: "print the table the analytics store holds, as it stores it (YAML; --json: the store's JSON; the stream password masked)",
      example: 'dpgw table get track',
      moreHelp: askedHelp("<name> (the store's tables)"),
      handler: () => import('./table.handler.js').then((module) => module.get),
    }),
    defineCommand({
      usage: 'delete [name]',
      argumentValues: ['table'],
      description: 'delete a real-time table from the analytics store and wait until the store has dropped it (at a terminal: type the name to confirm)',
      example: 'dpgw table delete track --yes',
      moreHelp:
        '  $ dpgw table delete track              at a terminal: type track to confirm\n  $ dpgw table delete track --dry-run    print the DELETE, send nothing\n\nWithout a terminal --yes is needed (exit 2, nothing sent); a table the store does not hold\nis exit 9. The store drops a table in the background: dpgw reads it until it is gone, for\nup to --timeout, so a table of that name can be created right after (still there: exit 1).\nIts schema stays: dpgw schema delete <name>. Delete what a manifest no longer lists with\ndpgw provision <manifest> --prune (docs/lifecycle.md).\n' + askedHelp("<name> (the store's tables)"),
      options: deleteOptions,
      handler: () => import('./table.handler.js').then((module) => module.remove),
    }),
    defineCommand({
      usage: 'status [name]',
      argumentValues: ['table'],
      description: "per partition: consuming or not, the segment's state, offsets and lag, the store's errors, and why no rows arrive; exit 6 when not all consume",
      example: 'dpgw table status track --watch 5',
      moreHelp:
        "\nColumns: PARTITION, CONSUMING, STATE (its newest segment's), ROWS, OFFSET (reached), LATEST (the\n  topic's), LAG (LATEST − OFFSET). error: lines give the store's reasons; unknown: lines the reads\n  the gateway does not pass on; diagnosis: lines why no rows arrive (paused, lost to retention, the\n  decoder drops them, no partition consumed, brokers the store cannot reach), each with its\n  numbers and the next step (docs/tables.md, \"table status\").\nExit: 0 every partition consumes; 6 one does not, the store reports an error, or a diagnosis;\n  9 no such table; 3 nothing tells whether it consumes.\n" + askedHelp("<name> (the store's tables)"),
      options: statusOptions,
      handler: () => import('./table-status.handler.js').then((module) => module.status),
    }),
    defineCommand({
      usage: 'pause [name]',
      argumentValues: ['table'],
      description: "pause the store's consumption of a real-time table: it commits the consuming segments and consumes nothing until resumed (at a terminal: asks first)",
      example: 'dpgw table pause track --yes',
      moreHelp:
        "\nWithout a terminal --yes is needed (exit 2, nothing sent); --dry-run prints the POST and sends\nnothing. A table the store does not hold is exit 9; a gateway that does not pass the store's\npause on is exit 3. The messages stay on the topic: dpgw table resume <name> goes on from the\noffsets the store holds (docs/tables.md, \"pause and resume\").\n" + askedHelp("<name> (the store's tables)"),
      options: pauseOptions,
      handler: () => import('./table-consumption.handler.js').then((module) => module.pause),
    }),
    defineCommand({
      usage: 'resume [name]',
      argumentValues: ['table'],
      description: "resume the store's consumption of a paused real-time table (at a terminal: asks first)",
      example: 'dpgw table resume track --yes',
      moreHelp:
        "\nWithout a terminal --yes is needed (exit 2, nothing sent); --dry-run prints the POST and sends\nnothing. --consume-from smallest starts from the earliest offset the topic still holds (after\nrows were lost to retention), largest from its end. A table the store does not hold is exit 9;\na gateway that does not pass the store's resume on is exit 3.\n" + askedHelp("<name> (the store's tables)"),
      options: resumeOptions,
      handler: () => import('./table-consumption.handler.js').then((module) => module.resume),
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
