/** A command is one folder: its definition and its handler side by side, listed once in the registry. */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/registry.js';
import type { CommandDefinition } from '../../src/command-kit/command-definition.js';
import { COMMAND_PATHS, TOP_LEVEL_COMMANDS } from '../helpers/command-tree.js';

const folder = new URL('../../src/commands/', import.meta.url);
const commandFolders = readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isDirectory() && entry.name !== 'shared').map((entry) => entry.name);

describe('one folder per command', () => {
  it('every top-level command has its folder with its definition and its handler, and every folder is a command', () => {
    const names = COMMANDS.map((definition) => (definition.kind === 'group' ? definition.name : definition.usage.split(' ')[0]!));
    expect(names).toEqual(TOP_LEVEL_COMMANDS);
    expect([...commandFolders].sort()).toEqual([...names].sort());
    for (const name of names) expect(readdirSync(new URL(`${name}/`, folder)).sort()).toEqual(expect.arrayContaining([`${name}.command.ts`, `${name}.handler.ts`]));
  });

  it("each definition's handler import resolves to a handler function", async () => {
    const definitions: CommandDefinition[] = COMMANDS.flatMap((definition) => (definition.kind === 'group' ? [...definition.commands] : [definition]));
    // One definition for each command a user can run: the tree's paths that have no subcommands.
    const runnable = COMMAND_PATHS.filter((path) => path.length > 0 && !COMMAND_PATHS.some((other) => other.length > path.length && path.every((word, i) => other[i] === word)));
    expect(definitions).toHaveLength(runnable.length);
    for (const definition of definitions) expect(typeof (await definition.handler()), definition.usage).toBe('function');
  });
});
