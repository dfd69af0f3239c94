/**
 * Before a run, `dpgw provision` reads each schema and table of its manifest. When those reads
 * would not all go at once, it asks the store's listings first and does not read by name the
 * names they lack: the built binary against the sandbox.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP, type Sandbox } from '../../src/sandbox/sandbox.js';
import { spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const DATA_SETS = ['ds01', 'ds02', 'ds03', 'ds04', 'ds05', 'ds06', 'ds07', 'ds08'];
const CONCURRENCY = 2;
const sandboxes = sandboxPerTest({ topicDelayMs: 0, seed: [{ name: 'listing-library', dataSets: DATA_SETS }] });

async function manifestRun(sandbox: Sandbox, tableSuffix = '') {
  const env = await adminPipelineEnv(sandbox);
  const file = join(env.DPGW_CONFIG_DIR!, 'provision.yaml');
  const entry = (d: string) =>
    `  - datasource: listing-library\n    dataset: ${d}\n    groups: [${TRACK_GROUP}]\n    table: { name: ${d}${tableSuffix} }\n    schema:\n      schemaName: ${d}${tableSuffix}\n      dimensionFieldSpecs: [{ name: id, dataType: STRING }]\n      dateTimeFieldSpecs: [{ name: time, dataType: LONG, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }]\n`;
  writeFileSync(file, `dataSets:\n${DATA_SETS.map(entry).join('')}`);
  return (extra: string[] = []) => spawnDpgw(['provision', file, '--no-stream-check', '--no-sample-check', '--wait-consuming', '0', '--concurrency', String(CONCURRENCY), '--json', ...extra], { env });
}

const byName = (sandbox: Sandbox, kind: 'schemas' | 'tables') => sandbox.requestLog.of('gateway', `/api/internal/olap/${kind}/`).filter((e) => e.method === 'GET');
const listings = (sandbox: Sandbox) => sandbox.requestLog.of('gateway', '/api/internal/olap/').filter((e) => e.method === 'GET' && /\/(schemas|tables)$/.test(e.path));

describe('the reads before a run', () => {
  it('a first run asks the two listings and reads none of its new names one by one', async () => {
    const sandbox = await sandboxes.start();
    const provision = await manifestRun(sandbox);
    sandbox.faults.update({ latencyMs: 100 });
    sandbox.requestLog.clear();
    const made = await provision();
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).dataSets.map((d: { status: string }) => d.status)).toEqual(DATA_SETS.map(() => 'done'));
    expect(listings(sandbox).map((e) => e.path).sort()).toEqual(['/api/internal/olap/schemas', '/api/internal/olap/tables']);
    // 16 reads by name at 2 at once would be 8 round trips; the two listings are one.
    expect([...byName(sandbox, 'schemas'), ...byName(sandbox, 'tables')]).toEqual([]);
    expect(Object.keys(Object.fromEntries(sandbox.store.tables)).sort()).toEqual(DATA_SETS);
  });

  it('a run whose tables exist reads each by name all the same, and compares it', async () => {
    const sandbox = await sandboxes.start();
    const provision = await manifestRun(sandbox);
    expect((await provision()).code).toBe(0);
    sandbox.requestLog.clear();
    const planned = await provision(['--plan']);
    expect(planned.code, planned.stderr).toBe(0);
    const steps = JSON.parse(planned.stdout).plan.flatMap((p: { steps: Array<{ step: string; action: string }> }) => p.steps.filter((s) => s.step === 'schema' || s.step === 'table'));
    expect(steps.map((s: { action: string }) => s.action)).toEqual(steps.map(() => 'none'));
    expect(byName(sandbox, 'schemas').map((e) => e.path).sort()).toEqual(DATA_SETS.map((d) => `/api/internal/olap/schemas/${d}`));
    expect(byName(sandbox, 'tables').map((e) => e.path).sort()).toEqual(DATA_SETS.map((d) => `/api/internal/olap/tables/${d}`));
  });

  it('a table the listing names in other letters is read by name (a store may compare names without case)', async () => {
    const sandbox = await sandboxes.start();
    const provision = await manifestRun(sandbox);
    sandbox.faults.update({ latencyMs: 100 });
    // The listing names every table in capitals: no name of the manifest can be taken as missing.
    sandbox.faults.update({ failures: [{ method: 'GET', path: '/api/internal/olap/tables', status: 200, body: { tables: DATA_SETS.map((d) => d.toUpperCase()) } }] });
    sandbox.requestLog.clear();
    const planned = await provision(['--plan']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(byName(sandbox, 'tables').map((e) => e.path).sort()).toEqual(DATA_SETS.map((d) => `/api/internal/olap/tables/${d}`));
  });

  it('a gateway without the listings is read name by name, and the run goes on', async () => {
    const sandbox = await sandboxes.start();
    const provision = await manifestRun(sandbox);
    const noRoute = (path: string) => ({ method: 'GET', path, status: 404, body: { status: 404, error: 'Not Found', message: `No static resource ${path.slice(1)}.`, path } });
    sandbox.faults.update({ latencyMs: 50, failures: [noRoute('/api/internal/olap/schemas'), noRoute('/api/internal/olap/tables')] });
    sandbox.requestLog.clear();
    const made = await provision();
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).not.toMatch(/listing|No static resource/);
    expect(byName(sandbox, 'schemas')).toHaveLength(DATA_SETS.length);
    expect(byName(sandbox, 'tables').length).toBeGreaterThanOrEqual(DATA_SETS.length);
    expect(Object.keys(Object.fromEntries(sandbox.store.tables)).sort()).toEqual(DATA_SETS);
  });
});
