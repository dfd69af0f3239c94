/** dpgw provision as a pipeline runs it: the built binary against the sandbox. */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planDocument, planJsonSchema } from '../../src/provision/plan-format.js';
import { manifestJsonSchema } from '../../src/provision/manifest.js';
import { TRACK_GROUP, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { closedPort } from '../helpers/recording-server.js';
import { BIN, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv, changesThePlatform } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { TRACK_SCHEMA_FILE, trackSchemaBeside } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 50 });

async function setUp(options: SandboxOptions = {}) {
  const sandbox = await sandboxes.start(options);
  const env = await adminPipelineEnv(sandbox);
  const manifest = (text: string) => {
    const file = join(env.DPGW_CONFIG_DIR!, 'provision.yaml');
    writeFileSync(file, text);
    trackSchemaBeside(env.DPGW_CONFIG_DIR!);
    return file;
  };
  const dpgw = (args: string[], extra: NodeJS.ProcessEnv = {}) => spawnDpgw(args, { env: { ...env, ...extra } });
  const gatewayLog = () => sandbox.requestLog.of('gateway');
  return { sandbox, env, manifest, dpgw, gatewayLog };
}

const entry = (dataset: string, extra = '') => `  - { datasource: mock-data-library, dataset: ${dataset}, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: ${dataset} }${extra} }\n`;
const threeDataSets = `dataSets:\n${entry('track')}${entry('vessel')}${entry('weather')}`;

describe('dpgw provision', () => {
  it('runs each data set in the contract order', async () => {
    const { dpgw, gatewayLog } = await setUp();
    const result = await dpgw(['provision', join(ROOT, 'examples/track/provision.yaml'), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ ok: true, changed: true, interrupted: false, health: { status: 'UP' } });
    expect(summary.dataSets[0]).toMatchObject({ dataset: 'track', topic: 'mock-data-library.track.track', status: 'done' });
    expect(summary.dataSets[0].steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable changed', 'stream passed', 'sample passed', 'schema changed', 'table changed', 'storage changed', 'consume passed']);
    const order = gatewayLog()
      .filter((e) => e.method !== 'GET' || e.path.includes('/storages/'))
      .map((e) => `${e.method} ${e.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}')}`);
    expect(order).toEqual([
      'POST /api/v2/catalog/datasources/{id}/enablements',
      'PUT /api/v2/catalog/datasources/{id}/enablements/{id}/datasets/track',
      'POST /api/internal/olap/schemas',
      'POST /api/internal/olap/tables',
      'GET /api/v2/catalog/datasources/{id}/enablements/{id}/datasets/{id}/storages/{id}',
    ]);
    expect(sandboxes.current().catalog.canRead('track', [TRACK_GROUP])).toBe(true);
  });

  it('--plan shows the steps and the filled definitions and sends no mutating request', async () => {
    const { dpgw, manifest, gatewayLog } = await setUp();
    const result = await dpgw(['provision', manifest(threeDataSets), '--plan', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { plan } = JSON.parse(result.stdout);
    expect(plan.map((p: { dataset: string }) => p.dataset)).toEqual(['track', 'vessel', 'weather']);
    expect(plan[0].steps.map((s: { step: string }) => s.step)).toEqual(['enable', 'stream', 'sample', 'schema', 'table', 'storage', 'consume']);
    const table = plan[0].steps.find((s: { step: string }) => s.step === 'table').request.body;
    expect(table.tableIndexConfig.streamConfigs['sasl.jaas.config']).toContain('password="***"');
    expect(result.stdout).not.toContain(sandboxes.current().stream.password);
    expect(gatewayLog().filter(changesThePlatform)).toEqual([]);
    const human = await dpgw(['provision', manifest(threeDataSets), '--dry-run']);
    expect(human.stdout).toContain('plan: nothing was sent that changes the platform');
    expect(gatewayLog().filter(changesThePlatform)).toEqual([]);
  });

  it('is safe to re-run: the second run changes nothing and says so per step', async () => {
    const { dpgw, manifest, gatewayLog } = await setUp();
    const file = manifest(threeDataSets);
    const first = await dpgw(['provision', file, '--detailed-exitcode', '--concurrency', '2']);
    expect(first.code, first.stderr).toBe(7);
    const enablementsCreated = gatewayLog().filter((e) => e.method === 'POST' && e.path.endsWith('/enablements')).length;
    const second = await dpgw(['provision', file, '--detailed-exitcode', '--json']);
    expect(second.code, second.stderr).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary.changed).toBe(false);
    for (const result of summary.dataSets) {
      expect(result.steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable unchanged', 'stream passed', 'sample passed', 'schema unchanged', 'table unchanged', 'storage accepted', 'consume passed']);
    }
    expect(gatewayLog().filter((e) => e.method === 'POST' && e.path.endsWith('/enablements')).length).toBe(enablementsCreated);
    expect((await dpgw(['provision', file, '--fail-on-exists'])).code).toBe(3);
  });

  it("sends each data set only the contract's requests, and asks the catalog's listings once per run", async () => {
    const { dpgw, manifest, gatewayLog } = await setUp({ topicDelayMs: 0 });
    const file = manifest(threeDataSets);
    const shape = (e: { method: string; path: string }) => `${e.method} ${e.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}')}`;
    const count = (lines: string[]) => lines.reduce((counts, line) => counts.set(line, (counts.get(line) ?? 0) + 1), new Map<string, number>());

    expect((await dpgw(['provision', file, '--concurrency', '3'])).code).toBe(0);
    const first = count(gatewayLog().map(shape));
    expect(Object.fromEntries(first)).toEqual({
      // Once per run: the version and the catalog's listings.
      'GET /api/version': 1,
      'GET /api/v2/catalog/datasources': 1,
      'GET /api/v2/catalog/datasources/{id}/datasets': 1,
      'GET /api/v2/catalog/datasources/{id}/enablements': 1,
      // The schema (the three share one) and each table are read before anything changes, to
      // compare and to see whose a table is (its manifest's mark). Four reads by name would not
      // all go at --concurrency 3: the store's listings are asked instead, and none of the
      // names is in them, so none is read by name (docs/gateway-api.md, "The listings before a run").
      'GET /api/internal/olap/schemas': 1,
      'GET /api/internal/olap/tables': 1,
      // Each of the three data sets: the six requests of the contract on 1.15.164, nothing more.
      'POST /api/v2/catalog/datasources/{id}/enablements': 3,
      'PUT /api/v2/catalog/datasources/{id}/enablements/{id}/datasets/track': 1,
      'PUT /api/v2/catalog/datasources/{id}/enablements/{id}/datasets/vessel': 1,
      'PUT /api/v2/catalog/datasources/{id}/enablements/{id}/datasets/weather': 1,
      'GET /api/v2/catalog/datasources/{id}/enablements/{id}/datasets': 3,
      'POST /api/internal/olap/schemas': 3,
      'POST /api/internal/olap/tables': 3,
      'GET /api/v2/catalog/datasources/{id}/enablements/{id}/datasets/{id}/storages/{id}': 3,
      // And the proof that each table consumes (assumed endpoint), answered at once by the sandbox.
      'GET /api/internal/olap/tables/track/consumingSegmentsInfo': 1,
      'GET /api/internal/olap/tables/vessel/consumingSegmentsInfo': 1,
      'GET /api/internal/olap/tables/weather/consumingSegmentsInfo': 1,
    });

    // Again: the listing of every data set, read once, says all three are enabled with their topics.
    sandboxes.current().requestLog.clear();
    const again = await dpgw(['provision', file, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).dataSets.map((d: { steps: Array<{ status: string }> }) => d.steps[0]!.status)).toEqual(['unchanged', 'unchanged', 'unchanged']);
    const second = count(gatewayLog().map(shape));
    expect(second.get('GET /api/v2/catalog/datasources/all/enablements/all/datasets')).toBe(1);
    expect([...second.keys()].filter((line) => line.startsWith('PUT') || line.startsWith('POST /api/v2'))).toEqual([]);
    expect(second.get('GET /api/v2/catalog/datasources/{id}/enablements/{id}/datasets')).toBeUndefined();
  });

  it('resumes after a failure at table create', async () => {
    const { dpgw, sandbox } = await setUp();
    sandbox.faults.update({ failures: [{ method: 'POST', path: '/api/internal/olap/tables', status: 500, times: 1 }] });
    const file = join(ROOT, 'examples/track/provision.yaml');
    const failed = await dpgw(['provision', file, '--json']);
    expect(failed.code).toBe(3);
    const first = JSON.parse(failed.stdout);
    expect(first.dataSets[0].status).toBe('failed');
    expect(first.dataSets[0].steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable changed', 'stream passed', 'sample passed', 'schema changed', 'table failed', 'storage blocked', 'consume blocked']);
    expect(failed.stderr).toContain('track: POST');
    expect(sandbox.store.tables.size).toBe(0);
    const resumed = await dpgw(['provision', file, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).dataSets[0].steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable unchanged', 'stream passed', 'sample passed', 'schema unchanged', 'table changed', 'storage changed', 'consume passed']);
    expect([...sandbox.store.tables.keys()]).toEqual(['track']);
  });

  it('one failing data set does not stop the others (unless --fail-fast)', async () => {
    const { dpgw, manifest, sandbox } = await setUp();
    const file = manifest(`dataSets:\n${entry('track')}${entry('vessel', ', table: { name: vessel, topic: no-such-topic }').replace('table: { name: vessel }, ', '')}${entry('weather')}`);
    const result = await dpgw(['provision', file, '--concurrency', '3', '--json']);
    // The stream pre-flight finds the topic missing: vessel fails before its schema and table.
    expect(result.code).toBe(1);
    const summary = JSON.parse(result.stdout);
    expect(summary.dataSets.map((r: { dataset: string; status: string }) => `${r.dataset} ${r.status}`)).toEqual(['track done', 'vessel failed', 'weather done']);
    expect(summary.dataSets[1].error.message).toBe('table vessel would never consume: topic no-such-topic does not exist on the brokers');
    expect([...sandbox.store.tables.keys()].sort()).toEqual(['track', 'weather']);
    expect(result.stderr).toMatch(/dpgw: vessel: .*no-such-topic/);
  });

  it('--fail-fast starts no data set after the first failure', async () => {
    const { dpgw, manifest } = await setUp();
    const file = manifest(`dataSets:\n${entry('vessel', ', table: { name: vessel, topic: no-such-topic }').replace('table: { name: vessel }, ', '')}${entry('track')}${entry('weather')}`);
    const result = await dpgw(['provision', file, '--concurrency', '1', '--fail-fast', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).dataSets.map((r: { status: string }) => r.status)).toEqual(['failed', 'skipped', 'skipped']);
  });

  it('asks its reads before the run together, the gateway never holding more than --concurrency + 2 of its requests at once', async () => {
    // A gateway 40 ms away, as from a laptop or a hosted runner: round trips one after another add up.
    const { dpgw, manifest, gatewayLog } = await setUp({ faults: { latencyMs: 40 } });
    const result = await dpgw(['provision', manifest(threeDataSets), '--concurrency', '1', '--no-stream-check', '--wait-consuming', '0', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).dataSets.map((d: { status: string }) => d.status)).toEqual(['done', 'done', 'done']);
    const spans = gatewayLog().map((e) => ({ what: `${e.method} ${e.path}`, start: Date.parse(e.at), end: Date.parse(e.at) + (e.durationMs ?? 0) }));
    const first = (pattern: RegExp) => spans.find((s) => pattern.test(s.what))!;
    // The platform's version and the catalog's data sources are asked side by side, not one after the other…
    const version = first(/^GET \/api\/version$/);
    const dataSources = first(/^GET \/api\/v2\/catalog\/datasources$/);
    expect(version.start).toBeLessThan(dataSources.end);
    expect(dataSources.start).toBeLessThan(version.end);
    // …and the store's reads go with them, before the catalog's answers (here its listing of schemas:
    // four reads by name would not go at once at --concurrency 1).
    expect(first(/^GET \/api\/internal\/olap\/schemas$/).start).toBeLessThan(dataSources.end);
    // Never more than 1 + 2 at once (a request ending as another starts counts once).
    const edges = spans.flatMap((s) => [{ at: s.start, step: 1 }, { at: s.end, step: -1 }]).sort((a, b) => a.at - b.at || a.step - b.step);
    let open = 0;
    let most = 0;
    for (const edge of edges) most = Math.max(most, (open += edge.step));
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(3);
  });

  // SIGINT as `kill -INT` sends it (Ctrl-C at a terminal: test/cli/interruption.test.ts), SIGTERM as a CI runner cancels.
  it.each(['SIGINT', 'SIGTERM'] as const)('%s mid-run exits 130 with a true summary of what was done', async (signal) => {
    const { env, manifest, sandbox } = await setUp({ faults: { latencyMs: 150 } });
    const file = manifest(threeDataSets);
    const child = spawn(process.execPath, [BIN, 'provision', file, '--concurrency', '1', '--json'], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Interrupt once the first table exists.
    while (sandbox.store.tables.size === 0) await new Promise((r) => setTimeout(r, 20));
    child.kill(signal);
    expect(await exited).toBe(130);
    expect(stderr).toContain(`interrupted (${signal}): finishing the steps under way`);
    const summary = JSON.parse(stdout);
    expect(summary.interrupted).toBe(true);
    const statuses = summary.dataSets.map((r: { status: string }) => r.status);
    expect(statuses[0]).toMatch(/^(done|interrupted)$/);
    expect(statuses.slice(1)).toEqual(['skipped', 'skipped']);
    // The summary tells the truth: what it calls created exists, and nothing else does.
    expect([...sandbox.store.tables.keys()]).toEqual(['track']);
    expect(summary.dataSets[0].steps.find((s: { step: string }) => s.step === 'table').status).toBe('changed');
  });
});

describe('Ctrl-C while a data set waits for its topic', () => {
  it('the summary says the enablement was created and the data set enabled, and the health check does not start', async () => {
    const { env, manifest, sandbox } = await setUp({ topicDelayMs: 30_000 });
    const file = manifest(`healthCheck: true\ndataSets:\n${entry('track')}`);
    const child = spawn(process.execPath, [BIN, 'provision', file, '--json'], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const enabled = () => sandbox.requestLog.of('gateway').some((e) => e.method === 'PUT' && e.path.endsWith('/datasets/track'));
    while (!enabled()) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const [track] = JSON.parse(stdout).dataSets;
    expect(track.status).toBe('interrupted');
    // The enablement went out and the topic never came: sent, outcome unknown; the steps after it were never started.
    expect(track.steps[0]).toEqual({ step: 'enable', action: 'create', status: 'sent', reason: 'created enablement track; enabled track; stopped before its topic appeared, so the outcome is unknown' });
    expect(track.steps.slice(1).map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['stream skipped', 'sample skipped', 'schema skipped', 'table skipped', 'storage skipped', 'consume skipped']);
    expect(stderr).toContain('warning: health check not run: the run was interrupted');
    expect(sandbox.requestLog.of('gateway').filter((e) => e.path.startsWith('/api/health'))).toEqual([]);
  });
});

describe('table create and storage touch: the same steps in provision as in their commands', () => {
  it('a data set that lists no default storage fails its storage step by name, and no path with "undefined" is asked for', async () => {
    const { dpgw, manifest, gatewayLog, env } = await setUp({ omitStorages: true });
    const result = await dpgw(['provision', manifest(`dataSets:\n${entry('track')}`), '--json']);
    expect(result.code).toBe(1);
    const [track] = JSON.parse(result.stdout).dataSets;
    expect(track.steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable changed', 'stream passed', 'sample passed', 'schema changed', 'table changed', 'storage failed', 'consume blocked']);
    expect(track.error.message).toBe('data set track lists no storage named "default"');
    expect(gatewayLog().some((e) => e.path.includes('undefined'))).toBe(false);
    // The command says the same, in the same words.
    const touch = await spawnDpgw(['storage', 'touch', '--dataset', 'track'], { env });
    expect(touch.code).toBe(1);
    expect(touch.stderr).toContain('data set track lists no storage named "default"');
  });

  it('an existing table: unchanged in provision and in table create, a failure with --fail-on-exists', async () => {
    const { dpgw, manifest, env } = await setUp();
    const file = manifest(`dataSets:\n${entry('track')}`);
    expect((await dpgw(['provision', file])).code).toBe(0);
    const again = JSON.parse((await dpgw(['provision', file, '--json'])).stdout).dataSets[0];
    // Read back from the store and compared: only then "unchanged".
    expect(again.steps.find((s: { step: string }) => s.step === 'table')).toMatchObject({ action: 'none', status: 'unchanged', reason: 'table track exists and matches the manifest' });
    const strict = JSON.parse((await dpgw(['provision', file, '--json', '--fail-on-exists'])).stdout).dataSets[0];
    expect(strict.error).toMatchObject({ kind: 'rejected', hint: expect.stringContaining('--fail-on-exists') });
    expect(strict.error.message).toMatch(/^table track exists already; nothing was changed/);
    const create = await spawnDpgw(['table', 'create', '--dataset', 'track', '--schema', TRACK_SCHEMA_FILE, '--name', 'track'], { env });
    // table create compares as provision does: the manifest's table, asked for again by hand, sends nothing, and says whose it is.
    expect(create.code, create.stderr).toBe(0);
    expect(create.stderr).toMatch(/^✓ table track matches the store \(it belongs to manifest [\w-]+ \(a name taken from its file or folder\), whose runs change it\); nothing was sent\n$/);
  });
});

describe('a manifest changed after its run: never "nothing to change"', () => {
  it('retention 7 → 60: the run updates the table and says which field, the store then holds 60, and the next run is exit 0', async () => {
    const { dpgw, manifest, gatewayLog } = await setUp();
    const first = await dpgw(['provision', manifest(`dataSets:\n${entry('track')}`), '--detailed-exitcode']);
    expect(first.code, first.stderr).toBe(7);
    const changed = await dpgw(['provision', manifest(`dataSets:\n${entry('track', ', retentionDays: 60')}`.replace('table: { name: track }, retentionDays: 60', 'table: { name: track, retentionDays: 60 }')), '--detailed-exitcode', '--json']);
    expect(changed.code, changed.stderr).toBe(7);
    const table = JSON.parse(changed.stdout).dataSets[0].steps.find((s: { step: string }) => s.step === 'table');
    expect(table).toMatchObject({ action: 'update', status: 'changed', difference: ['~ segmentsConfig.retentionTimeValue: "7" → 60'] });
    // The table existed: its permissions were made when it was created, so the touch after an update grants nothing (docs/provision.md).
    expect(JSON.parse(changed.stdout).dataSets[0].steps.find((s: { step: string }) => s.step === 'storage')).toMatchObject({ status: 'accepted' });
    expect(gatewayLog().filter((e) => e.method === 'PUT' && e.path === '/api/internal/olap/tables/track')).toHaveLength(1);
    expect(sandboxes.current().store.tables.get('track')!.definition.segmentsConfig.retentionTimeValue).toBe(60);
    const again = await dpgw(['provision', manifest(`dataSets:\n${entry('track')}`.replace('table: { name: track }', 'table: { name: track, retentionDays: 60 }')), '--detailed-exitcode']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('done: nothing to change');
  });

  it('--plan is a diff against the store: retention 7 → 60 shows as ~ and exits 7 with --detailed-exitcode; after the run, no changes and exit 0', async () => {
    const { dpgw, manifest, gatewayLog } = await setUp();
    expect((await dpgw(['provision', manifest(`dataSets:\n${entry('track')}`)])).code).toBe(0);
    const file = manifest(`dataSets:\n${entry('track')}`.replace('table: { name: track }', 'table: { name: track, retentionDays: 60 }'));
    const mutations = () => gatewayLog().filter(changesThePlatform).length;
    const before = mutations();
    const planned = await dpgw(['provision', file, '--plan', '--detailed-exitcode']);
    expect(planned.code, planned.stderr).toBe(7);
    expect(planned.stdout).toContain('  4. schema    none         schema track: no changes');
    expect(planned.stdout).toContain('  5. table     update       PUT table track: update what differs\n       ~ segmentsConfig.retentionTimeValue: "7" → 60');
    expect(planned.stdout.trimEnd()).toMatch(/1 data set to change$/);
    const json = JSON.parse((await dpgw(['provision', file, '--plan', '--json'])).stdout);
    expect(json.changes).toBe(true);
    expect(json.plan[0].steps.find((s: { step: string }) => s.step === 'table')).toMatchObject({ action: 'update', difference: ['~ segmentsConfig.retentionTimeValue: "7" → 60'], request: { method: 'PUT', path: '/api/internal/olap/tables/track' } });
    expect(mutations()).toBe(before);
    expect((await dpgw(['provision', file])).code).toBe(0);
    const after = await dpgw(['provision', file, '--plan', '--detailed-exitcode']);
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).toContain('  5. table     none         table track: no changes');
    expect(after.stdout.trimEnd()).toMatch(/no changes$/);
  });

  it("a store's sasl.jaas.config that differs: --plan --json and the run's --json are valid JSON, the password masked in the value, not by a pattern on the JSON text", async () => {
    const { dpgw, manifest, sandbox } = await setUp();
    const file = manifest(`dataSets:\n${entry('track')}`);
    expect((await dpgw(['provision', file])).code).toBe(0);
    const streams = sandbox.store.tables.get('track')!.definition.tableIndexConfig.streamConfigs as Record<string, string>;
    // The difference line quotes the JAAS line (\" inside a JSON string): a pattern run on the JSON text cut the string short there.
    for (const live of ['x password=ab"cd;', 'x password=s3cr\\et;', 'x password="a\\"b\\\\" y']) {
      streams['sasl.jaas.config'] = live;
      const planned = await dpgw(['provision', file, '--plan', '--json']);
      const table = JSON.parse(planned.stdout).plan[0].steps.find((s: { step: string }) => s.step === 'table');
      expect(table.action, live).toBe('update');
      expect(table.difference.join('\n')).not.toMatch(/s3cr|password=ab|password=\\"a/);
    }
    streams['sasl.jaas.config'] = 'x password=s3cr\\et; y';
    const run = await dpgw(['provision', file, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const step = JSON.parse(run.stdout).dataSets[0].steps.find((s: { step: string }) => s.step === 'table');
    expect(step).toMatchObject({ action: 'update', status: 'changed' });
    expect(run.stdout).not.toContain('s3cr');
    expect(run.stdout).not.toContain(sandbox.stream.password);
  });

  it('a column added is sent again and reported; one removed is refused before any request of that data set, the others go on', async () => {
    const { dpgw, manifest, env, gatewayLog } = await setUp();
    const folder = env.DPGW_CONFIG_DIR!;
    expect((await dpgw(['provision', manifest(`dataSets:\n${entry('track')}${entry('vessel')}`)])).code).toBe(0);
    const track = readFileSync(join(folder, 'track-schema.yaml'), 'utf8');
    writeFileSync(join(folder, 'wider.yaml'), track.replace('schemaName: track', 'schemaName: track').replace('metricFieldSpecs:', 'metricFieldSpecs:\n  - { name: speed, dataType: DOUBLE }'));
    const wider = manifest(`dataSets:\n${entry('track').replace('track-schema.yaml', 'wider.yaml')}`);
    // No message carries speed yet: producers send a new field once the schema has it, so for a column added to a
    // schema the store holds the sample check warns (a column of a new table no message carries is refused: a typo).
    const added = await dpgw(['provision', wider, '--json']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('no sampled message carries column speed yet, added to schema track: it holds its default until the producers send it');
    expect(JSON.parse(added.stdout).dataSets[0].steps.find((s: { step: string }) => s.step === 'schema')).toMatchObject({ action: 'update', status: 'changed', difference: ['+ speed: DOUBLE (metric)'] });

    writeFileSync(join(folder, 'narrower.yaml'), track.replace(/ {2}- \{ name: alt, dataType: DOUBLE \}\n|\n {2}- name: alt\n {4}dataType: DOUBLE/, ''));
    const before = gatewayLog().filter(changesThePlatform).length;
    writeFileSync(join(folder, 'weather.yaml'), track.replace('schemaName: track', 'schemaName: weather'));
    const refused = await dpgw(['provision', manifest(`dataSets:\n${entry('track').replace('track-schema.yaml', 'narrower.yaml')}${entry('weather').replace('track-schema.yaml', 'weather.yaml')}`), '--json']);
    expect(refused.code).toBe(2);
    const [trackResult, weather] = JSON.parse(refused.stdout).dataSets;
    expect(trackResult.status).toBe('failed');
    expect(trackResult.error.message).toMatch(/^schema track would remove or retype columns the analytics store holds \(- speed: DOUBLE \(metric\); - alt: DOUBLE \(metric\)\); the store refuses a schema that "is not backward-compatible with the existing schema"/);
    expect(trackResult.error.where).toMatch(/narrower\.yaml$/);
    expect(weather.status).toBe('done');
    // Only weather's requests: nothing of track was sent.
    const sent = gatewayLog().filter(changesThePlatform).slice(before).map((e) => e.path);
    expect(sent.some((path) => path.includes('/datasets/track'))).toBe(false);
    expect(sent.filter((path) => path === '/api/internal/olap/tables')).toHaveLength(1);
  });

  it('a plan with a refused schema: the schema step refused, every step after it blocked, exit 2 with or without --detailed-exitcode', async () => {
    const { dpgw, manifest, env, gatewayLog } = await setUp();
    const folder = env.DPGW_CONFIG_DIR!;
    expect((await dpgw(['provision', manifest(`dataSets:\n${entry('track')}`)])).code).toBe(0);
    const track = readFileSync(join(folder, 'track-schema.yaml'), 'utf8');
    writeFileSync(join(folder, 'narrower.yaml'), track.replace(/ {2}- \{ name: alt, dataType: DOUBLE \}\n|\n {2}- name: alt\n {4}dataType: DOUBLE/, ''));
    writeFileSync(join(folder, 'weather.yaml'), track.replace('schemaName: track', 'schemaName: weather'));
    const file = manifest(`dataSets:\n${entry('track').replace('track-schema.yaml', 'narrower.yaml')}${entry('weather').replace('track-schema.yaml', 'weather.yaml')}`);
    const before = gatewayLog().filter(changesThePlatform).length;
    for (const extra of [[], ['--detailed-exitcode']]) {
      const planned = await dpgw(['provision', file, '--plan', '--json', ...extra]);
      expect(planned.code, planned.stderr).toBe(2);
      const document = JSON.parse(planned.stdout);
      const [trackPlan, weatherPlan] = document.plan;
      expect(trackPlan.steps.map((s: { step: string; action: string }) => `${s.step} ${s.action}`)).toEqual(['enable blocked', 'stream blocked', 'sample blocked', 'schema refused', 'table blocked', 'storage blocked', 'consume blocked']);
      expect(trackPlan.steps[4]).toEqual({ step: 'table', action: 'blocked', reason: 'blocked: the schema step is refused' });
      expect(trackPlan.steps[3]).toMatchObject({ step: 'schema', action: 'refused', difference: ['- alt: DOUBLE (metric)'] });
      expect(weatherPlan.steps.map((s: { action: string }) => s.action)).toEqual(['create', 'check', 'check', 'create', 'create', 'read', 'wait']);
      expect(document.actions).toMatchObject({ refused: 1, blocked: 6, create: 3, none: 0, check: 2, read: 1, wait: 1, update: 0, delete: 0 });
    }
    const human = await dpgw(['provision', file, '--plan']);
    expect(human.code).toBe(2);
    expect(human.stdout).toMatch(/table +blocked +blocked: the schema step is refused/);
    expect(human.stdout).toContain('1 data set refused: the run would fail (exit 2)');
    expect(gatewayLog().filter(changesThePlatform).length).toBe(before);
  });

  it('a gateway that cannot update tables: that data set fails with the fields that differ, never "unchanged"', async () => {
    const { dpgw, manifest } = await setUp();
    expect((await dpgw(['provision', manifest(`dataSets:\n${entry('track')}`)])).code).toBe(0);
    sandboxes.current().faults.update({ failures: [{ method: 'PUT', path: '/api/internal/olap/tables/*', status: 405, times: 10 }] });
    const result = await dpgw(['provision', manifest(`dataSets:\n${entry('track')}`.replace('table: { name: track }', 'table: { name: track, retentionDays: 30 }')), '--json']);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout).dataSets[0].error.message).toBe('table track differs from the manifest; this gateway cannot update tables (PUT answered 405): ~ segmentsConfig.retentionTimeValue: "7" → 30');
  });

  it('a gateway without reads of the store: the existing table is "not compared", and --detailed-exitcode never says 0', async () => {
    const { dpgw, manifest } = await setUp();
    const file = manifest(`dataSets:\n${entry('track')}`);
    expect((await dpgw(['provision', file])).code).toBe(0);
    sandboxes.current().faults.update({ failures: [{ method: 'GET', path: '/api/internal/olap/tables/*', status: 501, times: 10 }] });
    const result = await dpgw(['provision', file, '--detailed-exitcode', '--json']);
    expect(result.code).toBe(7);
    const summary = JSON.parse(result.stdout);
    expect(summary.dataSets[0].steps.find((s: { step: string }) => s.step === 'table')).toMatchObject({ action: 'not-compared', status: 'not-compared', reason: expect.stringMatching(/^table track exists, not compared: this gateway does not expose reads of the analytics store \(501/) });
    const human = await dpgw(['provision', file]);
    expect(human.stderr).toMatch(/done: 1 data set not compared \(the gateway does not expose reads of the analytics store\)/);
  });
});

describe('bad manifests: rejected before any request, with their location', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['unknown key', `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [g], schema: track-schema.yaml, tabel: {} }\n`, /provision\.yaml:2:\d+: dataSets\[0\]\.tabel: unknown key "tabel" \(did you mean table\?\)/],
    ['a needed key misspelt: one problem, at the misspelling', `dataSet:\n${entry('track')}`, /^dpgw: .*provision\.yaml:1:1: dataSet: unknown key "dataSet" \(did you mean dataSets\? the manifest needs it\)/],
    ["an entry's needed key misspelt", `dataSets:\n  - { datasource: mock-data-library, dataSet: track, groups: [g], schema: track-schema.yaml }\n`, /^dpgw: .*provision\.yaml:2:\d+: dataSets\[0\]\.dataSet: unknown key "dataSet" \(did you mean dataset\? the manifest needs it\)/],
    ['missing schema file', `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [g], schema: nowhere.yaml }\n`, /provision\.yaml:2:\d+: dataSets\[0\]\.schema: schema file .*nowhere\.yaml does not exist/],
    ['duplicate data set', `dataSets:\n${entry('track')}${entry('track')}`, /provision\.yaml:3:\d+: dataSets\[1\]\.dataset: data set track of mock-data-library \(enablement track\) is listed twice \(first at .*provision\.yaml:2:\d+\)/],
    ['bad secret reference', `settings:\n  streamPassword: vault:secret/stream\ndataSets:\n${entry('track')}`, /provision\.yaml:2:19: settings\.streamPassword: the streamPassword must be a secret reference/],
    ['wrong type', `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: track-readers, schema: track-schema.yaml }\n`, /provision\.yaml:2:\d+: dataSets\[0\]\.groups: expected array/],
    ['YAML syntax', `dataSets:\n  - { datasource: mock-data-library\n`, /provision\.yaml:\d+:\d+: YAML syntax error/],
  ];
  for (const [name, text, expected] of cases) {
    it(name, async () => {
      const { dpgw, manifest, gatewayLog } = await setUp();
      const result = await dpgw(['provision', manifest(text)]);
      expect(result.code).toBe(2);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(expected);
      expect(gatewayLog()).toEqual([]);
    });
  }
});

describe('a data set without groups', () => {
  it('whose enablement does not exist yet: one line at its entry, before anything is sent, under --plan too', async () => {
    const { dpgw, manifest, gatewayLog } = await setUp();
    const file = manifest(`dataSets:\n  - { datasource: mock-data-library, dataset: track, schema: track-schema.yaml, table: { name: track } }\n`);
    for (const args of [['--plan'], []]) {
      const result = await dpgw(['provision', file, ...args]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/provision\.yaml:2:\d+: dataSets\[0\]\.dataset: data set track: enablement "track" does not exist yet and needs the groups that may read the data set: add groups: \[<group>, …\] to this data set's entry/);
      expect(result.stderr).not.toContain('--group');
    }
    expect(gatewayLog().filter(changesThePlatform)).toEqual([]);
  });

  it('whose enablement exists already needs none', async () => {
    const { dpgw, manifest } = await setUp();
    expect((await dpgw(['provision', manifest(`dataSets:\n${entry('track')}`)])).code).toBe(0);
    const result = await dpgw(['provision', manifest(`dataSets:\n  - { datasource: mock-data-library, dataset: track, schema: track-schema.yaml, table: { name: track } }\n`)]);
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('what a CI log shows', () => {
  it('one line per finished data set as it happens, an ENABLEMENT column for a data set in two enablements, and the health check in the plan and the summary', async () => {
    const { dpgw, manifest } = await setUp();
    const text = `healthCheck: true\ndataSets:\n${entry('track')}  - { datasource: mock-data-library, dataset: track, enablement: track-second, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: track_second } }\n${entry('vessel')}`;
    const file = manifest(text);
    const planned = await dpgw(['provision', file, '--plan']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('health\n  after provisioning: GET /api/health; not UP makes the run exit 6');
    expect(JSON.parse((await dpgw(['provision', file, '--plan', '--json'])).stdout).healthCheck).toEqual({ path: '/api/health' });

    const result = await dpgw(['provision', file, '--concurrency', '1']);
    expect(result.code, result.stderr).toBe(0);
    const finished = result.stderr.split('\n').filter((line) => /^\[\d\/3\] /.test(line));
    expect(finished).toEqual([
      expect.stringMatching(/^\[1\/3\] track \(enablement track\): done in \d+\.\d s — enable changed, stream passed, sample passed, schema changed, table changed, storage changed, consume passed$/),
      expect.stringMatching(/^\[2\/3\] track \(enablement track-second\): done in /),
      expect.stringMatching(/^\[3\/3\] vessel \(enablement vessel\): done in /),
    ]);
    const [header, ...rows] = result.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^DATA SET\s+ENABLEMENT\s+TOPIC\s+SCHEMA/);
    expect(rows[0]).toMatch(/^track\s+track\s+mock-data-library\.track\.track /);
    expect(rows[1]).toMatch(/^track\s+track-second\s+/);
    expect(rows.at(-1)).toBe('health: UP');
  });
});

describe('a manifest with many problems', () => {
  it('lists every one in one run, in the order of the file, each at its line; nothing is sent and no password read', async () => {
    const { dpgw, manifest, gatewayLog } = await setUp();
    const text = [
      'dataSets:',
      '  - { datasource: mock-data-library, dataset: track, groups: [g], schema: track-schema.yaml, tabel: {} }',
      '  - { datasource: mock-data-library, dataset: vessel, groups: [g], schema: track-schema.yaml, table: { name: "bad.name" } }',
      '  - { datasource: mock-data-library, dataset: weather, groups: [g], schema: ../outside.yaml }',
      '  - { datasource: mock-data-library, dataset: telemetry, groups: [g], schema: missing.yaml }',
      '  - { datasource: mock-data-library, dataset: extra, groups: [g], schema: track-schema.yaml, verify: { visible: [analystt] } }',
      '',
    ].join('\n');
    const result = await dpgw(['provision', manifest(text)], { DPGW_STREAM_PASSWORD: '', DPGW_STREAM_USER: 'stream' });
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n').filter((line) => line.startsWith('dpgw: '));
    expect(lines.map((line) => /provision\.yaml:(\d+):/.exec(line)?.[1])).toEqual(['2', '3', '4', '5', '6']);
    expect(lines[0]).toMatch(/dataSets\[0\]\.tabel: unknown key "tabel" \(did you mean table\?\)/);
    expect(lines[1]).toMatch(/dataSets\[1\]\.table\.name: the table name "bad\.name" has '\.'/);
    expect(lines[2]).toMatch(/dataSets\[2\]\.schema: schema file .*outside\.yaml is outside the manifest's folder/);
    expect(lines[3]).toMatch(/dataSets\[3\]\.schema: schema file .*missing\.yaml does not exist/);
    expect(lines[4]).toMatch(/dataSets\[4\]\.verify\.visible\[0\]: unknown profile "analystt" in .*config\.yaml/);
    expect(gatewayLog()).toEqual([]);
  });
});

describe('a data set entry that is not well formed', () => {
  it('still has its files checked: its structural problems and its file problems in one run, in the order of the file', async () => {
    const { dpgw, manifest, env, gatewayLog } = await setUp();
    const text = [
      'dataSets:',
      '  - datasource: mock-data-library',
      '    dataset: Bad Name!',
      '    colour: red',
      '    schema: nosuch.yaml',
      '  - { datasource: mock-data-library, dataset: vessel, groups: [g], schema: broken-schema.yaml, tabel: {} }',
      '  - { datasource: mock-data-library, schema: ../outside.yaml }',
      '',
    ].join('\n');
    const file = manifest(text);
    writeFileSync(join(env.DPGW_CONFIG_DIR!, 'broken-schema.yaml'), 'schemaName: broken\ndimensionFieldSpecs:\n  - { name: id }\n');
    const result = await dpgw(['provision', file, '--plan']);
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.map((line) => /provision\.yaml:(\d+:\d+):/.exec(line)?.[1])).toEqual(['3:14', '4:5', '5:13', '6:47', '6:96', '7:5', '7:46']);
    expect(lines[0]).toMatch(/dataSets\[0\]\.dataset: the data set name "Bad Name!" has a space/);
    expect(lines[1]).toMatch(/dataSets\[0\]\.colour: unknown key "colour"/);
    expect(lines[2]).toMatch(/dataSets\[0\]\.schema: schema file .*nosuch\.yaml does not exist$/);
    expect(lines[3]).toMatch(/dataSets\[1\]\.dataset: data set vessel: dataType is missing \(.*broken-schema\.yaml:3:\d+: dimensionFieldSpecs\[0\]\.dataType\)$/);
    expect(lines[4]).toMatch(/dataSets\[1\]\.tabel: unknown key "tabel"/);
    expect(lines[5]).toMatch(/dataSets\[2\]\.dataset: expected string/);
    expect(lines[6]).toMatch(/dataSets\[2\]\.schema: schema file .*outside\.yaml is outside the manifest's folder/);
    expect(gatewayLog()).toEqual([]);
  });
});

describe('the manifest JSON Schema', () => {
  it('docs/provision-plan.schema.json is what the code describes, and real plans (a new data set, a refused schema) are of that format', async () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'docs/provision-plan.schema.json'), 'utf8'))).toEqual(planJsonSchema());
    const { dpgw, manifest, env } = await setUp();
    const fresh = JSON.parse((await dpgw(['provision', manifest(`healthCheck: true\ndataSets:\n${entry('track')}`), '--plan', '--json'])).stdout);
    expect(fresh.formatVersion).toBe(1);
    expect(planDocument.safeParse(fresh).error).toBeUndefined();
    expect((await dpgw(['provision', manifest(`dataSets:\n${entry('track')}`)])).code).toBe(0);
    const folder = env.DPGW_CONFIG_DIR!;
    writeFileSync(join(folder, 'narrower.yaml'), readFileSync(join(folder, 'track-schema.yaml'), 'utf8').replace(/ {2}- \{ name: alt, dataType: DOUBLE \}\n|\n {2}- name: alt\n {4}dataType: DOUBLE/, ''));
    const refused = JSON.parse((await dpgw(['provision', manifest(`dataSets:\n${entry('track').replace('track-schema.yaml', 'narrower.yaml')}`), '--plan', '--json'])).stdout);
    expect(planDocument.safeParse(refused).error).toBeUndefined();
    expect(refused.actions.refused).toBe(1);
  });

  it('docs/provision-manifest.schema.json is what the code describes', () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'docs/provision-manifest.schema.json'), 'utf8'))).toEqual(manifestJsonSchema());
  });
});

describe('dpgw provision: a final health check that fails keeps the summary', () => {
  const healthChecked = (extra = '') => `healthCheck: true\ndataSets:\n${entry('track')}${extra}`;

  it('DOWN: exit 6, every data set in the summary, the failing component named', async () => {
    const { dpgw, manifest } = await setUp({ down: ['mq.connection'] });
    const json = await dpgw(['provision', manifest(healthChecked()), '--json']);
    expect(json.code).toBe(6);
    const summary = JSON.parse(json.stdout);
    expect(summary.dataSets.map((r: { dataset: string; status: string }) => `${r.dataset} ${r.status}`)).toEqual(['track done']);
    expect(summary.health).toMatchObject({ status: 'DOWN', failing: ['mq.connection'] });
    expect(json.stderr).toContain('dpgw: health check after provisioning: DOWN; not UP: mq.connection');
    const human = await dpgw(['provision', manifest(healthChecked())]);
    expect(human.code).toBe(6);
    expect(human.stdout).toMatch(/^track\s+mock-data-library\.track\.track\s+track unchanged\s+track unchanged/m);
  });

  it('a 500 from the health endpoint: exit 6, the summary, and why the check could not be made', async () => {
    const { dpgw, manifest } = await setUp({ faults: { failures: [{ method: 'GET', path: '/api/health', status: 500, times: 10 }] } });
    const result = await dpgw(['provision', manifest(healthChecked()), '--json']);
    expect(result.code).toBe(6);
    const summary = JSON.parse(result.stdout);
    expect(summary.dataSets[0]).toMatchObject({ dataset: 'track', status: 'done' });
    expect(summary.health).toMatchObject({ status: 'UNKNOWN', failing: ['platform'], error: expect.stringContaining('500') });
    expect(result.stderr).toMatch(/dpgw: health check after provisioning: .*500/);
  });
});

describe('dpgw provision: schema: { infer: … }', () => {
  const inferEntry = (infer: string) => `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: { infer: ${infer} } }\n`;

  it('is checked before any request; --plan says when it will infer; a stream it cannot read fails the data set before its schema and table', async () => {
    const { dpgw, manifest, gatewayLog } = await setUp();
    // A misspelt key inside infer: located, nothing sent.
    const typo = await dpgw(['provision', manifest(inferEntry('{ sampel: 50 }'))]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/provision\.yaml:2:\d+: dataSets\[0\]\.schema\.infer\.sampel: unknown key "sampel" \(did you mean sample\?\)/);
    // Reading a topic needs the broker list, checked before any request.
    const noBrokers = await dpgw(['provision', manifest(inferEntry('{ sample: 50 }'))], { DPGW_BROKER_LIST: '' });
    expect([noBrokers.code, noBrokers.stderr]).toEqual([2, expect.stringMatching(/provision\.yaml:2:\d+: dataSets\[0\]\.dataset: data set track: \$\{brokerList\} has no value: pass --broker-list/)]);
    expect(gatewayLog()).toHaveLength(0);

    const planned = await dpgw(['provision', manifest(inferEntry('{ sample: 50, timeColumn: ts }')), '--plan']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('schema    create       POST schema track, inferred from the first 50 messages of the topic once track is enabled');
    expect(planned.stdout).toContain('"timeColumnName": "ts"');
    expect(gatewayLog().filter(changesThePlatform)).toHaveLength(0);

    // Brokers nothing listens on: the stream pre-flight stops the run before anything is sent…
    const broker = `127.0.0.1:${await closedPort()}`;
    const stopped = await dpgw(['provision', manifest(inferEntry('{ sample: 50 }')), '--json', '--timeout', '5'], { DPGW_BROKER_LIST: broker });
    expect(stopped.code).toBe(5);
    expect(stopped.stderr).toContain(`dpgw: ${broker}: the tables would never consume: cannot read from the brokers: Connection to ${broker} failed`);
    expect(gatewayLog().filter(changesThePlatform)).toHaveLength(0);
    // …and without it, reading the topic fails the data set before its schema and table.
    const run = await dpgw(['provision', manifest(inferEntry('{ sample: 50 }')), '--json', '--timeout', '5', '--no-stream-check'], { DPGW_BROKER_LIST: broker });
    expect(run.code).toBe(5);
    const [result] = JSON.parse(run.stdout).dataSets;
    expect(result.steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable changed', 'stream skipped', 'sample skipped', 'schema failed', 'table blocked', 'storage blocked', 'consume blocked']);
    expect(result.steps[3].reason).toContain(`${broker}: cannot read from the brokers: Connection to ${broker} failed`);
    expect(gatewayLog().filter((e) => e.method === 'POST' && e.path.startsWith('/api/internal/'))).toHaveLength(0);
  });
});
