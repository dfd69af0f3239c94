/**
 * The single commands' --dry-run walks their steps in plan mode (the executor provision walks):
 * it reads as the run would, prints the plan records' requests, says when nothing would be sent,
 * and never sends a request that changes the platform. The built binary against the sandbox.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { TRACK_SCHEMA_FILE } from '../helpers/track.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv, changesThePlatform } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 50 });

async function setUp() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const dpgw = (args: string[]) => spawnDpgw(args, { env });
  const changes = () => sandbox.requestLog.of('gateway').filter(changesThePlatform);
  return { sandbox, dpgw, changes };
}

describe('--dry-run of a single command prints its plan', () => {
  it('schema push: a new schema is the plan record\'s POST; one the store holds unchanged says nothing would be sent and prints no POST', async () => {
    const { sandbox, dpgw, changes } = await setUp();
    const fresh = await dpgw(['schema', 'push', TRACK_SCHEMA_FILE, '--dry-run', '--json']);
    expect(fresh.code, fresh.stderr).toBe(0);
    const planned = JSON.parse(fresh.stdout);
    expect(planned.steps).toEqual([expect.objectContaining({ step: 'schema', action: 'create', request: expect.objectContaining({ method: 'POST', path: '/api/internal/olap/schemas' }) })]);
    expect(planned.requests).toEqual([planned.steps[0].request]);
    expect(changes()).toEqual([]);

    expect((await dpgw(['schema', 'push', TRACK_SCHEMA_FILE])).code).toBe(0);
    sandbox.requestLog.clear();
    const same = await dpgw(['schema', 'push', TRACK_SCHEMA_FILE, '--dry-run']);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain('nothing would be');
    expect(same.stdout).toContain('schema: schema track: no changes');
    expect(same.stdout).not.toContain('POST');
    const json = JSON.parse((await dpgw(['schema', 'push', TRACK_SCHEMA_FILE, '--dry-run', '--json'])).stdout);
    expect(json).toMatchObject({ dryRun: true, requests: [], steps: [{ step: 'schema', action: 'none' }] });
    expect(changes()).toEqual([]);
  });

  it('schema push without a reachable gateway: the POST, with one warning that it was not compared', async () => {
    const result = await spawnDpgw(['schema', 'push', TRACK_SCHEMA_FILE, '--dry-run'], { env: { ...(await adminPipelineEnv(await sandboxes.start())), DPGW_GATEWAY: 'http://127.0.0.1:9' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('POST /api/internal/olap/schemas');
    expect(result.stderr.trim().split('\n').filter((line) => line.includes('not compared with the store'))).toHaveLength(1);
  });

  it('table create --topic without a reachable gateway: the table\'s POST, with one warning that it was not compared', async () => {
    const { dpgw, sandbox } = await setUp();
    expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
    const env = { ...(await adminPipelineEnv(sandbox)), DPGW_GATEWAY: 'http://127.0.0.1:9' };
    const result = await spawnDpgw(['table', 'create', '--dataset', 'track', '--topic', 'mock-data-library.track.track', '--schema', TRACK_SCHEMA_FILE, '--dry-run'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('POST /api/internal/olap/tables');
    expect(result.stderr.trim().split('\n').filter((line) => line.includes('not compared with the store'))).toHaveLength(1);
  });

  it('storage touch: the plan record\'s GET', async () => {
    const { dpgw, changes } = await setUp();
    expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
    const before = changes().length;
    const result = await dpgw(['storage', 'touch', '--dataset', 'track', '--dry-run', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const planned = JSON.parse(result.stdout);
    expect(planned.steps).toEqual([expect.objectContaining({ step: 'storage', action: 'read', request: expect.objectContaining({ method: 'GET' }) })]);
    expect(planned.requests).toEqual([planned.steps[0].request]);
    expect(changes().length).toBe(before);
  });

  it('table delete: the plan record, read first, with the owner the store\'s table carries', async () => {
    const { dpgw, sandbox, changes } = await setUp();
    expect((await dpgw(['provision', join(ROOT, 'examples/track/provision.yaml')])).code).toBe(0);
    sandbox.requestLog.clear();
    const result = await dpgw(['table', 'delete', 'track', '--dry-run', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const planned = JSON.parse(result.stdout);
    expect(planned.steps).toEqual([expect.objectContaining({ step: 'table', action: 'delete', reason: 'DELETE table track: the store holds it', owner: 'track' })]);
    expect(changes()).toEqual([]);
    const missing = await dpgw(['table', 'delete', 'nosuch', '--dry-run']);
    expect(missing.code).toBe(9);
  });

  it('table create: the plan record\'s POST; a table the store holds as asked would send nothing, no POST', async () => {
    const { dpgw, changes } = await setUp();
    expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
    expect((await dpgw(['schema', 'push', TRACK_SCHEMA_FILE])).code).toBe(0);
    const before = changes().length;
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', TRACK_SCHEMA_FILE, '--dry-run', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const planned = JSON.parse(result.stdout);
    const table = planned.steps.find((s: { step: string }) => s.step === 'table');
    expect(table).toMatchObject({ action: 'create', request: { method: 'POST', path: '/api/internal/olap/tables' } });
    expect(planned.requests).toEqual([table.request]);
    expect(planned.steps.map((s: { step: string }) => s.step)).toEqual(['stream', 'sample', 'schema', 'table', 'consume']);
    expect(changes().length).toBe(before);

    expect((await dpgw(['table', 'create', '--dataset', 'track', '--schema', TRACK_SCHEMA_FILE, '--wait-consuming', '0'])).code).toBe(0);
    const again = await dpgw(['table', 'create', '--dataset', 'track', '--schema', TRACK_SCHEMA_FILE, '--dry-run']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('table: table track matches the store');
    expect(again.stdout).not.toContain('POST');
  });

  it('enable: the plan record\'s requests, the enablement then the data set; a data set enabled already sends nothing', async () => {
    const { dpgw, changes } = await setUp();
    const args = ['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP];
    const fresh = await dpgw([...args, '--dry-run', '--json']);
    expect(fresh.code, fresh.stderr).toBe(0);
    const planned = JSON.parse(fresh.stdout);
    expect(planned.steps).toEqual([expect.objectContaining({ step: 'enable', action: 'create' })]);
    expect(planned.requests.map((r: { method: string }) => r.method)).toEqual(['POST', 'PUT']);
    expect(planned.requests).toEqual(planned.steps[0].requests);
    // As before the executor: the data source and the enablement the catalog's reads found, as objects.
    expect(planned.dataSource).toEqual({ id: expect.any(String), name: 'mock-data-library' });
    expect(planned.enablement).toEqual(expect.objectContaining({ name: 'track', groups: [TRACK_GROUP], created: true }));
    expect(changes()).toEqual([]);

    expect((await dpgw(args)).code).toBe(0);
    const before = changes().length;
    const again = await dpgw([...args, '--dry-run']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('track is enabled already');
    expect(again.stdout).not.toMatch(/^(POST|PUT) /m);
    expect(changes().length).toBe(before);
  });
});
