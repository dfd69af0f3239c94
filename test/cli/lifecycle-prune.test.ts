/**
 * Ownership and `provision --prune` as a pipeline runs them: the built binary against the
 * sandbox. A manifest marks its tables with its name; a prune deletes only the tables of
 * its own mark that it no longer lists, then their schemas when no table uses them.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planDocument } from '../../src/provision/plan-format.js';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { atTerminal, screen } from '../helpers/at-terminal.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { TRACK_SCHEMA_FILE, trackTable } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 50, tableDeletionDelayMs: 300 });

const entry = (dataset: string, schema: string) => `  - { datasource: mock-data-library, dataset: ${dataset}, groups: [${TRACK_GROUP}], schema: ${schema}-schema.yaml, table: { name: ${dataset} } }\n`;

async function setUp() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const folder = env.DPGW_CONFIG_DIR!;
  const track = readFileSync(TRACK_SCHEMA_FILE, 'utf8');
  for (const name of ['track', 'vessel', 'weather']) writeFileSync(join(folder, `${name}-schema.yaml`), track.replace(/^schemaName: track$/m, `schemaName: ${name}`));
  const write = (file: string, text: string) => {
    writeFileSync(join(folder, file), text);
    return join(folder, file);
  };
  const dpgw = (args: string[], extra: NodeJS.ProcessEnv = {}) => spawnDpgw(args, { env: { ...env, ...extra } });
  const changing = () => sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET');
  const markOf = (table: string) => sandbox.store.tables.get(table)?.definition.metadata?.customConfigs['dpgw.manifest'];
  return { sandbox, env, write, dpgw, changing, markOf };
}

/**
 * team.yaml (name: team) provisions track and vessel, other.yaml (name: other) weather, and a
 * table made by hand, unmarked, uses schema track. Then team.yaml lists track only.
 */
async function threeOwners() {
  const setup = await setUp();
  const { sandbox, write, dpgw, markOf } = setup;
  const team = write('team.yaml', `name: team\ndataSets:\n${entry('track', 'track')}${entry('vessel', 'vessel')}`);
  expect((await dpgw(['provision', team])).code).toBe(0);
  const other = write('other.yaml', `name: other\ndataSets:\n${entry('weather', 'weather')}`);
  expect((await dpgw(['provision', other])).code).toBe(0);
  const byHand = trackTable('mock-data-library.track.track', 'kafka', (table) => (table.tableName = 'unmarked'));
  expect(sandbox.store.addTable(byHand, () => true).status).toBe(200);
  expect([markOf('track'), markOf('vessel'), markOf('weather'), markOf('unmarked')]).toEqual(['team', 'team', 'other', undefined]);
  write('team.yaml', `name: team\ndataSets:\n${entry('track', 'track')}`);
  sandbox.requestLog.clear();
  return { ...setup, team };
}

describe('the mark of a manifest', () => {
  it('is its name: name:, else the folder of a provision.yaml or the file name; a table another name marked is refused, and --adopt shows the mark as the difference and updates it', async () => {
    const { dpgw, markOf, write } = await setUp();
    expect((await dpgw(['provision', join(ROOT, 'examples/track/provision.yaml')])).code).toBe(0);
    expect(markOf('track')).toBe('track');
    // The same table under a manifest of another name: refused, unless adopted; then a difference in the plan, the mark in the run.
    const renamed = write('renamed.yaml', `name: fleet\ndataSets:\n${entry('track', 'track')}`);
    const refused = await dpgw(['provision', renamed, '--plan', '--detailed-exitcode']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stdout).toContain('refused: table track belongs to manifest track');
    const plan = await dpgw(['provision', renamed, '--plan', '--detailed-exitcode', '--adopt']);
    expect(plan.code, plan.stderr).toBe(7);
    expect(plan.stdout).toContain('~ metadata.customConfigs["dpgw.manifest"]: "track" → "fleet"');
    expect((await dpgw(['provision', renamed, '--adopt'])).code).toBe(0);
    expect(markOf('track')).toBe('fleet');
    // Without name: the folder of a provision.yaml names it; a name so taken is every folder's of that name, so it is not the manifest that gave itself that name.
    mkdirSync(join(dirname(renamed), 'fleet'));
    const inFolder = write('fleet/provision.yaml', `dataSets:\n${entry('track', 'track')}`.replace(/schema: track-schema/, 'schema: ../track-schema'));
    const taken = await dpgw(['provision', inFolder, '--plan', '--allow-outside-files', '--detailed-exitcode']);
    expect(taken.code, taken.stderr).toBe(2);
    expect(taken.stdout).toContain('refused: table track belongs to manifest fleet, not to this manifest, fleet (a name taken from its file or folder), by its mark');
  });

  it('a name derived from a path that breaks the name rule is refused at the top of the manifest, naming name:', async () => {
    const { dpgw, write } = await setUp();
    const badly = write('my team.yaml', `dataSets:\n${entry('track', 'track')}`);
    const result = await dpgw(['provision', badly, '--plan']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('give the manifest a name: of its own');
  });
});

describe('dpgw provision --prune', () => {
  it('without --prune nothing is deleted; --plan --prune shows each deletion as a step, exit 7, and sends nothing', async () => {
    const { dpgw, team, changing } = await threeOwners();
    const plain = await dpgw(['provision', team, '--yes']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(changing().filter((e) => e.method === 'DELETE')).toEqual([]);

    const before = changing().length;
    const planned = await dpgw(['provision', team, '--plan', '--prune', '--detailed-exitcode', '--json']);
    expect(planned.code, planned.stderr).toBe(7);
    const document = JSON.parse(planned.stdout);
    expect(planDocument.safeParse(document).error).toBeUndefined();
    expect(document.prune).toMatchObject({ manifest: 'team', mark: { key: 'dpgw.manifest', value: 'team' }, note: expect.stringContaining('enablements are not deleted') });
    expect(document.prune.steps.map((s: { step: string; action: string; request: { method: string; path: string } }) => `${s.step} ${s.action} ${s.request.method} ${s.request.path}`)).toEqual([
      'table delete DELETE /api/internal/olap/tables/vessel?type=realtime',
      'schema delete DELETE /api/internal/olap/schemas/vessel',
    ]);
    expect(document.actions.delete).toBe(2);
    expect(document.changes).toBe(true);

    const human = await dpgw(['provision', team, '--plan', '--prune']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('prune (tables marked dpgw.manifest: team)');
    expect(human.stdout).toMatch(/1\. table +delete +DELETE table vessel: marked dpgw.manifest: team, and the manifest no longer lists it/);
    expect(human.stdout).toMatch(/2\. schema +delete +DELETE schema vessel: the schema of table vessel, and no other table uses it/);
    expect(human.stdout.match(/enablements are not deleted/g)).toHaveLength(1);
    expect(human.stdout).toContain('1 table and 1 schema to delete');
    expect(changing().length).toBe(before);
  });

  it('without a terminal and without --yes: exit 2, CONFIRMATION_REQUIRED, nothing sent at all', async () => {
    const { dpgw, team, sandbox } = await threeOwners();
    const result = await dpgw(['provision', team, '--prune', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'CONFIRMATION_REQUIRED' });
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
  });

  it("deletes only this manifest's marked tables it no longer lists, tables first, schemas after; another manifest's table and an unmarked one stay; the plan converges", async () => {
    const { dpgw, team, sandbox, changing } = await threeOwners();
    const result = await dpgw(['provision', team, '--prune', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.prune.steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['table changed', 'schema changed']);
    expect(changing().filter((e) => e.method === 'DELETE').map((e) => e.path)).toEqual(['/api/internal/olap/tables/vessel', '/api/internal/olap/schemas/vessel']);
    expect([...sandbox.store.tables.keys()].sort()).toEqual(['track', 'unmarked', 'weather']);
    expect([...sandbox.store.schemas.keys()].sort()).toEqual(['track', 'weather']);

    const again = await dpgw(['provision', team, '--plan', '--prune', '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('nothing to delete');
  });

  it('in a GitHub Actions workflow: the step summary shows the deletions, and the changes output counts them', async () => {
    const { dpgw, team, env } = await threeOwners();
    const summaryFile = join(env.DPGW_CONFIG_DIR!, 'summary.md');
    const outputFile = join(env.DPGW_CONFIG_DIR!, 'output.txt');
    writeFileSync(summaryFile, '');
    writeFileSync(outputFile, '');
    const workflow = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile, GITHUB_OUTPUT: outputFile, GITHUB_WORKSPACE: env.DPGW_CONFIG_DIR! };
    const planned = await dpgw(['provision', team, '--plan', '--prune'], workflow);
    expect(planned.code, planned.stderr).toBe(0);
    expect(readFileSync(summaryFile, 'utf8')).toMatch(/1\. table +delete +DELETE table vessel/);
    expect(readFileSync(outputFile, 'utf8')).toMatch(/^changes=2$/m);
    writeFileSync(summaryFile, '');
    writeFileSync(outputFile, '');
    const run = await dpgw(['provision', team, '--prune', '--yes'], workflow);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(summaryFile, 'utf8')).toMatch(/2\. schema +delete +changed +schema vessel deleted/);
    expect(readFileSync(outputFile, 'utf8')).toMatch(/^changes=2$/m);
  });

  it('a run in which a data set failed prunes nothing: each deletion skipped, saying why', async () => {
    const { dpgw, write, sandbox, changing } = await threeOwners();
    // The sensor feed's readings, as its schema names them (its messages are no track reports).
    write('telemetry-schema.yaml', 'schemaName: telemetry\ndimensionFieldSpecs:\n  - { name: id, dataType: STRING }\n  - { name: source, dataType: STRING }\nmetricFieldSpecs:\n  - { name: reading, dataType: DOUBLE }\n  - { name: lon, dataType: DOUBLE }\n  - { name: lat, dataType: DOUBLE }\ndateTimeFieldSpecs:\n  - { name: time, dataType: LONG, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }\n');
    const team = write('team.yaml', `name: team\ndataSets:\n${entry('track', 'track')}  - { datasource: mock-sensor-feed, dataset: telemetry, groups: [${TRACK_GROUP}], schema: telemetry-schema.yaml, table: { name: telemetry } }\n`);
    sandbox.faults.update({ failures: [{ method: 'POST', path: '/api/internal/olap/tables', status: 400, body: { code: 400, error: 'Invalid table config (injected)' } }] });
    const result = await dpgw(['provision', team, '--prune', '--yes', '--json']);
    expect(result.code).toBe(3);
    const summary = JSON.parse(result.stdout);
    expect(summary.prune.steps.map((s: { step: string; status: string; reason: string }) => `${s.step} ${s.status} ${s.reason}`)).toEqual([
      'table skipped table vessel: not deleted, a data set failed, and a run that failed prunes nothing',
      'schema skipped schema vessel: not deleted, a data set failed, and a run that failed prunes nothing',
    ]);
    expect(changing().filter((e) => e.method === 'DELETE')).toEqual([]);
    expect(sandbox.store.tables.has('vessel')).toBe(true);
  });

  it('a schema another table still uses stays when its marked table goes', async () => {
    const { dpgw, write, sandbox } = await threeOwners();
    // team.yaml now lists vessel only: its track table goes, schema track stays (the unmarked table uses it).
    const team = write('team.yaml', `name: team\ndataSets:\n${entry('vessel', 'vessel')}`);
    const result = await dpgw(['provision', team, '--prune', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).prune.steps.map((s: { reason: string }) => s.reason)).toEqual([expect.stringMatching(/^table track deleted/)]);
    expect(sandbox.store.schemas.has('track')).toBe(true);
  });

  it('at a terminal: the plan shows what it deletes and asks once; yes deletes', async () => {
    const { env, team, sandbox } = await threeOwners();
    const result = await atTerminal(['provision', team, '--prune'], { env, when: 'Apply these changes?', keys: 'y\\r' });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text.indexOf('DELETE table vessel')).toBeGreaterThan(-1);
    expect(text.indexOf('DELETE table vessel')).toBeLessThan(text.indexOf('Apply these changes?'));
    expect(text).not.toContain('Delete 1 table');
    expect(sandbox.store.tables.has('vessel')).toBe(false);
  });

  it('a gateway that does not list tables: --prune is refused with one line, nothing deleted', async () => {
    const { dpgw, team, sandbox, changing } = await threeOwners();
    sandbox.faults.update({ failures: [{ method: 'GET', path: '/api/internal/olap/tables', status: 405, times: 5, body: { status: 405, error: 'Method Not Allowed', message: 'Request method not supported', path: '/api/internal/olap/tables' } }] });
    const result = await dpgw(['provision', team, '--plan', '--prune', '--json']);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'STORE_LISTING_NOT_EXPOSED' });
    expect(changing()).toEqual([]);
  });
});

describe('--format markdown of a run with --prune (a pull-request comment)', () => {
  it("a failed deletion's server text stays inert: the prune's lines are a fenced block, as under a plan", async () => {
    const { dpgw, team, sandbox } = await threeOwners();
    const hostile = 'denied [sign in again](https://evil.example/x) <img src=https://evil.example/p.png> **now**';
    sandbox.faults.update({ failures: [{ method: 'DELETE', path: '/api/internal/olap/tables/vessel', status: 400, times: 5, body: { status: 400, error: 'Bad Request', message: hostile } }] });
    const result = await dpgw(['provision', team, '--prune', '--yes', '--format', 'markdown']);
    expect(result.code, result.stderr).not.toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const failed = lines.findIndex((line) => line.includes('evil.example'));
    expect(failed, result.stdout).toBeGreaterThan(0);
    // Inside a fence: an opening fence above it, a closing one below, so GitHub shows no link, image or bold.
    const fences = lines.map((line, i) => (/^`{3,}$/.test(line) ? i : -1)).filter((i) => i >= 0);
    expect(fences.some((open) => open < failed) && fences.some((close) => close > failed), result.stdout).toBe(true);
  });
});
