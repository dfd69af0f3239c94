/**
 * README's quick start and the walk-through of docs/init.md, run as written: each line in
 * `sh`, with `dpgw` on the PATH, in a fresh folder beside the package's examples, against
 * a sandbox this test starts and signed in as its admin (the quick start's `dpgw sandbox`
 * and `dpgw login` lines do the same: test/cli/sandbox-command.test.ts and
 * test/cli/password-prompt.test.ts run those commands).
 */
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { init } from '../../src/commands/init/init.command.js';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { dpgwOnPath, inSh } from '../helpers/documented-examples.js';
import { ROOT, runInProcess } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

/** The lines of the first `sh` block after `heading` in a page. */
function shLines(page: string, heading: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const from = text.indexOf(heading);
  expect(from, `${page} has ${heading}`).toBeGreaterThanOrEqual(0);
  return /```sh\n([\s\S]*?)```/.exec(text.slice(from))![1]!.trim().split('\n');
}

async function runLines(lines: readonly string[], before?: (env: NodeJS.ProcessEnv) => Promise<void>): Promise<{ folder: string; sandbox: Awaited<ReturnType<typeof sandboxes.start>> }> {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  await before?.(env);
  const bin = dpgwOnPath();
  const folder = mkdtempSync(join(tmpdir(), 'dpgw-quick-start-'));
  symlinkSync(join(ROOT, 'examples'), join(folder, 'examples'));
  for (const line of lines) {
    const result = await inSh(line, { cwd: folder, env: { ...env, PATH: `${bin}:${process.env.PATH}` } });
    expect(result.code, `${line}\n${result.stderr}`).toBe(0);
  }
  return { folder, sandbox };
}

it("README's quick start: init writes the manifest, its plan and its run succeed, and the table is there", async () => {
  const lines = shLines('README.md', '## Quick start');
  expect(lines[0]).toMatch(/^dpgw sandbox --write-profile sandbox /);
  expect(lines[1]).toMatch(/^dpgw login /);
  expect(lines[2]).toMatch(/^dpgw init /);
  // Signed in as admin by the test (test/cli/password-prompt.test.ts runs `dpgw login` at a terminal).
  const { folder, sandbox } = await runLines(lines.slice(2));
  expect(parse(readFileSync(join(folder, 'track/provision.yaml'), 'utf8')).dataSets[0]).toMatchObject({ dataset: 'track', schema: 'schema.yaml', table: { name: 'track' } });
  expect(sandbox.store.tables.has('track')).toBe(true);
}, 60_000);

it('docs/init.md: its walk-through runs as written, the plan exiting 7', async () => {
  const { sandbox } = await runLines(shLines('docs/init.md', '# `dpgw init`'));
  expect(sandbox.store.tables.has('track')).toBe(true);
}, 60_000);

it("`dpgw init --help`: its example and the plan line after it run as written, reading the enabled data set's topic", async () => {
  const planLine = /\$ (dpgw provision \S+ --plan)/.exec(init.moreHelp!)![1]!;
  const { folder } = await runLines([init.example, planLine], async (env) => {
    expect((await runInProcess(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP], env)).code).toBe(0);
  });
  expect(readFileSync(join(folder, 'track/provision.yaml'), 'utf8')).toMatch(/schema: schema.yaml {2}# inferred from \d+ messages of topic mock-data-library.track.track/);
}, 60_000);
