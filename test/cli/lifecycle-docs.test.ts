/** The walk-through at the top of docs/lifecycle.md, run as written: each line in `sh`, with `dpgw` on the PATH, against the sandbox. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0, tableDeletionDelayMs: 500 });

it('docs/lifecycle.md: every line of its walk-through runs as written and exits 0', async () => {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const bin = mkdtempSync(join(tmpdir(), 'dpgw-bin-'));
  symlinkSync(BIN, join(bin, 'dpgw'));
  const page = readFileSync(join(ROOT, 'docs/lifecycle.md'), 'utf8');
  const walk = /```sh\n([\s\S]*?)```/.exec(page)![1]!.trim().split('\n');
  expect(walk.length).toBeGreaterThan(4);
  for (const line of walk) {
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile('sh', ['-c', line], { cwd: ROOT, env: { ...env, PATH: `${bin}:${process.env.PATH}` } }, (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })),
    );
    expect(result.code, `${line}\n${result.stderr}`).toBe(0);
    if (line.includes('table delete track --yes')) expect(sandbox.store.tables.has('track')).toBe(false);
    if (line.includes('schema delete track --yes')) expect(sandbox.store.schemas.has('track')).toBe(false);
  }
  // The last line created both again, under the same names.
  expect(sandbox.store.tables.has('track') && sandbox.store.schemas.has('track')).toBe(true);
}, 120_000);
