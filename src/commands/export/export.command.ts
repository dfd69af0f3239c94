/** `dpgw export --output DIR`: its flags; the handler is export.handler.ts, the work src/export/. */
import { defineCommand, type CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

const exportOptions = (command: CommandFor<'export'>, kit: OptionKit) =>
  kit.scopedSettings(
    command
      .requiredOption('-o, --output <dir>', 'the folder to write provision.yaml and the schema files to (created when missing)')
      .addOption(kit.names('--dataset <name...>', 'only the tables of this data set (repeatable)', 'data set'))
      .addOption(kit.names('--table <name...>', 'only this table (repeatable)', 'table'))
      .option('--manifest <name>', 'only the tables this manifest manages (metadata.customConfigs["dpgw.manifest"]); the manifest gets name: <name>')
      .option('--force', 'replace the provision.yaml and schema files of an earlier export in the folder'),
    'table',
  );
export type ExportCommand = ReturnType<typeof exportOptions>;

export const exportCommand = defineCommand({
  usage: 'export',
  description: "write the platform's tables as a provision manifest and schema files that plan no changes (GET requests only)",
  example: 'dpgw export --output exported --dataset track',
  moreHelp:
    "\nIt writes exported/provision.yaml and a schema file per table. A table it cannot map back to a data\nset through its topic, or reproduce under this run's settings, is named in a warning and left out.\nNo endpoint, stream user or secret is written: the run that provisions the manifest brings its\nown. Under the same settings the export plans no changes (docs/export.md):\n  $ dpgw provision exported/provision.yaml --plan --detailed-exitcode    # exit 0\n",
  options: exportOptions,
  handler: () => import('./export.handler.js').then((module) => module.exportToFolder),
});
