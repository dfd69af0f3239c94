/** `dpgw config [show|set|unset|use|profiles|path]`: the flags of each subcommand and the types they give its handlers; config.command.ts declares the command with them, and config.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';

export type ConfigShowCommand = CommandFor<'show'>;
export type ConfigSetCommand = CommandFor<'set <key> <value>'>;
export type ConfigUnsetCommand = CommandFor<'unset <key>'>;
export type ConfigUseCommand = CommandFor<'use [profile]'>;
export type ConfigProfilesCommand = CommandFor<'profiles'>;
export type ConfigPathCommand = CommandFor<'path'>;
