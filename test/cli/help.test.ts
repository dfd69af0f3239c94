/**
 * Every command's --help as a user's terminal gets it (80 columns, no colour), kept in
 * test/cli/__snapshots__/help/: a change of any flag, description or example shows in
 * review as the text a user reads. The list of commands comes from the command tree.
 */
import { describe, expect, it } from 'vitest';
import { COMMAND_PATHS } from '../helpers/command-tree.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';

describe('--help of every command', () => {
  it.each(COMMAND_PATHS.map((path) => [path.join(' ') || '(dpgw)', path] as const))('dpgw %s --help', async (_, path) => {
    const result = await spawnDpgw([...path, '--help']);
    expect([result.code, result.stderr]).toEqual([0, '']);
    // The global options are described once, by `dpgw --help`; every other help names them compactly.
    if (path.length > 0) expect(result.stdout).toContain('Global options (`dpgw --help` describes them):');
    // The installed package's folder differs from machine to machine: the snapshot names it <package>.
    await expect(result.stdout.replaceAll(ROOT.replace(/\/$/, ''), '<package>')).toMatchFileSnapshot(`__snapshots__/help/${path.join('-') || 'dpgw'}.txt`);
  });
});
