/**
 * `dpgw table list` and `dpgw schema list` as a user runs them: the built binary against the
 * sandbox, whose tables a manifest (marked) and `table create` (unmarked) made.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });
const MANIFEST = join(ROOT, 'examples/track/provision.yaml');
const SCHEMA = join(ROOT, 'examples/track/schema.yaml');

/** track, provisioned by examples/track/provision.yaml (marked `track`), and track_by_hand on the same schema by `table create` (no mark). */
async function twoTables(): Promise<{ sandbox: Sandbox; dpgw: (args: string[]) => ReturnType<typeof spawnDpgw> }> {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const dpgw = (args: string[]) => spawnDpgw(args, { env });
  for (const args of [['provision', MANIFEST], ['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--name', 'track_by_hand']]) {
    const result = await dpgw(args);
    expect(result.code, result.stderr).toBe(0);
  }
  return { sandbox, dpgw };
}

const onlyReads = (sandbox: Sandbox) => sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET');

describe('dpgw table list', () => {
  it('lists each table with its schema, owner and consumption: piped, whole values; --json, records', async () => {
    const { sandbox, dpgw } = await twoTables();
    sandbox.requestLog.clear();
    const listed = await dpgw(['table', 'list']);
    expect([listed.code, listed.stderr]).toEqual([0, '']);
    expect(listed.stdout.split('\n')).toEqual(['TABLE          SCHEMA  OWNER  CONSUMING', 'track          track   track  yes', 'track_by_hand  track   none   yes', '']);
    const json = await dpgw(['table', 'list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      { name: 'track', read: true, schema: 'track', owner: { name: 'track', named: true }, consuming: true, partitions: { consuming: 3, listed: 3 } },
      { name: 'track_by_hand', read: true, schema: 'track', owner: null, consuming: true, partitions: { consuming: 3, listed: 3 } },
    ]);
    expect(onlyReads(sandbox)).toEqual([]);
  });

  it('a gateway that does not pass the consuming segments on: — in that column and one warning, exit 0', async () => {
    const { sandbox, dpgw } = await twoTables();
    const refused = { status: 405, times: 1, body: { status: 405, error: 'Method Not Allowed', message: 'Request method not supported' } };
    sandbox.faults.update({ failures: ['track', 'track_by_hand'].map((name) => ({ method: 'GET', path: `/api/internal/olap/tables/${name}/consumingSegmentsInfo`, ...refused })) });
    const listed = await dpgw(['table', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n').slice(1, 3)).toEqual(['track          track   track  —', 'track_by_hand  track   none   —']);
    expect(listed.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^warning: consuming: unknown, this gateway does not pass the store's consuming segments on \(GET http:\/\/127\.0\.0\.1:\d+\/api\/internal\/olap\/tables\/track(_by_hand)?\/consumingSegmentsInfo answered 405: Request method not supported\)$/)]);
  });

  it('no tables: exit 0, nothing on stdout, a note on stderr; --json: []', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    for (const command of ['table', 'schema']) {
      const empty = await spawnDpgw([command, 'list'], { env });
      expect([empty.code, empty.stdout, empty.stderr]).toEqual([0, '', `no ${command}s in the analytics store\n`]);
      const json = await spawnDpgw([command, 'list', '--json'], { env });
      expect([json.code, JSON.parse(json.stdout)]).toEqual([0, []]);
    }
  });

  it('a gateway that does not list the tables: exit 3, one line with the way on', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    for (const [command, path] of [['table', '/api/internal/olap/tables'], ['schema', '/api/internal/olap/schemas']] as const) {
      sandbox.faults.update({ failures: [{ method: 'GET', path, status: 501, times: 5, body: { status: 501, error: 'Not Implemented', message: 'not passed on' } }] });
      const refused = await spawnDpgw([command, 'list'], { env });
      expect(refused.code).toBe(3);
      expect(refused.stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^dpgw: this gateway does not list the store's ${command}s: GET http://127\\.0\\.0\\.1:\\d+${path} answered 501: not passed on — ask the platform team to pass GET /api/internal/<olap>/${command}s on; one by name: dpgw ${command} get <name>$`)),
      ]);
      expect(JSON.parse((await spawnDpgw([command, 'list', '--json'], { env })).stdout).error).toMatchObject({ code: 'STORE_LISTING_NOT_EXPOSED' });
    }
  });
});

describe('table list and schema list: an owner no other manifest can pass for', () => {
  it('a mark taken from a folder says so, and a mark that is no manifest name (a zero-width space) is quoted, as every message shows a mark', async () => {
    const { sandbox, dpgw } = await twoTables();
    // track_by_hand: the same words as the named manifest track, but from a folder; a third table: "track" and a zero-width space.
    sandbox.store.tables.get('track_by_hand')!.definition.metadata = { customConfigs: { 'dpgw.manifest': 'track' } };
    expect((await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--name', 'track_lookalike'])).code).toBe(0);
    sandbox.store.tables.get('track_lookalike')!.definition.metadata = { customConfigs: { 'dpgw.manifest': 'track\u200b', 'dpgw.manifest.named': 'true' } };
    const tables = await dpgw(['table', 'list']);
    expect(tables.code, tables.stderr).toBe(0);
    const owners = tables.stdout.split('\n').slice(1, 4).map((line) => line.split(/ {2,}/)[2]);
    expect(owners).toEqual(['track', 'track (a name taken from its file or folder)', '"track\u200b"']);
    const schemas = await dpgw(['schema', 'list']);
    expect(schemas.code, schemas.stderr).toBe(0);
    expect(schemas.stdout).toContain('track, track (a name taken from its file or folder), "track\u200b"');
    // --json keeps the mark as the store holds it, with whether it was given.
    expect(JSON.parse((await dpgw(['table', 'list', '--json'])).stdout).map((t: { owner: unknown }) => t.owner)).toEqual([
      { name: 'track', named: true },
      { name: 'track', named: false },
      { name: 'track\u200b', named: true },
    ]);
  });
});

describe('table list and schema list: a store name no real name can be read as', () => {
  it('a name dpgw could not send (a comma list, a zero-width space) is quoted in every column; --json keeps it as the store gave it', async () => {
    const { sandbox, dpgw } = await twoTables();
    const track = sandbox.store.tables.get('track')!;
    sandbox.store.tables.set('track, track_by_hand', track);
    sandbox.store.tables.set('track\u200b', track);
    sandbox.store.schemas.set('track\u200b', sandbox.store.schemas.get('track')!);
    const tables = await dpgw(['table', 'list']);
    expect(tables.code, tables.stderr).toBe(0);
    expect(tables.stdout.split('\n').slice(1, -1).map((line) => line.split(/ {2,}/)[0])).toEqual(['track', '"track, track_by_hand"', 'track_by_hand', '"track\u200b"']);
    const schemas = await dpgw(['schema', 'list']);
    expect(schemas.code, schemas.stderr).toBe(0);
    expect(schemas.stdout.split('\n').slice(1, -1).map((line) => line.split(/ {2,}/)[0])).toEqual(['track', '"track\u200b"']);
    expect(JSON.parse((await dpgw(['table', 'list', '--json'])).stdout).map((t: { name: string }) => t.name)).toEqual(['track', 'track, track_by_hand', 'track_by_hand', 'track\u200b']);
  });
});

describe('dpgw schema list', () => {
  it('lists each schema with the tables that use it and their owners; --json, records', async () => {
    const { sandbox, dpgw } = await twoTables();
    sandbox.requestLog.clear();
    const listed = await dpgw(['schema', 'list']);
    expect([listed.code, listed.stderr]).toEqual([0, '']);
    expect(listed.stdout).toBe('SCHEMA  TABLES                OWNERS\ntrack   track, track_by_hand  track\n');
    const json = await dpgw(['schema', 'list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([{ name: 'track', tables: ['track', 'track_by_hand'], owners: [{ name: 'track', named: true }] }]);
    expect(onlyReads(sandbox)).toEqual([]);
  });
});

describe('docs/tables.md, "table list and schema list"', () => {
  it('its example runs as written after the track manifest: the command and the output shown', async () => {
    const page = readFileSync(join(ROOT, 'docs/tables.md'), 'utf8');
    const section = page.slice(page.indexOf('## table list and schema list'), page.indexOf('## table status'));
    const [command, shown] = /```console\n\$ dpgw (.*)\n([^`]*)```/.exec(section)!.slice(1) as [string, string];
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    expect((await spawnDpgw(['provision', MANIFEST], { env })).code).toBe(0);
    const result = await spawnDpgw(command.split(' '), { env });
    expect([result.code, result.stdout]).toEqual([0, shown]);
  });
});
