/** `dpgw schema push|get|validate|infer`: the group and each subcommand's definition (flags: schema.flags.ts); the handlers are schema.handler.ts. */
import { defineCommand, defineGroup } from '../../command-kit/command-definition.js';
import { askedHelp } from '../shared/asked-help.js';
import { pushOptions, deleteOptions, inferOptions } from './schema.flags.js';

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
      usage: 'list',
      description: 'list the schemas the analytics store holds, the tables that use each and their owners (--json: records)',
      example: 'dpgw schema list',
      moreHelp: '\nColumns: SCHEMA, TABLES (the tables whose segmentsConfig names it), OWNERS (the manifests that\n  marked those tables). — is what the gateway does not pass on (a warning says which). No\n  schemas: exit 0, a note on stderr; a gateway that does not list them: exit 3.\n',
      handler: () => import('./schema-list.handler.js').then((module) => module.list),
    }),
    defineCommand({
      usage: 'get [name]',
      argumentValues: ['schema'],
      description: "print the schema the analytics store holds (YAML; --json: the store's JSON)",
      example: 'dpgw schema get track',
      moreHelp: askedHelp('<name> (typed)'),
      handler: () => import('./schema.handler.js').then((module) => module.get),
    }),
    defineCommand({
      usage: 'delete [name]',
      argumentValues: ['schema'],
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
