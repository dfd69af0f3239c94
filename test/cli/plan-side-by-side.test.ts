/** `dpgw provision --plan` walks its data sets side by side, as the run does: the built binary against the sandbox. */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 50 });

/** Gateway requests as spans of time, from the sandbox's log. */
function spans(entries: Array<{ method: string; path: string; at: string; durationMs?: number }>) {
  return entries.map((e) => ({ what: `${e.method} ${e.path}`, start: Date.parse(e.at), end: Date.parse(e.at) + (e.durationMs ?? 0) }));
}

describe('dpgw provision --plan', () => {
  it('plans data sets side by side up to --concurrency: their reads overlap, the results stay in manifest order', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const dataSets = ['track', 'vessel', 'weather'];
    // Inferred schemas: each data set's plan infers its schema from its topic and reads the store's schema of that name itself.
    const file = join(env.DPGW_CONFIG_DIR!, 'provision.yaml');
    writeFileSync(file, `dataSets:\n${dataSets.map((d) => `  - { datasource: mock-data-library, dataset: ${d}, groups: [${TRACK_GROUP}], schema: { infer: { sample: 20 } }, table: { name: ${d} } }\n`).join('')}`);
    const dpgw = (args: string[]) => spawnDpgw(args, { env });
    // Enabled first, so that the plan has topics to infer from.
    const made = await dpgw(['provision', file, '--wait-consuming', '0', '--json']);
    expect(made.code, made.stderr).toBe(0);

    // A gateway 300 ms away: one data set after another, their schema reads could not overlap.
    sandbox.faults.update({ latencyMs: 300 });
    sandbox.requestLog.clear();
    const planned = await dpgw(['provision', file, '--plan', '--json', '--concurrency', String(dataSets.length)]);
    expect(planned.code, planned.stderr).toBe(0);
    const { plan } = JSON.parse(planned.stdout);
    expect(plan.map((p: { dataset: string }) => p.dataset)).toEqual(dataSets);
    expect(plan.map((p: { steps: Array<{ step: string; action: string }> }) => p.steps.find((s) => s.step === 'schema')!.action)).toEqual(['none', 'none', 'none']);

    const schemaReads = spans(sandbox.requestLog.of('gateway', '/api/internal/olap/schemas/'));
    expect(schemaReads.map((s) => s.what).sort()).toEqual(dataSets.map((d) => `GET /api/internal/olap/schemas/${d}`));
    // Each starts before the others end: on the wire together.
    const lastStart = Math.max(...schemaReads.map((s) => s.start));
    const firstEnd = Math.min(...schemaReads.map((s) => s.end));
    expect(lastStart).toBeLessThan(firstEnd);
  });
});
