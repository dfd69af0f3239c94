/**
 * Changes that force a replacement (issue #47 §2), as a pipeline meets them: the built binary
 * against the sandbox. A table made on its data set's topic is moved by the manifest to
 * another topic (`table.topic`): the store would take that silently and read the new topic
 * from the old one's offsets, so the plan says `replace` with the field and the rows lost, a
 * run without --allow-replace is refused before anything of the data set is sent, and with it
 * the table is deleted, waited for, created anew and consumes the new topic.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/error-codes.js';
import { REPLACEMENT_RULES } from '../../src/olap/replacement-fields.js';
import { planDocument } from '../../src/provision/plan-format.js';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { atTerminal, screen } from '../helpers/at-terminal.js';
import { BIN, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv, changesThePlatform } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { TRACK_SCHEMA_FILE } from '../helpers/track.js';
import type { StepRecord as Step } from '../../src/provision/steps/step-record.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 50, tableDeletionDelayMs: 300 });

const TOPIC_A = 'mock-data-library.track.track';
const TOPIC_B = 'mock-data-library.track-v2.track';
const TOPIC_KEY_LINE = '~ tableIndexConfig.streamConfigs["stream.mq.topic.name"]';

/** Table track made on its data set's topic (A); the data set also enabled in enablement track-v2, whose topic (B) the manifest can then name. */
async function trackOnTopicA() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const folder = env.DPGW_CONFIG_DIR!;
  writeFileSync(join(folder, 'track-schema.yaml'), readFileSync(TRACK_SCHEMA_FILE, 'utf8'));
  const file = join(folder, 'provision.yaml');
  const manifest = (table: string) => writeFileSync(file, `name: fleet\ndataSets:\n  - datasource: mock-data-library\n    dataset: track\n    groups: [${TRACK_GROUP}]\n    schema: track-schema.yaml\n    table: { ${table} }\n`);
  const dpgw = (args: string[]) => spawnDpgw(['provision', file, ...args], { env });
  // At a terminal the run shows its plan and asks to apply it first; the replacement then asks for the table's name.
  const atPrompt = (keys: string) => atTerminal(['provision', file], { env, steps: [{ when: 'Apply these changes?', keys: 'y\\r' }, { when: 'Type track to replace table track', keys }], timeoutSeconds: 60 });
  manifest('name: track');
  const made = await dpgw([]);
  expect(made.code, made.stderr).toBe(0);
  const enabled = await spawnDpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP, '--enablement', 'track-v2'], { env });
  expect(enabled.code, enabled.stderr).toBe(0);
  expect(sandbox.store.tables.get('track')!.topic).toBe(TOPIC_A);
  const rowsOnA = sandbox.store.stream!.partitions(TOPIC_A)!.reduce((sum, count) => sum + count, 0);
  expect(rowsOnA).toBeGreaterThan(0);
  sandbox.requestLog.clear();
  // What changes the platform; the broker's row count is a query (a POST that reads), not a change, and the plan's validate calls neither.
  const changing = () => sandbox.requestLog.of('gateway').filter((e) => changesThePlatform(e) && !e.path.endsWith('/query/sql'));
  return { sandbox, env, manifest, dpgw, atPrompt, changing, rowsOnA, file };
}

/** The table step of a data set, or of a plan's or a run's first data set. */
const tableStep = (of: { steps?: Step[]; plan?: Array<{ steps: Step[] }>; dataSets?: Array<{ steps: Step[] }> }) => (of.steps ?? (of.plan ?? of.dataSets)![0]!.steps).find((s) => s.step === 'table')!;

describe('a topic change forces a replacement', () => {
  it('the plan says replace, naming the field, the rows stored and the flag the run needs; exit 7 with --detailed-exitcode; nothing sent', async () => {
    const { manifest, dpgw, changing, rowsOnA } = await trackOnTopicA();
    manifest(`name: track, topic: ${TOPIC_B}`);
    const planned = await dpgw(['--plan', '--json', '--detailed-exitcode']);
    expect(planned.code, planned.stderr).toBe(7);
    const document = JSON.parse(planned.stdout);
    expect(planDocument.safeParse(document).error).toBeUndefined();
    const table = tableStep(document);
    expect(table.action).toBe('replace');
    expect(table.reason).toBe(
      `DELETE table track, wait until the store no longer holds it, POST it anew: the stream topic (tableIndexConfig.streamConfigs["stream.mq.topic.name"]) cannot change in place; rows stored: ${rowsOnA.toLocaleString('en-US')}, lost with the table; the run needs --allow-replace (at a terminal: the table's name typed), or it refuses this data set (REPLACE_NEEDED)`,
    );
    expect(table.difference).toContain(`${TOPIC_KEY_LINE}: "${TOPIC_A}" → "${TOPIC_B}"`);
    expect(table.requests!.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /api/internal/olap/tables/track?type=realtime', 'POST /api/internal/olap/tables']);
    expect(document.actions.replace).toBe(1);

    const text = await dpgw(['--plan']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/5\. table +replace +DELETE table track, wait until the store no longer holds it, POST it anew: the stream topic/);
    const markdown = await dpgw(['--plan', '--format', 'markdown']);
    expect(markdown.stdout).toMatch(/\| track \|.*\| replace \|/);
    expect(markdown.stdout).toContain('table (replace): DELETE table track');
    expect(markdown.stdout).toContain(`${TOPIC_KEY_LINE}: "${TOPIC_A}" → "${TOPIC_B}"`);
    expect(changing()).toEqual([]);
  });

  it('a run without --allow-replace and no terminal is refused: REPLACE_NEEDED at the table.topic line, exit 2, nothing of the data set sent', async () => {
    const { sandbox, manifest, dpgw, changing, rowsOnA, file } = await trackOnTopicA();
    manifest(`name: track, topic: ${TOPIC_B}`);
    const result = await dpgw(['--json']);
    expect(result.code, result.stderr).toBe(ERROR_CODES.REPLACE_NEEDED.exit);
    const track = JSON.parse(result.stdout).dataSets[0];
    expect(track.status).toBe('failed');
    expect(track.error).toMatchObject({
      code: 'REPLACE_NEEDED',
      message: `table track must be replaced (deleted and created anew): the stream topic (tableIndexConfig.streamConfigs["stream.mq.topic.name"]) cannot change in place; rows stored: ${rowsOnA.toLocaleString('en-US')}, lost with the table; nothing of this data set was sent`,
      hint: expect.stringContaining('pass --allow-replace'),
      location: expect.stringContaining(`${file}:7:`),
    });
    expect(tableStep(track)).toMatchObject({ action: 'refused', status: 'failed' });
    expect(track.steps.filter((s: Step) => s.step !== 'table').map((s: Step) => s.status)).toEqual(track.steps.filter((s: Step) => s.step !== 'table').map(() => 'blocked'));
    expect(changing()).toEqual([]);
    expect(sandbox.store.tables.get('track')!.topic).toBe(TOPIC_A);

    const text = await dpgw([]);
    expect(text.code).toBe(2);
    // The text says where, as --json does: the data set, then the manifest's table.topic line.
    expect(text.stderr).toMatch(new RegExp(`^dpgw: track: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7:\\d+: table track must be replaced \\(deleted and created anew\\): the stream topic`, 'm'));
    expect(changing()).toEqual([]);
  });

  it('with --allow-replace the table is deleted, waited for, created anew on the new topic and consumes it; the summary says replaced', async () => {
    const { sandbox, manifest, dpgw, changing, rowsOnA } = await trackOnTopicA();
    manifest(`name: track, topic: ${TOPIC_B}`);
    const result = await dpgw(['--allow-replace', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const track = JSON.parse(result.stdout).dataSets[0];
    expect(tableStep(track)).toMatchObject({
      action: 'replace',
      status: 'changed',
      reason: expect.stringMatching(new RegExp(`^table track replaced: deleted \\(the store no longer holds it \\(after [\\d.]+ s\\)\\) and created anew, for the stream topic \\(.*\\); rows stored: ${rowsOnA.toLocaleString('en-US')} before, lost$`)),
    });
    expect(track.steps.find((s: Step) => s.step === 'consume')).toMatchObject({ status: 'passed', reason: expect.stringContaining(`of topic ${TOPIC_B}`) });
    expect(sandbox.store.tables.get('track')!.topic).toBe(TOPIC_B);
    // The table only: the step's POST (409: it exists, as for any table), DELETE, POST again; no PUT, the schema kept.
    expect(changing().filter((e) => e.path.includes('/olap/tables')).map((e) => `${e.method} ${e.path}`)).toEqual(['POST /api/internal/olap/tables', 'DELETE /api/internal/olap/tables/track', 'POST /api/internal/olap/tables']);
    expect(sandbox.store.schemas.has('track')).toBe(true);

    const again = await dpgw(['--plan', '--json', '--detailed-exitcode']);
    expect(again.code, again.stderr).toBe(0);
    expect(tableStep(JSON.parse(again.stdout)).action).toBe('none');
  });

  it('at a terminal without the flag, the table\'s name is asked for: another answer sends nothing (exit 2), the name replaces it', async () => {
    const { sandbox, manifest, atPrompt, changing } = await trackOnTopicA();
    manifest(`name: track, topic: ${TOPIC_B}`);
    const wrong = await atPrompt('trakc\\r');
    expect(wrong.code, screen(wrong.stdout)).toBe(2);
    expect(screen(wrong.stdout)).toContain('table track must be replaced (deleted and created anew): the stream topic');
    expect(screen(wrong.stdout)).toContain('"trakc" is not track: the replacement was not confirmed; nothing was sent');
    expect(changing()).toEqual([]);
    const right = await atPrompt('track\\r');
    expect(right.code, screen(right.stdout)).toBe(0);
    expect(screen(right.stdout)).toMatch(/\btrack replaced\b/);
    expect(sandbox.store.tables.get('track')!.topic).toBe(TOPIC_B);
  });

  it('a replacement that also adds a column: the new table holds no rows to reload, so neither the plan nor the run has a reload', async () => {
    const { sandbox, env, manifest, dpgw, changing } = await trackOnTopicA();
    const schemaFile = join(env.DPGW_CONFIG_DIR!, 'track-schema.yaml');
    writeFileSync(schemaFile, readFileSync(schemaFile, 'utf8').replace('dimensionFieldSpecs:\n', 'dimensionFieldSpecs:\n  - { name: fleet, dataType: STRING }\n'));
    manifest(`name: track, topic: ${TOPIC_B}`);
    const planned = JSON.parse((await dpgw(['--plan', '--json'])).stdout).plan[0];
    expect(planned.steps.find((s: Step) => s.step === 'schema').action).toBe('update');
    expect(tableStep(planned).action).toBe('replace');
    expect(planned.steps.find((s: Step) => s.step === 'reload')).toBeUndefined();
    const result = await dpgw(['--allow-replace', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).dataSets[0].steps.find((s: Step) => s.step === 'reload')).toBeUndefined();
    expect(changing().some((e) => e.path.includes('/reload'))).toBe(false);
    expect(sandbox.store.tables.get('track')!.topic).toBe(TOPIC_B);
  });

  it('the text summary says replaced', async () => {
    const { manifest, dpgw } = await trackOnTopicA();
    manifest(`name: track, topic: ${TOPIC_B}`);
    const result = await dpgw(['--allow-replace']);
    expect(result.code, result.stderr).toBe(0);
    // The summary's table column: replaced, not just changed.
    expect(result.stdout).toMatch(/^track +\S+ +track \S+ +track replaced +/m);
  });

  it('a store that refuses the new table after dropping the old one: the step says the table was deleted and not created, with its rows lost, never "create failed"', async () => {
    const { sandbox, manifest, dpgw, rowsOnA } = await trackOnTopicA();
    manifest(`name: track, topic: ${TOPIC_B}`);
    // The step's first POST meets the table (409), as any run's; the POST after the DELETE is refused.
    sandbox.faults.update({
      failures: [
        { method: 'POST', path: '/api/internal/olap/tables', status: 409, body: { code: 409, error: 'Table track_REALTIME already exists' } },
        { method: 'POST', path: '/api/internal/olap/tables', status: 400, body: { code: 400, error: 'Invalid table config: track' } },
      ],
    });
    const result = await dpgw(['--allow-replace', '--json']);
    expect(result.code, result.stderr).toBe(3);
    expect(sandbox.store.tables.has('track')).toBe(false);
    const track = JSON.parse(result.stdout).dataSets[0];
    const deleted = `table track was deleted to be replaced (rows stored: ${rowsOnA.toLocaleString('en-US')}, lost with it) but not created anew:`;
    expect(tableStep(track)).toMatchObject({ action: 'replace', status: 'failed', reason: expect.stringContaining(deleted) });
    expect(tableStep(track).reason).toContain('Invalid table config: track');
    expect(track.error).toMatchObject({ code: 'REQUEST_REJECTED', message: expect.stringContaining(deleted), hint: expect.stringContaining('the store holds no table track now') });
    expect(result.stderr).toContain(deleted);
  });

  it('a gateway that does not pass the DELETE on: the replace step fails as a replace, saying nothing was deleted', async () => {
    const { sandbox, manifest, dpgw } = await trackOnTopicA();
    manifest(`name: track, topic: ${TOPIC_B}`);
    sandbox.faults.update({ failures: [{ method: 'DELETE', path: '/api/internal/olap/tables/track', status: 405, body: { code: 405, error: 'Method Not Allowed' } }] });
    const result = await dpgw(['--allow-replace', '--json']);
    expect(result.code, result.stderr).toBe(3);
    expect(tableStep(JSON.parse(result.stdout).dataSets[0])).toMatchObject({ action: 'replace', status: 'failed', reason: expect.stringContaining('nothing was deleted') });
    expect(sandbox.store.tables.get('track')!.topic).toBe(TOPIC_A);
  });

  it("another manifest's table is never replaced, --adopt or not: the plan says so, the run is refused (REPLACE_NEEDED) with nothing sent, and its rows stay", async () => {
    const { sandbox, env, changing, rowsOnA, file } = await trackOnTopicA();
    // teamb names fleet's table with another topic, and passes both flags.
    const other = join(file, '..', 'teamb.yaml');
    writeFileSync(other, `name: teamb\ndataSets:\n  - datasource: mock-data-library\n    dataset: track\n    groups: [${TRACK_GROUP}]\n    schema: track-schema.yaml\n    table: { name: track, topic: ${TOPIC_B} }\n`);
    const teamb = (args: string[]) => spawnDpgw(['provision', other, '--adopt', '--allow-replace', ...args], { env });
    const planned = await teamb(['--plan', '--json']);
    expect(planned.code, planned.stderr).toBe(2);
    expect(tableStep(JSON.parse(planned.stdout))).toMatchObject({ action: 'refused', reason: expect.stringContaining('belongs to manifest fleet') });
    const run = await teamb(['--json']);
    expect(run.code, run.stderr).toBe(2);
    const track = JSON.parse(run.stdout).dataSets[0];
    expect(track.error).toMatchObject({ code: 'REPLACE_NEEDED', message: expect.stringContaining('and it belongs to manifest fleet by its mark'), hint: expect.stringContaining('--adopt') });
    expect(changing()).toEqual([]);
    expect(sandbox.store.tables.get('track')!.topic).toBe(TOPIC_A);
    expect(sandbox.store.stream!.partitions(TOPIC_A)!.reduce((sum, count) => sum + count, 0)).toBe(rowsOnA);
  });

  it('a change the store makes in place is still an update, with or without the flag', async () => {
    const { sandbox, manifest, dpgw } = await trackOnTopicA();
    manifest('name: track, retentionDays: 60');
    const planned = await dpgw(['--plan', '--json']);
    expect(tableStep(JSON.parse(planned.stdout))).toMatchObject({ action: 'update', difference: [expect.stringMatching(/^~ segmentsConfig\.retentionTimeValue: "\d+" → 60$/)] });
    const result = await dpgw(['--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(tableStep(JSON.parse(result.stdout))).toMatchObject({ action: 'update', status: 'changed' });
    expect(sandbox.requestLog.of('gateway').filter((e) => e.method === 'DELETE')).toEqual([]);
  });

  it('a table no manifest marked (made by table create) is replaced only when the run takes it over with --adopt too: --allow-replace alone is refused, nothing sent', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const folder = env.DPGW_CONFIG_DIR!;
    writeFileSync(join(folder, 'track-schema.yaml'), readFileSync(TRACK_SCHEMA_FILE, 'utf8'));
    const enable = async (enablement: string) => {
      const enabled = await spawnDpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP, '--enablement', enablement], { env });
      expect(enabled.code, enabled.stderr).toBe(0);
    };
    await enable('track');
    const pushed = await spawnDpgw(['schema', 'push', join(folder, 'track-schema.yaml')], { env });
    expect(pushed.code, pushed.stderr).toBe(0);
    const made = await spawnDpgw(['table', 'create', '--dataset', 'track', '--schema', join(folder, 'track-schema.yaml'), '--wait-consuming', '0'], { env });
    expect(made.code, made.stderr).toBe(0);
    await enable('track-v2');
    expect(sandbox.store.tables.get('track')!.topic).toBe(TOPIC_A);
    const file = join(folder, 'provision.yaml');
    writeFileSync(file, `name: fleet\ndataSets:\n  - datasource: mock-data-library\n    dataset: track\n    groups: [${TRACK_GROUP}]\n    schema: track-schema.yaml\n    table: { name: track, topic: ${TOPIC_B} }\n`);
    const dpgw = (args: string[]) => spawnDpgw(['provision', file, '--wait-consuming', '0', ...args], { env });

    const planned = await dpgw(['--plan', '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(tableStep(JSON.parse(planned.stdout))).toMatchObject({ action: 'replace', reason: expect.stringContaining("no manifest's mark proves this manifest manages it: the run needs --adopt and --allow-replace") });

    sandbox.requestLog.clear();
    const refused = await dpgw(['--allow-replace', '--json']);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).dataSets[0].error).toMatchObject({ code: 'REPLACE_NEEDED' });
    expect(refused.stderr).toContain("no manifest's mark proves this manifest manages it: it is replaced only when the run takes it over with --adopt too; nothing of this data set was sent");
    expect(sandbox.requestLog.of('gateway').filter((e) => changesThePlatform(e) && !e.path.endsWith('/query/sql'))).toEqual([]);
    expect(sandbox.store.tables.get('track')!.topic).toBe(TOPIC_A);

    const replaced = await dpgw(['--allow-replace', '--adopt', '--json']);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(tableStep(JSON.parse(replaced.stdout))).toMatchObject({ action: 'replace', status: 'changed' });
    expect(sandbox.store.tables.get('track')!.topic).toBe(TOPIC_B);
  });
});

describe('a replacement stopped at once', () => {
  const slowDrops = sandboxPerTest({ topicDelayMs: 50, tableDeletionDelayMs: 3000 });

  it('SIGINT then SIGTERM (a CI runner cancelling) while the store drops the table: the run quits, and its last line says the table was deleted and not created anew', async () => {
    const sandbox = await slowDrops.start();
    const env = await adminPipelineEnv(sandbox);
    const folder = env.DPGW_CONFIG_DIR!;
    writeFileSync(join(folder, 'track-schema.yaml'), readFileSync(TRACK_SCHEMA_FILE, 'utf8'));
    const file = join(folder, 'provision.yaml');
    const manifest = (table: string) => writeFileSync(file, `name: fleet\ndataSets:\n  - datasource: mock-data-library\n    dataset: track\n    groups: [${TRACK_GROUP}]\n    schema: track-schema.yaml\n    table: { ${table} }\n`);
    manifest('name: track');
    expect((await spawnDpgw(['provision', file], { env })).code).toBe(0);
    expect((await spawnDpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP, '--enablement', 'track-v2'], { env })).code).toBe(0);
    manifest(`name: track, topic: ${TOPIC_B}`);
    sandbox.requestLog.clear();
    const child = spawn(process.execPath, [BIN, 'provision', file, '--allow-replace', '--json'], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    while (!sandbox.requestLog.of('gateway').some((e) => e.method === 'DELETE')) await new Promise((r) => setTimeout(r, 20));
    // As a runner cancels: SIGINT, then SIGTERM while the run still waits for the store to drop the table.
    child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGTERM');
    expect(await exited).toBe(130);
    expect(stderr).toContain('warning: quit at once: table track was being replaced: its DELETE was sent (rows stored: ');
    expect(stderr).toContain('lost with it) and it was not created anew; run provision again: it creates the table');
    expect(sandbox.requestLog.of('gateway').filter((e) => e.method === 'POST' && e.path === '/api/internal/olap/tables').length).toBe(1);
  });
});

describe('docs/replacement.md', () => {
  it('lists every field of the rule, with the same reason', () => {
    const page = readFileSync(join(ROOT, 'docs/replacement.md'), 'utf8');
    const rows = [...page.matchAll(/^\| ([a-z][^|]+?) \| [^|]+ \| (.+) \|$/gm)].map((m) => [m[1], m[2]!.replace(/`/g, '')]).filter(([field]) => field !== 'field');
    expect(rows.map(([field]) => field)).toEqual(REPLACEMENT_RULES.map((rule) => rule.field));
    for (const rule of REPLACEMENT_RULES) expect(rows.find(([field]) => field === rule.field)![1]).toContain(rule.why.replace(/`/g, ''));
  });
});
