/** `dpgw manifest schema`: the group and its definition (flags: manifest.flags.ts); the handler is manifest.handler.ts. */
import { defineCommand, defineGroup } from '../../command-kit/command-definition.js';
import { schemaOptions } from './manifest.flags.js';

export const manifest = defineGroup({
  name: 'manifest',
  description: 'the provision manifest itself (what `dpgw provision` reads)',
  commands: [
    defineCommand({
      usage: 'schema',
      description: "print the manifest's JSON Schema, which editors check manifests with (init and export copy it beside theirs)",
      example: 'dpgw manifest schema -o provision-manifest.schema.json',
      moreHelp:
        "\nA manifest whose first line is `# yaml-language-server: $schema=./provision-manifest.schema.json`\nis completed and checked as you type by editors with a YAML language server. `dpgw init` and\n`dpgw export` write that line and the file beside the manifest; after upgrading dpgw, refresh\nthe copy with --output and --force (docs/provision.md, \"Editors\").\n",
      options: schemaOptions,
      handler: () => import('./manifest.handler.js').then((module) => module.schema),
    }),
  ],
});
