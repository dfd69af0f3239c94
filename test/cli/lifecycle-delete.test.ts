/**
 * `dpgw table delete` and `dpgw schema delete` as a user runs them: the built binary against
 * the sandbox, whose store drops a deleted table in the background, as the real store does.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { trackSchemaBeside } from '../helpers/track.js';
import { atTerminal, screen } from '../helpers/at-terminal.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 50 });
const TRACK_MANIFEST = join(ROOT, 'examples/track/provision.yaml');

/** A sandbox with the track data set provisioned: schema track, table track. */
async function provisioned(options: SandboxOptions = {}) {
  const sandbox = await sandboxes.start(options);
  const env = await adminPipelineEnv(sandbox);
  const dpgw = (args: string[], extra: NodeJS.ProcessEnv = {}) => spawnDpgw(args, { env: { ...env, ...extra } });
  const done = await dpgw(['provision', TRACK_MANIFEST]);
  expect(done.code, done.stderr).toBe(0);
  sandbox.requestLog.clear();
  const deletes = () => sandbox.requestLog.of('gateway').filter((e) => e.method === 'DELETE');
  return { sandbox, env, dpgw, deletes };
}

describe('dpgw table delete', () => {
  it('--yes deletes the table, waits until the store has dropped it, and a table of the same name can be created right after', async () => {
    const { sandbox, dpgw, deletes } = await provisioned({ tableDeletionDelayMs: 700 });
    const result = await dpgw(['table', 'delete', 'track', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(deletes().map((e) => `${e.method} ${e.path} ${JSON.stringify(e.query)}`)).toEqual(['DELETE /api/internal/olap/tables/track {"type":"realtime"}']);
    expect(result.stderr).toMatch(/✓ table track deleted; the store no longer holds it \(after \d+\.\d s\)/);
    // It waited: reads after the DELETE until the store no longer had it, so it is gone now, not later.
    const reads = sandbox.requestLog.of('gateway').filter((e) => e.method === 'GET' && e.path === '/api/internal/olap/tables/track');
    expect(reads.length).toBeGreaterThan(2);
    expect(sandbox.store.tables.has('track')).toBe(false);
    // The schema stays, and the same manifest creates the table again at once.
    expect(sandbox.store.schemas.has('track')).toBe(true);
    const again = await dpgw(['provision', TRACK_MANIFEST, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).dataSets[0].steps.find((s: { step: string }) => s.step === 'table')).toMatchObject({ action: 'create', status: 'changed' });
  });

  it('without --yes at no terminal: exit 2, CONFIRMATION_REQUIRED, nothing sent', async () => {
    const { sandbox, dpgw } = await provisioned();
    const result = await dpgw(['table', 'delete', 'track', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'CONFIRMATION_REQUIRED', exitCode: 2 });
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
    expect(sandbox.store.tables.has('track')).toBe(true);
  });

  it('at a terminal asks for the name: typed right it deletes, typed wrong it deletes nothing (exit 2)', async () => {
    const { sandbox, env, deletes } = await provisioned({ tableDeletionDelayMs: 0 });
    const wrong = await atTerminal(['table', 'delete', 'track'], { env, when: 'Type track to delete table track', keys: 'trakc\\r' });
    expect(wrong.code, screen(wrong.stdout)).toBe(2);
    expect(screen(wrong.stdout)).toContain('"trakc" is not track; nothing was deleted');
    expect(deletes()).toEqual([]);
    const right = await atTerminal(['table', 'delete', 'track'], { env, when: 'Type track to delete table track', keys: 'track\\r' });
    expect(right.code, screen(right.stdout)).toBe(0);
    expect(screen(right.stdout)).toContain('✓ table track deleted');
    expect(deletes()).toHaveLength(1);
    expect(sandbox.store.tables.has('track')).toBe(false);
  });

  it('--dry-run reads as the run would, prints the DELETE it would send, and sends nothing that changes the store', async () => {
    const { sandbox, dpgw } = await provisioned();
    const result = await dpgw(['table', 'delete', 'track', '--dry-run', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const document = JSON.parse(result.stdout);
    expect(document).toMatchObject({ dryRun: true, requests: [{ method: 'DELETE', path: '/api/internal/olap/tables/track?type=realtime' }] });
    expect(document.steps).toEqual([expect.objectContaining({ step: 'table', action: 'delete' })]);
    const human = await dpgw(['table', 'delete', 'track', '--dry-run']);
    expect(human.stdout).toContain('DELETE /api/internal/olap/tables/track?type=realtime');
    expect(sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET')).toEqual([]);
    expect(sandbox.store.tables.has('track')).toBe(true);
  });

  it('a table the store does not hold: exit 9, TABLE_NOT_FOUND, one line, no DELETE', async () => {
    const { dpgw, deletes } = await provisioned();
    const result = await dpgw(['table', 'delete', 'nosuch', '--yes']);
    expect(result.code).toBe(9);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('the analytics store has no table "nosuch"; nothing was deleted');
    const json = await dpgw(['table', 'delete', 'nosuch', '--yes', '--json']);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'TABLE_NOT_FOUND', exitCode: 9 });
    expect(deletes()).toEqual([]);
  });

  it('--json: the step record of the plan vocabulary', async () => {
    const { dpgw } = await provisioned({ tableDeletionDelayMs: 0 });
    const result = await dpgw(['table', 'delete', 'track', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      steps: [{ step: 'table', action: 'delete', status: 'changed', reason: expect.stringMatching(/^table track deleted/), request: { method: 'DELETE', path: '/api/internal/olap/tables/track?type=realtime' }, owner: 'track' }],
    });
  });

  it('a store that has not dropped the table when --timeout is over: exit 1, DELETE_NOT_FINISHED', async () => {
    const { dpgw } = await provisioned({ tableDeletionDelayMs: 60_000 });
    const result = await dpgw(['table', 'delete', 'track', '--yes', '--timeout', '1', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'DELETE_NOT_FINISHED', message: expect.stringContaining('still holds it') });
  });

  it("a 404 to the DELETE of a table the reads found just before (a retry whose first answer was lost) is no \"no such table\": dpgw waits until the store no longer holds it", async () => {
    // Long enough that dpgw's reads still find the table on a loaded machine (at 1 s a slow start found it gone: exit 9).
    const { dpgw, sandbox } = await provisioned({ tableDeletionDelayMs: 4000 });
    // The table is being dropped already; the DELETE's answer is the 404 a retry would get.
    sandbox.store.deleteTable('track', 'realtime');
    sandbox.faults.update({ failures: [{ method: 'DELETE', path: '/api/internal/olap/tables/track', status: 404, body: { code: 404, error: "Table 'track' with type REALTIME does not exist" } }] });
    const result = await dpgw(['table', 'delete', 'track', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/✓ table track deleted; the store no longer holds it/);
    expect(sandbox.store.tables.has('track')).toBe(false);
  });

  it('a gateway without reads of the store: the DELETE is sent, and the step says it was not read back', async () => {
    const { dpgw, deletes } = await provisioned({ tableDeletionDelayMs: 0 });
    const gatewaySays = { status: 405, error: 'Method Not Allowed', message: 'Request method not supported', path: '/api/internal/olap/tables/track' };
    sandboxes.current().faults.update({ failures: [{ method: 'GET', path: '/api/internal/olap/tables/track', status: 405, times: 10, body: gatewaySays }] });
    const result = await dpgw(['table', 'delete', 'track', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).steps[0]).toMatchObject({ status: 'changed', reason: expect.stringContaining('table track deleted; not read back: 405') });
    expect(deletes()).toHaveLength(1);
  });

  it('a gateway that does not pass deletes on: one line, exit 3', async () => {
    const { dpgw, sandbox } = await provisioned();
    // A gateway whose router has no DELETE route answers 405.
    sandbox.faults.update({ failures: [{ method: 'DELETE', path: '/api/internal/olap/tables/*', status: 405, body: { status: 405, error: 'Method Not Allowed', message: 'Request method not supported', path: '/api/internal/olap/tables/track' } }] });
    const result = await dpgw(['table', 'delete', 'track', '--yes']);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain('this gateway does not expose deletes of the analytics store');
  });
});

describe('dpgw schema delete', () => {
  it('a schema a table still uses is refused before anything is sent, naming the table', async () => {
    const { dpgw, deletes } = await provisioned();
    const result = await dpgw(['schema', 'delete', 'track', '--yes', '--json']);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'SCHEMA_IN_USE', message: expect.stringContaining('table track uses it'), details: { tables: ['track'] } });
    expect(deletes()).toEqual([]);
  });

  it('used by several tables: every one named, each with its delete', async () => {
    const { dpgw, env, deletes } = await provisioned();
    const folder = env.DPGW_CONFIG_DIR!;
    trackSchemaBeside(folder);
    writeFileSync(join(folder, 'fleet.yaml'), `dataSets:\n  - { datasource: mock-data-library, dataset: vessel, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: fleet } }\n`);
    expect((await dpgw(['provision', join(folder, 'fleet.yaml')])).code).toBe(0);
    const result = await dpgw(['schema', 'delete', 'track', '--yes']);
    expect([result.code, result.stderr]).toEqual([
      3,
      'dpgw: schema track cannot be deleted: tables track, fleet use it; nothing was deleted — delete those tables first (dpgw table delete track; dpgw table delete fleet), or keep the schema\n',
    ]);
    expect(deletes()).toEqual([]);
  });

  it("the store's own refusal (409), where dpgw's reads could not see the table, is said the same way, naming the table", async () => {
    const { dpgw, env, sandbox, deletes } = await provisioned();
    // Table fleet uses schema track; a gateway without the list of tables leaves dpgw only the table named track to check.
    const folder = env.DPGW_CONFIG_DIR!;
    trackSchemaBeside(folder);
    writeFileSync(join(folder, 'fleet.yaml'), `dataSets:\n  - { datasource: mock-data-library, dataset: vessel, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: fleet } }\n`);
    expect((await dpgw(['provision', join(folder, 'fleet.yaml')])).code).toBe(0);
    expect((await dpgw(['table', 'delete', 'track', '--yes'])).code).toBe(0);
    sandbox.faults.update({ failures: [{ method: 'GET', path: '/api/internal/olap/tables', status: 405, times: 5 }] });
    const result = await dpgw(['schema', 'delete', 'track', '--yes', '--json']);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'SCHEMA_IN_USE', message: 'schema track cannot be deleted: table fleet uses it; nothing was deleted', details: { tables: ['fleet'] } });
    expect(deletes().map((e) => e.path)).toEqual(['/api/internal/olap/tables/track', '/api/internal/olap/schemas/track']);
    expect(sandbox.store.schemas.has('track')).toBe(true);
  });

  it('after its table: deleted', async () => {
    const { dpgw, sandbox } = await provisioned({ tableDeletionDelayMs: 0 });
    expect((await dpgw(['table', 'delete', 'track', '--yes'])).code).toBe(0);
    const result = await dpgw(['schema', 'delete', 'track', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('✓ schema track deleted');
    expect(sandbox.store.schemas.has('track')).toBe(false);
  });
});
