/**
 * The read side as a user meets it: `dpgw catalog …` listings piped and at a terminal,
 * --json, filters, empty results and unknown names; `catalog show`; `schema get` and
 * `table get` from the store, and a gateway that does not expose them. GET only.
 */
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { atTerminal, screen } from '../helpers/at-terminal.js';
import { startRecordingServer } from '../helpers/recording-server.js';
import { cleanEnv, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv, call } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { TRACK_SCHEMA_FILE } from '../helpers/track.js';
import { displayWidth } from '../../src/text/display-width.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

/** track in two enablements, vessel in one, and the track table in the store. */
async function setUp() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const dpgw = (args: string[]) => spawnDpgw(args, { env });
  for (const args of [
    ['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP],
    ['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', 'analysts', '--enablement', 'track-analysts'],
    ['enable', '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', TRACK_GROUP],
    ['schema', 'push', TRACK_SCHEMA_FILE],
    ['table', 'create', '--dataset', 'track', '--schema', TRACK_SCHEMA_FILE, '--enablement', 'track'],
  ]) {
    const result = await dpgw(args);
    expect(result.code, result.stderr).toBe(0);
  }
  const mutationsBefore = sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET').length;
  const onlyGets = () => expect(sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET')).toHaveLength(mutationsBefore);
  return { sandbox, env, dpgw, onlyGets };
}

const rowsOf = (stdout: string) => stdout.trimEnd().split('\n');

describe('dpgw catalog', () => {
  it('lists each level of the hierarchy, piped: whole values, one row per record', async () => {
    const { dpgw, sandbox, onlyGets } = await setUp();
    const sources = await dpgw(['catalog', 'sources']);
    expect(rowsOf(sources.stdout)[0]).toMatch(/^DATA SOURCE\s+ID$/);
    expect(rowsOf(sources.stdout).slice(1).map((r) => r.split(/\s+/)[0])).toEqual(['mock-data-library', 'mock-sensor-feed']);

    const offers = await dpgw(['catalog', 'offers', '--datasource', 'mock-data-library']);
    expect(rowsOf(offers.stdout)).toEqual([expect.stringMatching(/^DATA SET\s+DATA SOURCE\s+ENABLED IN$/), expect.stringMatching(/^track\s+mock-data-library\s+track, track-analysts$/), expect.stringMatching(/^vessel\s+mock-data-library\s+vessel$/), expect.stringMatching(/^weather\s+mock-data-library\s+-$/)]);

    const enablements = await dpgw(['catalog', 'enablements']);
    expect(rowsOf(enablements.stdout).slice(1).map((r) => r.split(/\s{2,}/).slice(0, 3))).toEqual([
      ['track', 'mock-data-library', TRACK_GROUP],
      ['track-analysts', 'mock-data-library', 'analysts'],
      ['vessel', 'mock-data-library', TRACK_GROUP],
    ]);

    const dataSets = await dpgw(['catalog', 'datasets']);
    expect(dataSets.code, dataSets.stderr).toBe(0);
    const [header, ...rows] = rowsOf(dataSets.stdout);
    expect(header).toMatch(/^DATA SET\s+DATA SOURCE\s+ENABLEMENT\s+GROUPS\s+TOPIC\s+STORAGES\s+SELF$/);
    expect(rows).toHaveLength(3);
    const listed = (await call('GET', `${sandbox.gatewayUrl}/api/v2/catalog/datasources/all/enablements/all/datasets`, { token: (await adminPipelineEnv(sandbox)).DPGW_TOKEN })).body as Array<{ name: string; links: Array<{ href: string }>; storage: Array<{ id: string }> }>;
    // Piped, nothing is cut: the self link and the storage id are whole.
    for (const record of listed) expect(dataSets.stdout).toContain(`default* (${record.storage[0]!.id})  ${record.links[0]!.href}`);
    expect(dataSets.stdout).not.toContain('…');
    onlyGets();
  });

  it('--json is the catalog\'s own records, one document, each with its data source, enablement, groups and topic; filters narrow it', async () => {
    const { dpgw, sandbox, env } = await setUp();
    const before = sandbox.requestLog.of('gateway').length;
    const all = JSON.parse((await dpgw(['catalog', 'datasets', '--json'])).stdout) as Array<Record<string, unknown>>;
    // What the listing cost: the data sources (2), each one's enablements (2), one listing of the data sets — no request per data set.
    expect(sandbox.requestLog.of('gateway').slice(before).map((e) => `${e.method} ${e.path}`).sort()).toEqual([
      'GET /api/v2/catalog/datasources',
      'GET /api/v2/catalog/datasources/all/enablements/all/datasets',
      ...sandbox.catalog.listDataSources().map((source) => `GET /api/v2/catalog/datasources/${source.id}/enablements`),
    ].sort());
    const direct = (await call('GET', `${sandbox.gatewayUrl}/api/v2/catalog/datasources/all/enablements/all/datasets`, { token: env.DPGW_TOKEN })).body as Array<Record<string, unknown>>;
    // The catalog's own record, whole, and what the table's columns show beside it.
    expect(all.map(({ dataSource: _source, enablement: _enablement, topic: _topic, ...record }) => record)).toEqual(direct);
    const source = sandbox.catalog.listDataSources().find((s) => s.name === 'mock-data-library')!;
    expect(all.map(({ name, dataSource, enablement, topic }) => ({ name, dataSource, enablement, topic }))).toEqual(
      [
        ['track', 'track', [TRACK_GROUP]],
        ['track', 'track-analysts', ['analysts']],
        ['vessel', 'vessel', [TRACK_GROUP]],
      ].map(([name, enablementName, groups]) => ({
        name,
        dataSource: { id: source.id, name: 'mock-data-library' },
        enablement: { id: expect.any(String), name: enablementName, groups },
        topic: `mock-data-library.${enablementName}.${name}`,
      })),
    );
    const named = JSON.parse((await dpgw(['catalog', 'datasets', '--name', 'v*', '--json'])).stdout);
    expect(named.map((d: { name: string }) => d.name)).toEqual(['vessel']);
    expect(JSON.parse((await dpgw(['catalog', 'datasets', 'v*', '--json'])).stdout)).toEqual(named);
    const inEnablement = JSON.parse((await dpgw(['catalog', 'datasets', '--enablement', 'track-analysts', '--json'])).stdout);
    expect(inEnablement.map((d: { name: string }) => d.name)).toEqual(['track']);
    const ofSource = JSON.parse((await dpgw(['catalog', 'datasets', '--datasource', 'mock-sensor-feed', '--json'])).stdout);
    expect(ofSource).toEqual([]);
  });

  it('an empty result is exit 0 with a note on stderr; an unknown name is exit 2 with the nearest one', async () => {
    const { dpgw } = await setUp();
    const empty = await dpgw(['catalog', 'datasets', '--name', 'zz*']);
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([0, '', 'no enabled data sets match the filters\n']);
    const unknown = await dpgw(['catalog', 'datasets', '--datasource', 'mock-data-libary']);
    expect([unknown.code, unknown.stderr]).toEqual([2, 'dpgw: --datasource: no data source "mock-data-libary" in the catalog — did you mean "mock-data-library"?\n']);
    const enablement = await dpgw(['catalog', 'enablements', '--enablement', 'trak']);
    expect([enablement.code, enablement.stderr]).toEqual([2, 'dpgw: --enablement: no enablement "trak" in the catalog — did you mean "track"?\n']);
  });

  it('at a terminal the table is fitted to its width, long values cut with …', async () => {
    const { env } = await setUp();
    const result = await atTerminal(['catalog', 'datasets'], { env, when: 'DATA SET', keys: '' });
    const lines = screen(result.stdout).trimEnd().split('\n');
    expect(result.code).toBe(0);
    expect(lines[0]).toMatch(/^DATA SET\s+DATA SOURCE/);
    expect(lines.every((line) => [...line].length <= 120)).toBe(true);
    expect(lines.slice(1).every((line) => line.includes('…'))).toBe(true);
  });

  it('show: everything about one enabled data set, and whether its table exists', async () => {
    const { dpgw, env, onlyGets } = await setUp();
    const ambiguous = await dpgw(['catalog', 'show', 'track']);
    expect([ambiguous.code, ambiguous.stderr]).toEqual([2, 'dpgw: dataset: data set "track" is enabled in 2 enablements — choose one with --enablement: track, track-analysts\n']);
    const shown = await dpgw(['catalog', 'show', 'track', '--enablement', 'track']);
    expect(shown.code, shown.stderr).toBe(0);
    const fields = Object.fromEntries(rowsOf(shown.stdout).map((line) => [line.slice(0, 13).trim(), line.slice(15)]));
    expect(fields).toMatchObject({ groups: TRACK_GROUP, topic: 'mock-data-library.track.track', table: 'track exists in the analytics store' });
    expect(fields['storage touch']).toMatch(/^GET \/api\/v2\/catalog\/datasources\/[\w-]+\/enablements\/[\w-]+\/datasets\/[\w-]+\/storages\/[\w-]+$/);
    // In colour (a terminal, FORCE_COLOR): the ids are dimmed by real escapes, never shown as escaped text.
    const coloured = await spawnDpgw(['catalog', 'show', 'track', '--enablement', 'track'], { env: { ...env, FORCE_COLOR: '1' } });
    expect(coloured.stdout).not.toContain('\\u001b');
    // eslint-disable-next-line no-control-regex -- the colour's escapes are what this looks for
    expect(coloured.stdout).toMatch(/^\u001b\[1mdata set +\u001b\[22m {2}track \u001b\[2m\([\w-]+\)\u001b\[22m$/m);
    const json = JSON.parse((await dpgw(['catalog', 'show', 'vessel', '--json'])).stdout);
    expect(json).toMatchObject({ dataSet: { name: 'vessel' }, enablement: { name: 'vessel', groups: [TRACK_GROUP] }, topic: 'mock-data-library.vessel.vessel', table: { name: 'vessel', exists: false, checked: true } });
    const notEnabled = await dpgw(['catalog', 'show', 'weather']);
    expect([notEnabled.code, notEnabled.stderr]).toEqual([9, expect.stringMatching(/^dpgw: dataset: data set "weather" is not enabled/)]);
    // A misspelt name gets the nearest enabled one (#31 §3); one far from all gets the listing to look at.
    const misspelt = await dpgw(['catalog', 'show', 'trak']);
    expect([misspelt.code, misspelt.stderr]).toEqual([9, 'dpgw: dataset: data set "trak" is not enabled: the catalog lists no enabled data set of that name — did you mean "track"?\n']);
    expect((await dpgw(['catalog', 'show', 'zzz'])).stderr).toContain('see what is enabled with `dpgw catalog datasets`');
    onlyGets();
  });
});

describe('a token given as is (DPGW_TOKEN)', () => {
  it('refused by the gateway: exit 4, one line, the gateway\'s words, and what to do with DPGW_TOKEN, which beats any login', async () => {
    const { env, sandbox, onlyGets } = await setUp();
    const result = await spawnDpgw(['catalog', 'sources'], { env: { ...env, DPGW_TOKEN: 'expired-token-1234' } });
    expect([result.code, result.stdout]).toEqual([4, '']);
    expect(result.stderr).toMatch(new RegExp(`^dpgw: GET ${sandbox.gatewayUrl}/api/v2/catalog/datasources failed with 401 Unauthorized.* — sign in again with 'dpgw login'; a DPGW_TOKEN that is set is used before any login: give it a fresh token, or unset it\n$`));
    onlyGets();
  });
});

describe('a --gateway copied with /api at its end', () => {
  it("404s: exit 3, and the hint gives the gateway's base URL", async () => {
    const { env, sandbox, onlyGets } = await setUp();
    const result = await spawnDpgw(['catalog', 'sources', '--gateway', `${sandbox.gatewayUrl}/api`], { env });
    expect([result.code, result.stdout]).toEqual([3, '']);
    expect(result.stderr).toMatch(new RegExp(`^dpgw: GET ${sandbox.gatewayUrl}/api/api/v2/catalog/datasources failed with 404 Not Found.* — --gateway ends in /api, and dpgw adds /api/… itself: give the gateway's base URL, ${sandbox.gatewayUrl}\n$`));
    onlyGets();
  });
});

describe('dpgw schema get and table get', () => {
  it('print what the store holds: YAML, or its JSON; the stream password masked; a missing one is exit 9', async () => {
    const { dpgw, sandbox } = await setUp();
    const table = await dpgw(['table', 'get', 'track']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^REALTIME:\n {2}tableName: track_REALTIME\n/);
    expect(table.stdout).toContain("    retentionTimeValue: '7'");
    expect(table.stdout).toContain('password="***"');
    expect(table.stdout).not.toContain(sandbox.stream.password);
    const json = JSON.parse((await dpgw(['table', 'get', 'track', '--json'])).stdout);
    expect(json.REALTIME).toMatchObject({ tableName: 'track_REALTIME', isDimTable: false, segmentsConfig: { retentionTimeValue: '7', schemaName: 'track' } });
    const schema = JSON.parse((await dpgw(['schema', 'get', 'track', '--json'])).stdout);
    expect(schema.schemaName).toBe('track');
    expect(schema.dateTimeFieldSpecs[0]).not.toHaveProperty('notNull');
    for (const [what, name] of [['schema', 'nope'], ['table', 'nope']] as const) {
      const missing = await dpgw([what, 'get', name]);
      expect(missing.code).toBe(9);
      expect(missing.stderr).toMatch(new RegExp(`^dpgw: .*/api/internal/olap/${what}s/nope: the analytics store has no ${what} "nope" — `));
    }
  });

  it('a gateway that does not expose reads of the store: one line, exit 3, never "not found"', async () => {
    for (const reply of [{ status: 405, body: { status: 405, error: 'Method Not Allowed', timestamp: 'x', path: '/' } }, { status: 404, body: { timestamp: 'x', status: 404, error: 'Not Found', message: 'No static resource api/internal/olap/tables/track.', path: '/' } }, { status: 200, body: '<html>hello</html>' }]) {
      const gateway = await startRecordingServer({ 'GET /api/internal/olap/tables/track': () => reply });
      try {
        const result = await spawnDpgw(['table', 'get', 'track'], { env: cleanEnv({ DPGW_GATEWAY: gateway.url, DPGW_TOKEN: 'reads-test-token-1234' }) });
        expect(result.code).toBe(3);
        expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^dpgw: this gateway does not expose reads of the analytics store: GET .*\/api\/internal\/olap\/tables\/track answered /)]);
      } finally {
        await gateway.close();
      }
    }
  });
});

describe('columns by display width', () => {
  it('groups in CJK and emoji: piped, every column after them starts where the header\'s does, as a terminal shows it', async () => {
    const sandbox = await sandboxes.start({ seed: [{ name: 'library', dataSets: ['orders', 'vessel', 'track'] }], streamBacklog: 0 });
    const source = sandbox.catalog.listDataSources()[0]!;
    for (const [name, groups, dataSet] of [
      ['team', ['分析チーム'], 'orders'],
      ['party', ['🎉-ops'], 'vessel'],
      ['plain', ['readers'], 'track'],
    ] as const) {
      const enablement = sandbox.catalog.createEnablement(source.id, name, [...groups]);
      if (enablement === 'exists') throw new Error('enablement exists');
      sandbox.catalog.enable(enablement.id, dataSet);
    }
    const result = await spawnDpgw(['catalog', 'datasets'], { env: await adminPipelineEnv(sandbox) });
    expect(result.code, result.stderr).toBe(0);
    const [header, ...rows] = rowsOf(result.stdout);
    const topicColumn = header!.indexOf('TOPIC');
    // The columns a terminal gives what comes before the topic: a CJK character or an emoji takes two.
    const columnOf = (row: string, topic: string) => displayWidth(row.slice(0, row.indexOf(topic)));
    expect(rows.map((row) => columnOf(row, 'library.'))).toEqual([topicColumn, topicColumn, topicColumn]);
    expect(rows.find((row) => row.startsWith('orders'))).toContain('分析チーム  library.team.orders');
  });
});

describe('a large catalog', () => {
  it('10,000 enabled data sets: every one listed, piped and as --json', async () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `ds${String(i).padStart(5, '0')}`);
    // A listing reads no topic: the topics are created without their 200 messages each.
    const sandbox = await sandboxes.start({ seed: [{ name: 'big-library', dataSets: names }], streamBacklog: 0 });
    const source = sandbox.catalog.listDataSources()[0]!;
    for (let first = 0; first < names.length; first += 100) {
      const enablement = sandbox.catalog.createEnablement(source.id, `readers-${first / 100}`, [`group-${first / 100}`]);
      if (enablement === 'exists') throw new Error('enablement exists');
      for (const name of names.slice(first, first + 100)) sandbox.catalog.enable(enablement.id, name);
    }
    const env = await adminPipelineEnv(sandbox);
    const piped = await spawnDpgw(['catalog', 'datasets', '--enablement', 'readers-99'], { env });
    expect(rowsOf(piped.stdout)).toHaveLength(101);
    expect(rowsOf(piped.stdout).at(-1)).toMatch(/^ds09999\s+big-library\s+readers-99\s+group-99\s+big-library\.readers-99\.ds09999 /);
    const json = JSON.parse((await spawnDpgw(['catalog', 'datasets', '--json'], { env })).stdout) as Array<{ name: string }>;
    expect(json.map((d) => d.name)).toEqual(names);
    // Three GETs, whatever the size: data sources, enablements, the one listing; each record carries its enablement's groups from them.
    expect(sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET')).toEqual([]);
    const before = sandbox.requestLog.of('gateway').length;
    const groups = JSON.parse((await spawnDpgw(['catalog', 'datasets', '--json'], { env })).stdout) as Array<{ enablement: { groups: string[] } }>;
    expect(sandbox.requestLog.of('gateway').length - before).toBe(3);
    expect(groups[9_999]!.enablement.groups).toEqual(['group-99']);
  }, 60_000);
});
