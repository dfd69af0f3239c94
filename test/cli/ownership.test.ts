/**
 * A table belongs to one manifest (issue 44, part 3), as a pipeline meets it: the built binary
 * against the sandbox. Two teams keep a manifest each in a folder named `analytics`
 * (teamA/analytics/provision.yaml, teamB/analytics/provision.yaml), so a name taken from the
 * path is the same for both; a prune needs a `name:`, a table another manifest marked is
 * refused unless --adopt, and the plan shows the owner of what it deletes or adopts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/error-codes.js';
import { planDocument } from '../../src/provision/plan-format.js';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv, changesThePlatform } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { TRACK_SCHEMA_FILE, trackSchema, trackTable } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 50, tableDeletionDelayMs: 100 });

const entry = (dataset: string) => `  - { datasource: mock-data-library, dataset: ${dataset}, groups: [${TRACK_GROUP}], schema: ${dataset}-schema.yaml, table: { name: ${dataset} } }\n`;

interface Step {
  step: string;
  action: string;
  status?: string;
  reason: string;
  owner?: string | null;
}

async function twoTeams() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const root = env.DPGW_CONFIG_DIR!;
  const track = readFileSync(TRACK_SCHEMA_FILE, 'utf8');
  /** teamA/analytics/provision.yaml or teamB's, with a schema file per data set beside it. */
  const manifest = (team: 'teamA' | 'teamB', name: string | undefined, dataSets: string[]) => {
    const folder = join(root, team, 'analytics');
    mkdirSync(folder, { recursive: true });
    for (const dataset of ['track', 'vessel', 'weather']) writeFileSync(join(folder, `${dataset}-schema.yaml`), track.replace(/^schemaName: track$/m, `schemaName: ${dataset}`));
    writeFileSync(join(folder, 'provision.yaml'), `${name === undefined ? '' : `name: ${name}\n`}dataSets:\n${dataSets.map(entry).join('')}`);
    return join(folder, 'provision.yaml');
  };
  const dpgw = (args: string[]) => spawnDpgw(args, { env });
  const changing = () => sandbox.requestLog.of('gateway').filter(changesThePlatform);
  const markOf = (table: string) => sandbox.store.tables.get(table)?.definition.metadata?.customConfigs['dpgw.manifest'];
  return { sandbox, manifest, dpgw, changing, markOf, root };
}

/** Whether a request names a data set anywhere: its path or its body. */
const mentions = (request: { path: string; body: unknown }, word: string) => request.path.includes(word) || JSON.stringify(request.body ?? '').includes(word);

describe('the prune collision of two folders named analytics', () => {
  it("teamA's --prune without name: is refused before anything is sent, and teamB's table and schema stay", async () => {
    const { manifest, dpgw, sandbox, markOf } = await twoTeams();
    const teamB = manifest('teamB', undefined, ['vessel']);
    expect((await dpgw(['provision', teamB])).code).toBe(0);
    expect(markOf('vessel')).toBe('analytics');
    const teamA = manifest('teamA', undefined, ['track']);
    sandbox.requestLog.clear();

    for (const args of [['--prune', '--yes'], ['--plan', '--prune']]) {
      const result = await dpgw(['provision', teamA, ...args, '--json']);
      expect(result.code, result.stderr).toBe(ERROR_CODES.MANIFEST_NAME_REQUIRED.exit);
      const { error } = JSON.parse(result.stdout);
      expect(error).toMatchObject({ code: 'MANIFEST_NAME_REQUIRED', message: expect.stringContaining('--prune needs a manifest with a name: of its own'), hint: expect.stringContaining('add name:') });
      expect(error.location).toContain(join('teamA', 'analytics', 'provision.yaml'));
    }
    const line = await dpgw(['provision', teamA, '--prune', '--yes']);
    expect(line.code).toBe(2);
    expect(line.stderr.trim().split('\n')).toHaveLength(1);
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
    expect(sandbox.store.tables.has('vessel')).toBe(true);
    expect(sandbox.store.schemas.has('vessel')).toBe(true);
  });

  it("with a name: of its own teamA prunes its own tables only: teamB's stay, and the plan shows each deletion's owner", async () => {
    const { manifest, dpgw, sandbox, changing } = await twoTeams();
    expect((await dpgw(['provision', manifest('teamB', undefined, ['vessel'])])).code).toBe(0);
    expect((await dpgw(['provision', manifest('teamA', 'team-a', ['track', 'weather'])])).code).toBe(0);
    const teamA = manifest('teamA', 'team-a', ['track']);
    sandbox.requestLog.clear();

    const planned = await dpgw(['provision', teamA, '--plan', '--prune', '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    const document = JSON.parse(planned.stdout);
    expect(planDocument.safeParse(document).error).toBeUndefined();
    expect(document.prune.steps.map((s: Step) => `${s.step} ${s.action} ${s.owner}`)).toEqual(['table delete team-a', 'schema delete undefined']);
    const text = await dpgw(['provision', teamA, '--plan', '--prune']);
    expect(text.stdout).toMatch(/1\. table +delete +DELETE table weather: marked dpgw.manifest: team-a, and the manifest no longer lists it/);
    expect(changing()).toEqual([]);

    const pruned = await dpgw(['provision', teamA, '--prune', '--yes', '--json']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(JSON.parse(pruned.stdout).prune.steps.map((s: Step) => `${s.step} ${s.status} ${s.owner}`)).toEqual(['table changed team-a', 'schema changed undefined']);
    expect([...sandbox.store.tables.keys()].sort()).toEqual(['track', 'vessel']);
    expect([...sandbox.store.schemas.keys()].sort()).toEqual(['track', 'vessel']);
  });

  it("name: analytics beside a folder named analytics: the folder's tables are not the named manifest's to prune or update, and the plan says why", async () => {
    const { manifest, dpgw, sandbox, changing } = await twoTeams();
    // teamB has no name: its table is marked with the folder's name, and says so.
    expect((await dpgw(['provision', manifest('teamB', undefined, ['vessel'])])).code).toBe(0);
    expect(sandbox.store.tables.get('vessel')!.definition.metadata!.customConfigs).toMatchObject({ 'dpgw.manifest': 'analytics' });
    expect(sandbox.store.tables.get('vessel')!.definition.metadata!.customConfigs['dpgw.manifest.named']).toBeUndefined();
    // teamA gives itself the very same name.
    expect((await dpgw(['provision', manifest('teamA', 'analytics', ['track'])])).code).toBe(0);
    expect(sandbox.store.tables.get('track')!.definition.metadata!.customConfigs).toMatchObject({ 'dpgw.manifest': 'analytics', 'dpgw.manifest.named': 'true' });
    sandbox.requestLog.clear();

    const pruned = await dpgw(['provision', manifest('teamA', 'analytics', ['track']), '--prune', '--yes', '--json']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(JSON.parse(pruned.stdout).prune.steps).toEqual([]);
    expect(sandbox.store.tables.has('vessel')).toBe(true);
    expect(changing().filter((request) => request.method === 'DELETE')).toEqual([]);

    // Nor may it take teamB's table by listing it: the folder's name is no proof of the same manifest.
    const taken = await dpgw(['provision', manifest('teamA', 'analytics', ['track', 'vessel']), '--json']);
    expect(taken.code).toBe(2);
    const refused = (JSON.parse(taken.stdout).dataSets as Array<{ dataset: string; steps: Step[] }>).find((d) => d.dataset === 'vessel')!.steps.find((s) => s.step === 'table')!;
    expect(refused).toMatchObject({ action: 'refused', owner: 'analytics', reason: expect.stringContaining('belongs to manifest analytics (a name taken from its file or folder)') });
    expect(changing().filter((request) => mentions(request, 'vessel'))).toEqual([]);
    // And teamB, without a name, may not take back what the named one marks.
    expect((await dpgw(['provision', manifest('teamB', undefined, ['track'])])).code).toBe(2);
  });
});

describe("another manifest's table", () => {
  /** teamB (name: team-b) made vessel without column alt; teamA (name: team-a) lists track and vessel, whose schema has alt: sent, it would change the store's. */
  async function claimed() {
    const setup = await twoTeams();
    const { manifest, dpgw, sandbox } = setup;
    const teamB = manifest('teamB', 'team-b', ['vessel']);
    const vesselSchema = join(setup.root, 'teamB', 'analytics', 'vessel-schema.yaml');
    writeFileSync(vesselSchema, readFileSync(vesselSchema, 'utf8').replace(/^ {2}- \{ name: alt, .*\n/m, ''));
    expect((await dpgw(['provision', teamB])).code).toBe(0);
    expect(sandbox.store.schemas.get('vessel')!.metricFieldSpecs!.map((f) => f.name)).not.toContain('alt');
    const teamA = manifest('teamA', 'team-a', ['track', 'vessel']);
    const before = { table: structuredClone(sandbox.store.tables.get('vessel')!.definition), schema: structuredClone(sandbox.store.schemas.get('vessel')) };
    sandbox.requestLog.clear();
    return { ...setup, teamA, before };
  }

  it('is refused: TABLE_OWNED_ELSEWHERE naming the owner, exit 2, and nothing of its data set sent (no enable, no schema, no table)', async () => {
    const { teamA, dpgw, sandbox, changing, before } = await claimed();
    const result = await dpgw(['provision', teamA, '--json']);
    expect(result.code, result.stderr).toBe(2);
    const summary = JSON.parse(result.stdout);
    const vessel = summary.dataSets.find((d: { dataset: string }) => d.dataset === 'vessel');
    expect(vessel.status).toBe('failed');
    expect(vessel.error).toMatchObject({ code: 'TABLE_OWNED_ELSEWHERE', message: expect.stringContaining('table vessel belongs to manifest team-b'), hint: expect.stringContaining('--adopt') });
    expect(vessel.steps.find((s: Step) => s.step === 'table')).toMatchObject({ action: 'refused', status: 'failed', owner: 'team-b' });
    expect(vessel.steps.filter((s: Step) => s.step !== 'table').map((s: Step) => s.status)).toEqual(vessel.steps.filter((s: Step) => s.step !== 'table').map(() => 'blocked'));
    expect(summary.dataSets.find((d: { dataset: string }) => d.dataset === 'track').status).toBe('done');
    // track's requests went out; none names vessel.
    expect(changing().length).toBeGreaterThan(0);
    expect(changing().filter((request) => mentions(request, 'vessel'))).toEqual([]);
    expect(sandbox.store.tables.get('vessel')!.definition).toEqual(before.table);
    expect(sandbox.store.schemas.get('vessel')).toEqual(before.schema);

    const text = await dpgw(['provision', teamA]);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('table vessel belongs to manifest team-b, not to this manifest, team-a, by its mark (metadata.customConfigs["dpgw.manifest"]); nothing of this data set was sent');
  });

  it('the plan says refused with the owner, the other steps blocked, exit 2, and sends nothing', async () => {
    const { teamA, dpgw, changing, manifest } = await claimed();
    const planned = await dpgw(['provision', teamA, '--plan', '--json']);
    expect(planned.code, planned.stderr).toBe(2);
    const document = JSON.parse(planned.stdout);
    expect(planDocument.safeParse(document).error).toBeUndefined();
    const vessel = document.plan.find((d: { dataset: string }) => d.dataset === 'vessel');
    expect(vessel.steps.map((s: Step) => `${s.step} ${s.action}${s.owner === undefined ? '' : ` ${s.owner}`}`)).toEqual(['enable blocked', 'stream blocked', 'sample blocked', 'schema blocked', 'table refused team-b', 'storage blocked', 'consume blocked']);
    const text = await dpgw(['provision', teamA, '--plan']);
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(/5\. table +refused +refused: table vessel belongs to manifest team-b, .*; --adopt takes it over/);
    // A plan of the refused data set alone: refused only, in every form, never also a change.
    const onlyRefused = manifest('teamA', 'team-a', ['vessel']);
    const alone = await dpgw(['provision', onlyRefused, '--plan', '--json']);
    expect(alone.code).toBe(2);
    expect(JSON.parse(alone.stdout)).toMatchObject({ changes: false, actions: { refused: 1 } });
    const aloneText = await dpgw(['provision', onlyRefused, '--plan']);
    expect(aloneText.stdout.trim().split('\n').at(-1)).toBe('1 data set refused: the run would fail (exit 2)');
    expect(changing()).toEqual([]);
  });

  it('--adopt takes it over: the plan shows the previous owner, the run updates it and marks it, and teamB is refused after', async () => {
    const { teamA, dpgw, markOf, manifest, sandbox } = await claimed();
    const planned = await dpgw(['provision', teamA, '--plan', '--adopt', '--json']);
    expect(planned.code, planned.stdout).toBe(0);
    const table = JSON.parse(planned.stdout).plan.find((d: { dataset: string }) => d.dataset === 'vessel').steps.find((s: Step) => s.step === 'table');
    expect(table).toMatchObject({ action: 'update', owner: 'team-b', reason: 'PUT table vessel: adopt it from manifest team-b (--adopt), and update what differs' });
    expect(table.difference).toContain('~ metadata.customConfigs["dpgw.manifest"]: "team-b" → "team-a"');
    const text = await dpgw(['provision', teamA, '--plan', '--adopt']);
    expect(text.stdout).toContain('PUT table vessel: adopt it from manifest team-b (--adopt), and update what differs');

    const run = await dpgw(['provision', teamA, '--adopt', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const step = JSON.parse(run.stdout).dataSets.find((d: { dataset: string }) => d.dataset === 'vessel').steps.find((s: Step) => s.step === 'table');
    expect(step).toMatchObject({ action: 'update', status: 'changed', owner: 'team-b', reason: expect.stringMatching(/^table vessel adopted from manifest team-b \(--adopt\) and updated: /) });
    expect(markOf('vessel')).toBe('team-a');
    expect(sandbox.store.schemas.get('vessel')!.metricFieldSpecs!.map((f) => f.name)).toContain('alt');

    const teamB = await dpgw(['provision', manifest('teamB', 'team-b', ['vessel']), '--plan']);
    expect(teamB.code).toBe(2);
    expect(teamB.stdout).toContain('refused: table vessel belongs to manifest team-a');
  });

  it('a table no manifest marked (made by hand, by dpgw table create, or before marks) is taken without --adopt, the plan saying so with owner null', async () => {
    const { manifest, dpgw, sandbox, markOf } = await twoTeams();
    const teamA = manifest('teamA', 'team-a', ['track']);
    expect((await dpgw(['provision', teamA])).code).toBe(0);
    delete sandbox.store.tables.get('track')!.definition.metadata!.customConfigs['dpgw.manifest'];
    const planned = await dpgw(['provision', teamA, '--plan', '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    const table = JSON.parse(planned.stdout).plan[0].steps.find((s: Step) => s.step === 'table');
    expect(table).toMatchObject({ action: 'update', owner: null, reason: 'PUT table track: adopt it that no manifest marked (made by hand, or by dpgw table create), and update what differs' });
    expect(table.difference).toEqual(['+ metadata.customConfigs["dpgw.manifest"]: "team-a"']);
    expect((await dpgw(['provision', teamA])).code).toBe(0);
    expect(markOf('track')).toBe('team-a');
  });

  it("an owner's mark that is no manifest name is shown quoted, its controls escaped", async () => {
    const { manifest, dpgw, sandbox } = await twoTeams();
    expect(sandbox.store.addSchema(trackSchema()).status).toBe(200);
    expect(sandbox.store.addTable(trackTable('mock-data-library.track.track', 'kafka', (t) => (t.metadata = { customConfigs: { 'dpgw.manifest': 'evil\n::error::forged' } })), () => true).status).toBe(200);
    const result = await dpgw(['provision', manifest('teamA', 'team-a', ['track']), '--plan']);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('table track belongs to manifest "evil\\n::error::forged"');
    expect(result.stdout).not.toMatch(/^::error::/m);
  });

  it('dpgw table delete, a person deleting by name, deletes whichever manifest marked it and says whose it was', async () => {
    const { manifest, dpgw, sandbox } = await twoTeams();
    expect((await dpgw(['provision', manifest('teamB', 'team-b', ['vessel'])])).code).toBe(0);
    const deleted = await dpgw(['table', 'delete', 'vessel', '--yes', '--json']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout).steps[0]).toMatchObject({ step: 'table', action: 'delete', status: 'changed', owner: 'team-b' });
    expect(sandbox.store.tables.has('vessel')).toBe(false);
  });
});
