/**
 * `dpgw init` for a data set not enabled yet (issue #48 §3): beside a schema or messages file, it writes the manifest's
 * `schema: { infer: … }` — inferred by the first run from the topic once it has enabled the data set — by a flag
 * or chosen at a terminal; the refusal without one names it, and asks for no flag already given.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { atTerminal, DOWN, ENTER, screen } from '../helpers/at-terminal.js';
import { runInProcess } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest();
const newFolder = () => join(mkdtempSync(join(tmpdir(), 'dpgw-init-infer-')), 'vessel');

describe('dpgw init --infer-at-first-run', () => {
  it('writes schema: { infer } with the shaping flags and no schema file; the plan enables the data set, and the run infers the schema and makes the table', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const folder = newFolder();
    const argv = ['init', folder, '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', TRACK_GROUP, '--infer-at-first-run', '--metric', 'asset', '--sample', '50', '--no-input'];
    const written = await runInProcess(argv, env);
    expect(written.code, written.stderr).toBe(0);
    // Nothing read from the topic, nothing sent.
    expect(written.stderr).not.toContain('cannot read a sample');
    expect(sandbox.requestLog.of('gateway').filter((r) => r.method !== 'GET')).toEqual([]);
    expect(readdirSync(folder).sort()).toEqual(['provision-manifest.schema.json', 'provision.yaml']);
    const text = readFileSync(join(folder, 'provision.yaml'), 'utf8');
    expect(parse(text).dataSets[0]).toEqual({ datasource: 'mock-data-library', dataset: 'vessel', enablement: 'vessel', groups: [TRACK_GROUP], schema: { infer: { sample: 50, metrics: ['asset'] } }, table: { name: 'vessel', retentionDays: 7 } });
    expect(text).toMatch(/^ {6}infer: \{ sample: 50, metrics: \[ asset \] \} {2}# inferred by the first run from the topic, once it has enabled the data set$/m);
    expect(JSON.parse((await runInProcess([...argv.slice(0, -1), '--force', '--json'], env)).stdout).schemaInfer).toEqual({ infer: { sample: 50, metrics: ['asset'] } });

    const plan = await runInProcess(['provision', join(folder, 'provision.yaml'), '--plan', '--detailed-exitcode', '--json'], env);
    expect(plan.code, plan.stderr).toBe(7);
    expect((JSON.parse(plan.stdout).plan[0].steps as Array<{ step: string; action: string }>).find((s) => s.step === 'enable')?.action).toBe('create');
    const run = await runInProcess(['provision', join(folder, 'provision.yaml')], env);
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox.store.tables.get('vessel')?.definition.segmentsConfig.schemaName).toBe('vessel');
  });

  it('beside --schema or --from-messages: refused, exit 2, nothing written; --table and --time-column go into the infer block', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const folder = newFolder();
    const result = await runInProcess(['init', folder, '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', TRACK_GROUP, '--from-messages', 'examples/track/track-messages.jsonl', '--infer-at-first-run'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dpgw: --infer-at-first-run: give one of --from-messages, --infer-at-first-run, not both/m);
    expect(existsSync(folder)).toBe(false);

    // A table named otherwise names the schema the run infers, as init names a schema it infers itself.
    const named = await runInProcess(['init', folder, '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', TRACK_GROUP, '--infer-at-first-run', '--table', 'vessel_live', '--time-column', 'time', '--no-input'], env);
    expect(named.code, named.stderr).toBe(0);
    expect(parse(readFileSync(join(folder, 'provision.yaml'), 'utf8')).dataSets[0]).toMatchObject({ schema: { infer: { name: 'vessel_live', timeColumn: 'time' } }, table: { name: 'vessel_live' } });
  });

  it('at a terminal, for a data set not enabled: offered beside the two files, and the command line printed carries it', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const folder = newFolder();
    const result = await atTerminal(['init', folder, '--datasource', 'mock-data-library', '--dataset', 'vessel', '--enablement', 'vessel', '--group', TRACK_GROUP], {
      env,
      timeoutSeconds: 25,
      steps: [
        { when: 'Take the schema from:', keys: `${DOWN}${DOWN}${ENTER}` },
        { when: 'Table name:', keys: ENTER },
        { when: 'Retention in days:', keys: ENTER },
        { when: 'Run the plan now?', keys: `n${ENTER}` },
      ],
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain(`(to read it, stop here and enable it first: dpgw enable --datasource mock-data-library --dataset vessel --group ${TRACK_GROUP})`);
    expect(text).toContain('the topic, inferred by the first run after enabling it (--infer-at-first-run)');
    expect(text).toMatch(/same without questions: dpgw init \S+ --datasource mock-data-library --dataset vessel --enablement vessel --group track-readers --infer-at-first-run --table vessel --retention-days 7/);
    // No columns to ask about: the first run infers them.
    expect(text).not.toContain('Metrics');
    expect(parse(readFileSync(join(folder, 'provision.yaml'), 'utf8')).dataSets[0].schema).toEqual({ infer: {} });
  });
});
