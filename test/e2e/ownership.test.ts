/**
 * A table belongs to one manifest, on the real Pinot (issue 44, part 3): two teams keep a
 * manifest each in a folder named `analytics`, so a name taken from the path is `analytics`
 * for both. teamA's `--prune` no longer deletes teamB's table and schema: without a `name:`
 * it is refused before anything is sent; with one it deletes only its own tables; and a table
 * teamB's manifest marked is refused to teamA's (TABLE_OWNED_ELSEWHERE), Pinot's copy untouched.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminEnv, pinotSchemaStatus, pinotTable, startBackedGateway } from './backed-platform.js';

const kafka = inject('kafka');
const pinot = inject('pinot');
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startBackedGateway();
});
afterAll(() => sandbox?.close());
function markOf(table: Record<string, unknown>): unknown {
  return (table.REALTIME as { metadata?: { customConfigs?: Record<string, string> } } | undefined)?.metadata?.customConfigs?.['dpgw.manifest'];
}

/** teamA/analytics/provision.yaml and teamB/analytics/provision.yaml, each with the track schema renamed per table beside it. */
function twoTeams() {
  const env = adminEnv(sandbox.gatewayUrl, { DPGW_STREAM_PASSWORD: kafka.streamPassword });
  const root = env.DPGW_CONFIG_DIR!;
  const track = readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8');
  // Enablements of its own (so topics of its own): this file's data sets are its alone, whichever e2e file runs first.
  const manifest = (team: 'teamA' | 'teamB', name: string | undefined, entries: Array<[dataset: string, table: string]>) => {
    const folder = join(root, team, 'analytics');
    mkdirSync(folder, { recursive: true });
    for (const [, table] of entries) writeFileSync(join(folder, `${table}.yaml`), track.replace(/^schemaName: track$/m, `schemaName: ${table}`));
    const file = join(folder, 'provision.yaml');
    writeFileSync(file, `${name === undefined ? '' : `name: ${name}\n`}dataSets:\n${entries.map(([dataset, table]) => `  - { datasource: mock-data-library, dataset: ${dataset}, enablement: own-${dataset}, groups: [track-readers], schema: ${table}.yaml, table: { name: ${table} } }\n`).join('')}`);
    return file;
  };
  const dpgw = (args: string[]) => spawnDpgw(args, { env });
  return { manifest, dpgw };
}

describe(`ownership on Pinot ${pinot.version}`, () => {
  it("teamA's --prune leaves teamB's table and schema in Pinot; teamB's table is refused to teamA's manifest", async () => {
    const { manifest, dpgw } = twoTeams();
    const teamB = await dpgw(['provision', manifest('teamB', undefined, [['vessel', 'own_b_vessel']]), '--json']);
    expect(teamB.code, teamB.stderr).toBe(0);
    expect(markOf(await pinotTable('own_b_vessel'))).toBe('analytics');

    // The collision of the issue: teamA's manifest, also named analytics by its folder, lists another table and prunes.
    const unnamed = manifest('teamA', undefined, [['weather', 'own_a_weather']]);
    for (const args of [['--plan', '--prune'], ['--prune', '--yes']]) {
      const refused = await dpgw(['provision', unnamed, ...args, '--json']);
      expect(refused.code, refused.stdout).toBe(2);
      expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'MANIFEST_NAME_REQUIRED' });
    }
    expect(Object.keys(await pinotTable('own_b_vessel'))).toEqual(['REALTIME']);
    expect(await pinotSchemaStatus('own_b_vessel')).toBe(200);
    expect(await pinotTable('own_a_weather')).toEqual({});

    // With a name: of its own — even the very name teamB took from its folder — teamA prunes only what it marked: nothing of teamB's.
    const named = manifest('teamA', 'analytics', [['weather', 'own_a_weather']]);
    const planned = await dpgw(['provision', named, '--plan', '--prune', '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(JSON.parse(planned.stdout).prune.steps).toEqual([]);
    const pruned = await dpgw(['provision', named, '--prune', '--yes', '--json']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(JSON.parse(pruned.stdout).prune.steps).toEqual([]);
    expect(markOf(await pinotTable('own_a_weather'))).toBe('analytics');
    expect(markOf(await pinotTable('own_b_vessel'))).toBe('analytics');
    expect(await pinotSchemaStatus('own_b_vessel')).toBe(200);

    // teamB's table listed by teamA's manifest: refused, and Pinot's table keeps teamB's mark.
    const claimed = await dpgw(['provision', manifest('teamA', 'analytics', [['weather', 'own_a_weather'], ['vessel', 'own_b_vessel']]), '--json']);
    expect(claimed.code, claimed.stderr).toBe(2);
    const vessel = (JSON.parse(claimed.stdout) as { dataSets: Array<{ dataset: string; error?: { code: string }; steps: Array<{ step: string; action: string; owner?: string | null }> }> }).dataSets.find((d) => d.dataset === 'vessel')!;
    expect(vessel.error).toMatchObject({ code: 'TABLE_OWNED_ELSEWHERE' });
    expect(vessel.steps.find((s) => s.step === 'table')).toMatchObject({ action: 'refused', owner: 'analytics' });
    expect(markOf(await pinotTable('own_b_vessel'))).toBe('analytics');

    // Cleaned up with dpgw: the tables, then their schemas.
    for (const table of ['own_a_weather', 'own_b_vessel']) {
      expect((await dpgw(['table', 'delete', table, '--yes'])).code).toBe(0);
      expect((await dpgw(['schema', 'delete', table, '--yes'])).code).toBe(0);
    }
  }, 300_000);
});
