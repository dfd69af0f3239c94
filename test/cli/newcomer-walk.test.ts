/**
 * The pages as a new user runs them: one shell, one folder, the examples in the order the pages give them, after
 * the README's quick start. Each example's own test may start from a fresh platform; a newcomer does not.
 */
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dpgwOnPath, inSh } from '../helpers/documented-examples.js';
import { ROOT } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

/** A folder with `examples` beside it, as in a clone, and `dpgw` on the PATH; runs a line in sh there. */
async function newcomer() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const bin = dpgwOnPath();
  const workspace = mkdtempSync(join(tmpdir(), 'dpgw-newcomer-'));
  symlinkSync(join(ROOT, 'examples'), join(workspace, 'examples'));
  const sh = async (line: string) => ({ ...(await inSh(line, { cwd: workspace, env: { ...env, PATH: `${bin}:${process.env.PATH}` } })), cwd: workspace });
  return { sh };
}

/** The lines of the first `sh` block after `marker` in a page. */
function block(page: string, marker: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const from = text.indexOf(marker);
  expect(from, marker).toBeGreaterThanOrEqual(0);
  return /```sh\n([\s\S]*?)```/.exec(text.slice(from))![1]!.trim().split('\n');
}

describe('the pages, run in order in one folder', () => {
  it("docs/schema-infer.md: every example but kcat's, then its sandbox section's, one after the other: no -o refuses the file an earlier line wrote", async () => {
    const { sh } = await newcomer();
    expect((await sh('dpgw enable --datasource mock-data-library --dataset track --group track-readers')).code).toBe(0);
    const lines = [...block('docs/schema-infer.md', '# `dpgw schema infer`'), ...block('docs/schema-infer.md', 'so this works offline')]
      .filter((line) => !line.startsWith('kcat '))
      // The sandbox section names the profile `dpgw sandbox --write-profile sandbox` writes; here the environment holds its settings.
      .map((line) => line.replace('dpgw --profile sandbox ', 'dpgw '));
    expect(lines).toHaveLength(6);
    for (const line of lines) {
      const result = await sh(line);
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
    }
  });

  it("the quick start's init names its manifest after its folder: examples/track/provision.yaml, which gives itself name: track too, manages the same table; a manifest of another name is refused it, and its plan counts no change", async () => {
    const { sh } = await newcomer();
    const init = await sh('dpgw init track --datasource mock-data-library --dataset track --group track-readers --from-messages examples/track/track-messages.jsonl');
    expect(init.code, init.stderr).toBe(0);
    expect(readFileSync(join(init.cwd, 'track/provision.yaml'), 'utf8')).toMatch(/^name: track {2}# its tables carry it/m);
    expect((await sh('dpgw provision track/provision.yaml --wait-consuming 0')).code).toBe(0);
    const same = await sh('dpgw provision examples/track/provision.yaml --plan');
    expect(same.code, same.stdout + same.stderr).toBe(0);
    expect(same.stdout).not.toContain('refused');
    // Another name: refused, the same words given and taken explained, and nothing of it counted as a change.
    const other = await sh("sed 's/^name: track/name: fleet/' track/provision.yaml > fleet.yaml && sed -i 's|schema: schema.yaml|schema: track/schema.yaml|' fleet.yaml && dpgw provision fleet.yaml --plan");
    expect(other.code, other.stderr).toBe(2);
    expect(other.stdout).toContain('refused: table track belongs to manifest track, not to this manifest, fleet, by its mark');
    expect(other.stdout.trim().split('\n').at(-1)).toBe('1 data set refused: the run would fail (exit 2)');
  });
});
