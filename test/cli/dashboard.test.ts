/**
 * Contract step 9 as a user runs it: `dpgw dashboard`, the built binary against the
 * sandbox's dashboard tool, which runs the data set's SQL in the sandbox's query engine
 * as the signed-in user.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, TRACK_GROUP, type Sandbox } from '../../src/sandbox/sandbox.js';
import { BIN, cleanEnv, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { dashboard as dashboardCommand } from '../../src/commands/dashboard/dashboard.command.js';
import { tokenFor } from '../helpers/sandbox-http.js';

const SCHEMA = join(ROOT, 'examples/track/schema.yaml');
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** The track table, granted to its group by the storage touch, with 40 rows. */
async function withTrackTable(): Promise<Sandbox> {
  sandbox = await startSandbox({ topicDelayMs: 0, rowsPerTable: 40 });
  const s = sandbox;
  const env = cleanEnv({ DPGW_GATEWAY: s.gatewayUrl, DPGW_TOKEN: await tokenFor(s, 'admin'), DPGW_BROKER_LIST: s.stream.brokerList, DPGW_REGISTRY_URL: s.stream.registryUrl, DPGW_STREAM_USER: s.stream.user, DPGW_STREAM_PASSWORD: s.stream.password });
  for (const args of [['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP], ['schema', 'push', SCHEMA], ['table', 'create', '--dataset', 'track', '--schema', SCHEMA], ['storage', 'touch', '--dataset', 'track']]) {
    const result = await spawnDpgw(args, { env });
    expect(result.code, result.stderr).toBe(0);
  }
  return s;
}

function dashboardAs(s: Sandbox, username: string, args: string[] = [], extra: Record<string, string> = {}) {
  const password = s.users.find((u) => u.username === username)!.password;
  return spawnDpgw(['dashboard', '--dataset', 'track', ...args], { env: cleanEnv({ DPGW_DASHBOARD_URL: s.dashboardUrl, DPGW_DASHBOARD_USER: username, DPGW_DASHBOARD_PASSWORD: password, ...extra }) });
}

describe('dpgw dashboard', () => {
  it("refuses a record whose id is not a whole number (an id goes into request paths and the URLs it prints): exit 3, no line of the tool's own", async () => {
    const s = await withTrackTable();
    // The tool answers its new chart with an id that would end the printed URL's line and start another.
    (s.dashboard as unknown as { nextId: { chart: unknown } }).nextId.chart = '1\n::error title=Forged::x';
    const result = await dashboardAs(s, 'analyst', ['--dashboard', 'Tracks']);
    expect(result.code).toBe(3);
    expect(`${result.stdout}\n${result.stderr}`.split('\n').some((line) => line.startsWith('::error'))).toBe(false);
    expect(result.stderr).toMatch(/^dpgw: POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/chart\/ answered a record whose id is not a whole number \(null\); nothing was done with it — check --dashboard-url/m);
  });


  it('saves the data set, the map chart and the dashboard as the analyst, proves it renders, and changes nothing on a re-run', async () => {
    const s = await withTrackTable();
    const first = await dashboardAs(s, 'analyst', ['--dashboard', 'Tracks', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const made = JSON.parse(first.stdout);
    expect(made).toMatchObject({
      user: 'analyst',
      changed: true,
      dataSet: { name: 'track_latest_100', sql: 'SELECT * FROM default.track LIMIT 100', change: 'created' },
      dashboard: { title: 'Tracks', change: 'created', url: `${s.dashboardUrl}/superset/dashboard/${made.dashboard.id}/` },
      chart: { name: 'track positions', change: 'created', url: `${s.dashboardUrl}/explore/?slice_id=${made.chart.id}` },
      rendered: { rows: 40 },
    });
    const chart = s.dashboard.charts.get(made.chart.id)!;
    expect(chart.viz_type).toBe('deck_scatter');
    expect(JSON.parse(chart.params)).toMatchObject({ spatial: { type: 'latlong', lonCol: 'lon', latCol: 'lat' }, viewport: { bearing: 0, pitch: 0 } });
    expect(JSON.parse(chart.query_context!).queries[0].columns).toEqual(['lon', 'lat']);
    expect(chart.dashboards).toEqual([made.dashboard.id]);
    // Every change carried the CSRF token with its session cookie.
    const mutations = s.requestLog.entries.filter((e) => e.server === 'dashboard-tool' && e.method !== 'GET' && e.path !== '/api/v1/security/login');
    expect(mutations.length).toBeGreaterThan(0);
    expect(mutations.every((e) => e.headers['x-csrftoken'] === '***' && e.headers.cookie === '***' && e.headers.authorization === 'Bearer ***')).toBe(true);

    const again = await dashboardAs(s, 'analyst', ['--dashboard', 'Tracks']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('✓ nothing to change: dashboard "Tracks" has chart "track positions" on data set track_latest_100; it renders 40 points');
    expect(again.stdout).toBe(`dashboard ${made.dashboard.url}\nchart     ${made.chart.url}\n`);
    expect([s.dashboard.dataSets.size, s.dashboard.dashboards.size, s.dashboard.charts.size]).toEqual([1, 1, 1]);
  });

  it('a table without lon and lat: one line that says so, exit 2, before any chart or dashboard exists', async () => {
    const s = await withTrackTable();
    const folder = mkdtempSync(join(tmpdir(), 'dpgw-nomap-'));
    const schema = join(folder, 'plain.yaml');
    writeFileSync(schema, 'schemaName: plain\ndimensionFieldSpecs: [{ name: id, dataType: STRING }]\ndateTimeFieldSpecs: [{ name: time, dataType: LONG, notNull: false, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }]\n');
    const env = cleanEnv({ DPGW_GATEWAY: s.gatewayUrl, DPGW_TOKEN: await tokenFor(s, 'admin'), DPGW_BROKER_LIST: s.stream.brokerList, DPGW_REGISTRY_URL: s.stream.registryUrl, DPGW_STREAM_USER: s.stream.user, DPGW_STREAM_PASSWORD: s.stream.password });
    for (const args of [['schema', 'push', schema], ['table', 'create', '--dataset', 'track', '--schema', schema, '--name', 'plain'], ['storage', 'touch', '--dataset', 'track']]) {
      const result = await spawnDpgw(args, { env });
      expect(result.code, result.stderr).toBe(0);
    }
    const result = await dashboardAs(s, 'analyst', ['--table', 'plain']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      "dpgw: table plain has no lon/lat columns for a map (missing: ['lon', 'lat']); nothing was created — a map chart needs longitude in lon and latitude in lat: map a table whose schema has them",
    ]);
    expect([s.dashboard.dataSets.size, s.dashboard.dashboards.size, s.dashboard.charts.size]).toEqual([0, 0, 0]);
  });

  it('the outsider is refused in one line, exit 3, and nothing is created', async () => {
    const s = await withTrackTable();
    const result = await dashboardAs(s, 'outsider');
    expect(result.code).toBe(3);
    expect(result.stderr.trim().split('\n')).toEqual([
      'dpgw: the query engine shows dashboard user outsider no table track in schema default of connection "Trino" (it sees no table there); nothing was created — dashboard user outsider (DPGW_DASHBOARD_USER) runs the SQL as itself: sign in as a member of the enablement\'s groups (`dpgw catalog show track` names them), with --dashboard-user; a table not created yet is not listed either (`dpgw table get track`)',
    ]);
    expect([s.dashboard.dataSets.size, s.dashboard.dashboards.size, s.dashboard.charts.size]).toEqual([0, 0, 0]);
  });

  it('a table the store does not hold: exit 9 naming that cause and how to create it, before any other user is suggested', async () => {
    sandbox = await startSandbox({ topicDelayMs: 0 });
    const s = sandbox;
    const result = await dashboardAs(s, 'analyst', [], { DPGW_GATEWAY: s.gatewayUrl, DPGW_TOKEN: await tokenFor(s, 'analyst') });
    expect(result.code).toBe(9);
    expect(result.stderr.trim().split('\n')).toEqual([
      `dpgw: ${s.gatewayUrl}/api/internal/olap/tables/track: table track does not exist in the analytics store — create it first: dpgw provision <manifest> (a manifest that lists track), or dpgw table create --dataset track --schema <file>`,
    ]);
    expect([s.dashboard.dataSets.size, s.dashboard.dashboards.size, s.dashboard.charts.size]).toEqual([0, 0, 0]);
  });

  it('wrong password, unknown connection, bad flags: one line each, the documented exit code, nothing sent that changes anything', async () => {
    const s = await withTrackTable();
    const wrong = await dashboardAs(s, 'analyst', [], { DPGW_DASHBOARD_PASSWORD: 'not-it' });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toBe(`dpgw: ${s.dashboardUrl}/api/v1/security/login: the dashboard tool refused the sign-in of analyst: Not authorized — check --dashboard-user and the --dashboard-password reference\n`);

    const unknown = await dashboardAs(s, 'analyst', ['--dashboard-database', 'Druid']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--dashboard-database: the dashboard tool has no database connection named "Druid" that this user can see');

    const rows = await dashboardAs(s, 'analyst', ['--rows', '0']);
    expect(rows.code).toBe(2);
    expect(rows.stderr).toBe('dpgw: --rows: "0" is not a row count from 1 to 100000 — see `dpgw dashboard --help`\n');
    const noUrl = await spawnDpgw(['dashboard', '--dataset', 'track'], { env: cleanEnv() });
    expect(noUrl.code).toBe(2);
    // Every setting the tool needs that is missing, named at once (not one per run).
    expect(noUrl.stderr).toContain('3 settings are not set: dashboardUrl (--dashboard-url, DPGW_DASHBOARD_URL, profile key dashboardUrl); dashboardUser (--dashboard-user, DPGW_DASHBOARD_USER, profile key dashboardUser); dashboardPassword');
    expect([s.dashboard.dataSets.size, s.dashboard.dashboards.size, s.dashboard.charts.size]).toEqual([0, 0, 0]);
  });
});

describe("the help's example", () => {
  it('runs as written on `dpgw sandbox --write-profile sandbox` after the provisioning; as the profile that provisions it says which profile to use instead', async () => {
    const env = cleanEnv();
    const child = spawn(process.execPath, [BIN, 'sandbox', '--json', '--write-profile', 'sandbox', '--topic-delay', '0', '--port', '0', '--auth-port', '0', '--query-port', '0', '--dashboard-port', '0', '--stream-port', '0'], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const settings = await new Promise<{ users: Array<{ username: string; password: string }> }>((resolve, reject) => {
        let stdout = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          try {
            resolve(JSON.parse(stdout));
          } catch {
            // not complete yet
          }
        });
        void exited.then((code) => reject(new Error(`sandbox exited ${code}`)));
      });
      // README's walk-through on the profile the sandbox made current: sign in as admin, provision the track data set.
      const admin = settings.users.find((u) => u.username === 'admin')!;
      for (const [args, input] of [[['login', '--password-stdin'], `${admin.password}\n`], [['provision', 'examples/track/provision.yaml'], '']] as const) {
        const result = await spawnDpgw([...args], { env, input });
        expect(result.code, result.stderr).toBe(0);
      }
      // The example exactly as `dpgw dashboard --help` prints it.
      const words = dashboardCommand.example.match(/"[^"]*"|\S+/g)!.map((word) => word.replace(/^"(.*)"$/, '$1'));
      expect(words[0]).toBe('dpgw');
      const example = await spawnDpgw(words.slice(1), { env });
      expect(example.code, example.stderr).toBe(0);
      expect(example.stderr).toContain('created chart "track positions"');

      // The current profile signs in as admin, who provisions but reads nothing: the hint names the reader's profile.
      const asAdmin = await spawnDpgw(['dashboard', '--dataset', 'track', '--dashboard', 'Tracks'], { env });
      expect(asAdmin.code).toBe(3);
      expect(asAdmin.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(asAdmin.stderr).toMatch(/— dashboard user admin \(.*config\.yaml:\d+:\d+\) runs the SQL as itself: sign in as a member of the enablement's groups \(`dpgw catalog show track` names them\), e\.g\. `--profile sandbox-analyst` \(analyst\)/);
    } finally {
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    }
  }, 60_000);
});

describe('dpgw provision with a dashboard step', () => {
  it('builds the map as the named profile after the storage touch, says so in the summary, changes nothing on a re-run, and fails the data set for a user who may not', async () => {
    sandbox = await startSandbox({ topicDelayMs: 0, rowsPerTable: 30 });
    const s = sandbox;
    const env = cleanEnv({ DPGW_PROFILE: 'admin' });
    const dir = env.DPGW_CONFIG_DIR!;
    const secret = (name: string, value: string) => {
      const file = join(dir, name);
      writeFileSync(file, value, { mode: 0o600 });
      return `file:${file}`;
    };
    const profile = (username: string) => ({
      gateway: s.gatewayUrl,
      authUrl: s.authUrl,
      realm: s.realm,
      clientId: s.clientId,
      clientSecret: secret('client-secret', s.clientSecret),
      username,
      queryEngine: s.queryEngineUrl,
      dashboardUrl: s.dashboardUrl,
      dashboardUser: username,
      dashboardPassword: secret(`${username}-password`, s.users.find((u) => u.username === username)!.password),
      brokerList: s.stream.brokerList,
      registryUrl: s.stream.registryUrl,
      streamUser: s.stream.user,
      streamPassword: secret('stream-password', s.stream.password),
    });
    writeFileSync(join(dir, 'config.yaml'), stringify({ profiles: { admin: profile('admin'), analyst: profile('analyst'), outsider: profile('outsider') } }), { mode: 0o600 });
    const login = await spawnDpgw(['login', '--password-stdin'], { env, input: `${s.users.find((u) => u.username === 'admin')!.password}\n` });
    expect(login.code, login.stderr).toBe(0);
    const manifest = (dashboard: Record<string, unknown>) => {
      const file = join(dir, 'provision.yaml');
      copyFileSync(SCHEMA, join(dir, 'track-schema.yaml'));
      writeFileSync(file, stringify({ version: 1, dataSets: [{ datasource: 'mock-data-library', dataset: 'track', groups: [TRACK_GROUP], schema: 'track-schema.yaml', table: { name: 'track' }, dashboard }] }));
      return file;
    };

    const plan = await spawnDpgw(['provision', manifest({ profile: 'analyst', title: 'Tracks' }), '--plan'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('8. dashboard create       in the dashboard tool as analyst: data set SELECT * FROM default.track LIMIT 100, chart "track positions" on dashboard "Tracks"');

    const first = await spawnDpgw(['provision', manifest({ profile: 'analyst', title: 'Tracks' })], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^DATA SET +TOPIC +SCHEMA +TABLE +STORAGE +CONSUMING +DASHBOARD +STATUS +TIME$/m);
    expect(first.stdout).toMatch(/^track .* changed +done /m);
    const again = await spawnDpgw(['provision', manifest({ profile: 'analyst', title: 'Tracks' }), '--json'], { env });
    const step = JSON.parse(again.stdout).dataSets[0].steps.find((x: { step: string }) => x.step === 'dashboard');
    expect(step).toEqual({ step: 'dashboard', action: 'none', status: 'unchanged', reason: `${s.dashboardUrl}/superset/dashboard/1/ (chart 1, 30 points)`, facts: { url: `${s.dashboardUrl}/superset/dashboard/1/` } });

    const refused = await spawnDpgw(['provision', manifest({ profile: 'outsider', title: 'Tracks' }), '--json'], { env });
    expect(refused.code).toBe(3);
    const failed = JSON.parse(refused.stdout).dataSets[0];
    expect(failed.steps.at(-1)).toMatchObject({ step: 'dashboard', status: 'failed' });
    expect(failed.error.message).toMatch(/the query engine shows dashboard user \S+ no table track/);
    expect([s.dashboard.dataSets.size, s.dashboard.dashboards.size, s.dashboard.charts.size]).toEqual([1, 1, 1]);
  });
});
