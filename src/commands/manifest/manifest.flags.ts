/** `dpgw manifest schema`: the flags and the types they give its handler; manifest.command.ts declares the command with them, and manifest.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

export const schemaOptions = (command: CommandFor<'schema'>, _kit: OptionKit) =>
  command
    .option('-o, --output <file>', 'write the file here (default: standard output); an existing file that differs is refused without --force')
    .option('--force', 'replace an existing --output file that differs (an older copy, after upgrading dpgw)');
export type ManifestSchemaCommand = ReturnType<typeof schemaOptions>;
