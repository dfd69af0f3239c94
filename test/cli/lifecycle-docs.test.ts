/** The walk-through at the top of docs/lifecycle.md, run as written: each line in `sh`, with `dpgw` on the PATH, against the sandbox. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { dpgwOnPath, inSh } from '../helpers/documented-examples.js';
import { ROOT } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0, tableDeletionDelayMs: 500 });

it('docs/lifecycle.md: every line of its walk-through runs as written and exits 0', async () => {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const bin = dpgwOnPath();
  const page = readFileSync(join(ROOT, 'docs/lifecycle.md'), 'utf8');
  const walk = /```sh\n([\s\S]*?)```/.exec(page)![1]!.trim().split('\n');
  expect(walk.length).toBeGreaterThan(4);
  for (const line of walk) {
    const result = await inSh(line, { cwd: ROOT, env: { ...env, PATH: `${bin}:${process.env.PATH}` } });
    expect(result.code, `${line}\n${result.stderr}`).toBe(0);
    if (line.includes('table delete track --yes')) expect(sandbox.store.tables.has('track')).toBe(false);
    if (line.includes('schema delete track --yes')) expect(sandbox.store.schemas.has('track')).toBe(false);
  }
  // The last line created both again, under the same names.
  expect(sandbox.store.tables.has('track') && sandbox.store.schemas.has('track')).toBe(true);
}, 120_000);
