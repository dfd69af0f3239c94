/**
 * The store's own validation in the plan (issue #47 §3): the built binary against the sandbox,
 * whose gateway passes the store's validate calls on. A table the local checks pass and the
 * store refuses (a server tenant it has no servers for) is refused by the plan at the manifest's
 * line, in the store's words, exit 2; a property the store does not recognise is a warning at its
 * template line; a gateway without the calls says so once per run; and the calls store nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchemaBeside } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

interface PlannedStep {
  step: string;
  action: string;
  reason: string;
}

async function setUp(options: SandboxOptions = {}) {
  const sandbox = await sandboxes.start(options);
  const env = await adminPipelineEnv(sandbox);
  const folder = env.DPGW_CONFIG_DIR!;
  trackSchemaBeside(folder);
  /** dpgw's own template with `edit` applied, written beside the manifest. */
  const template = (name: string, edit: (text: string) => string) => {
    const text = edit(readFileSync(join(ROOT, 'templates/realtime-table.yaml'), 'utf8'));
    writeFileSync(join(folder, name), text);
    return { file: join(folder, name), lineOf: (line: string) => text.split('\n').indexOf(line) + 1 };
  };
  const manifest = (entries: string[]) => {
    const file = join(folder, 'provision.yaml');
    writeFileSync(file, `dataSets:\n${entries.join('')}`);
    return file;
  };
  const entry = (dataset: string, table = '') => `  - datasource: mock-data-library\n    dataset: ${dataset}\n    groups: [${TRACK_GROUP}]\n    schema: track-schema.yaml\n    table: { name: ${dataset}${table} }\n`;
  const plan = (file: string) => spawnDpgw(['provision', file, '--plan', '--json', '--no-stream-check', '--no-sample-check'], { env });
  const validateCalls = () => sandbox.requestLog.of('gateway').filter((e) => e.path.endsWith('/validate'));
  const changing = () => sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET' && !e.path.endsWith('/validate'));
  const stepsOf = (stdout: string, dataset: string): PlannedStep[] => JSON.parse(stdout).plan.find((p: { dataset: string }) => p.dataset === dataset).steps;
  return { sandbox, env, folder, template, manifest, entry, plan, validateCalls, changing, stepsOf };
}

describe('the store validates the plan', () => {
  it('a table the store refuses is refused at the manifest line, in the store words, exit 2, and nothing is stored', async () => {
    const { sandbox, template, manifest, entry, plan, validateCalls, changing, stepsOf } = await setUp();
    // The local checks take any tenant name; the sandbox's store has servers for DefaultTenant only.
    template('analytics-tenant.yaml', (text) => text.replace('  server: ${serverTenant}', '  server: Analytics'));
    const file = manifest([entry('track', ', template: analytics-tenant.yaml'), entry('vessel')]);
    const planned = await plan(file);
    expect(planned.code, planned.stderr).toBe(2);
    const table = stepsOf(planned.stdout, 'track').find((s) => s.step === 'table')!;
    expect(table.action).toBe('refused');
    // The table entry of the first data set is on line 6 of the manifest, its mapping at column 12.
    expect(table.reason).toContain(`the store refuses table track (${file}:6:12): Invalid TableConfigs: track. Failed to find instances with tag: Analytics_REALTIME for table: track_REALTIME`);
    expect(stepsOf(planned.stdout, 'track').filter((s) => ['storage', 'consume'].includes(s.step)).map((s) => s.action)).toEqual(['blocked', 'blocked']);
    // The other data set is judged valid: its table would be created.
    expect(stepsOf(planned.stdout, 'vessel').find((s) => s.step === 'table')!.action).toBe('create');
    expect(validateCalls().map((e) => `${e.method} ${e.path}`)).toEqual(['POST /api/internal/olap/tableConfigs/validate', 'POST /api/internal/olap/tableConfigs/validate']);
    expect(changing()).toEqual([]);
    expect(sandbox.store.schemas.size + sandbox.store.tables.size).toBe(0);
  });

  it('a property the store does not recognise is a warning at its template line, once for the data sets that share it; the plan goes on', async () => {
    const { template, manifest, entry, plan, stepsOf } = await setUp();
    const typo = template('typo.yaml', (text) => text.replace('  loadMode: MMAP\n', '  loadMode: MMAP\n  invertedIndexColumn: [origin, objType]\n'));
    const planned = await plan(manifest([entry('track', ', template: typo.yaml'), entry('vessel', ', template: typo.yaml')]));
    expect(planned.code, planned.stderr).toBe(0);
    const warnings = planned.stderr.split('\n').filter((line) => line.includes('does not recognise'));
    // One line for the list, at its key, though the store names each of its elements, and though two data sets share the template.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${typo.file}:${typo.lineOf('  invertedIndexColumn: [origin, objType]')}:3: the store does not recognise the table field tableIndexConfig.invertedIndexColumn`);
    expect(stepsOf(planned.stdout, 'track').find((s) => s.step === 'table')!.action).toBe('create');
  });

  it('a gateway without the validate calls: one line for the run, not one per data set, and the plan as before', async () => {
    const { manifest, entry, plan, validateCalls, stepsOf } = await setUp({ storeValidateCalls: false });
    const planned = await plan(manifest([entry('track'), entry('vessel'), entry('weather')]));
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stderr.match(/not validated by the store/g)).toHaveLength(1);
    expect(stepsOf(planned.stdout, 'weather').find((s) => s.step === 'table')!.action).toBe('create');
    // The combined call, then the schema's own, are each asked once: the run remembers neither is there.
    expect(validateCalls().map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual(['POST /api/internal/olap/tableConfigs/validate 404', 'POST /api/internal/olap/schemas/validate 405']);
  });

  it('table create --dry-run: the store refuses at the template, exit 2; the stream password is never in a validate call', async () => {
    const { sandbox, env, folder, template, validateCalls, changing } = await setUp();
    const dpgw = (args: string[]) => spawnDpgw(args, { env });
    const tenant = template('analytics-tenant.yaml', (text) => text.replace('  server: ${serverTenant}', '  server: Analytics'));
    const schema = join(folder, 'track-schema.yaml');
    expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
    expect((await dpgw(['schema', 'push', schema])).code).toBe(0);
    const before = changing().length;
    const dry = await dpgw(['table', 'create', '--dataset', 'track', '--schema', schema, '--template', tenant.file, '--no-sample-check', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(2);
    const table = JSON.parse(dry.stdout).steps.find((s: PlannedStep) => s.step === 'table');
    expect(table).toMatchObject({ action: 'refused', reason: expect.stringContaining(`the store refuses table track (${tenant.file}): Invalid TableConfigs: track. Failed to find instances with tag: Analytics_REALTIME`) });
    expect(changing()).toHaveLength(before);
    expect(validateCalls().length).toBeGreaterThan(0);
    // The checks read no connection: the password is masked before the table leaves.
    expect(JSON.stringify(validateCalls().map((e) => e.body))).not.toContain(sandbox.stream.password);
    expect(JSON.stringify(validateCalls().map((e) => e.body))).toContain('password=\\"***\\"');
  });

  it('a store of 1.5+ that names the dangling tasks of a table that exists is asked again without ACTIVE_TASKS; a new table keeps the refusal', async () => {
    const { sandbox, env, manifest, entry, plan, validateCalls, stepsOf } = await setUp();
    const file = manifest([entry('track')]);
    expect((await spawnDpgw(['provision', file, '--no-stream-check', '--no-sample-check', '--wait-consuming', '0'], { env })).code).toBe(0);
    const dangling = { method: 'POST', path: '/api/internal/olap/tableConfigs/validate', status: 400, body: { code: 400, error: 'Invalid TableConfigs: track. The table has dangling task data, try performing table delete operation' } };
    // The table exists and its retention differs: the run would PUT it, which meets no such check.
    manifest([entry('track', ', retentionDays: 60')]);
    sandbox.faults.update({ failures: [dangling] });
    sandbox.requestLog.clear();
    const updated = await plan(file);
    expect(updated.code, updated.stderr).toBe(0);
    expect(stepsOf(updated.stdout, 'track').find((s) => s.step === 'table')!.action).toBe('update');
    expect(validateCalls().map((e) => `${e.status} ${JSON.stringify(e.query)}`)).toEqual(['400 {}', '200 {"validationTypesToSkip":"ACTIVE_TASKS"}']);
    // A table to create: the store's words stand (its POST makes the same check).
    manifest([entry('vessel')]);
    sandbox.faults.update({ failures: [{ ...dangling, times: 1 }] });
    sandbox.requestLog.clear();
    const created = await plan(file);
    expect(created.code, created.stderr).toBe(2);
    expect(stepsOf(created.stdout, 'vessel').find((s) => s.step === 'table')).toMatchObject({ action: 'refused', reason: expect.stringContaining('The table has dangling task data') });
    expect(validateCalls().map((e) => `${e.status} ${JSON.stringify(e.query)}`)).toEqual(['400 {}']);
  });

  it('the run sends no validate call: the plan is where the store is asked', async () => {
    const { sandbox, manifest, entry, env, validateCalls } = await setUp();
    const file = manifest([entry('track')]);
    const made = await spawnDpgw(['provision', file, '--json', '--no-stream-check', '--no-sample-check', '--wait-consuming', '0'], { env });
    expect(made.code, made.stderr).toBe(0);
    expect(validateCalls()).toEqual([]);
    expect(sandbox.store.tables.has('track')).toBe(true);
  });
});
