/** `dpgw export --output DIR`: the flags and the types they give its handler; export.command.ts declares the command with them, and export.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

export const exportOptions = (command: CommandFor<'export'>, kit: OptionKit) =>
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
