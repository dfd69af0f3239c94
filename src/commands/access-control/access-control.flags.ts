/** `dpgw access-control render|check`: the flags of each subcommand and the types they give its handlers; access-control.command.ts declares the command with them, and access-control.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

export const renderOptions = (command: CommandFor<'render'>, kit: OptionKit) => kit
    .scopedSettings(command, 'access')
    .option('-o, --output <file>', 'write the file here (default: standard output); an existing file that differs is refused without --force')
    .option('--force', 'replace an existing --output file that differs');
export const checkOptions = (command: CommandFor<'check <file>'>, kit: OptionKit) => kit.scopedSettings(command, 'access');
export type AccessControlRenderCommand = ReturnType<typeof renderOptions>;
export type AccessControlCheckCommand = ReturnType<typeof checkOptions>;
