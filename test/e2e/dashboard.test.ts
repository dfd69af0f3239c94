/**
 * Contract step 9 on the real platform: `dpgw dashboard` as a permitted user builds the
 * data set, the map chart and the dashboard in a real Superset, whose connection to
 * Trino runs the SQL as that user (impersonation, allowed by dpgw's OPA policy); a user
 * outside the enablement's groups is refused and nothing is created for them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { cleanEnv, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminEnv, startBackedGateway } from './backed-platform.js';

const kafka = inject('kafka');
const pinot = inject('pinot');
const superset = inject('superset');
const { Kafka, logLevel } = kafkajs;
const DATA_SET = 'telemetry';
const TOPIC = 'mock-sensor-feed.telemetry.telemetry';
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startBackedGateway({ grants: true });
  // The admin provisions the data set (its table has the track columns), and 150 positions arrive.
  const env = adminEnv(sandbox.gatewayUrl);
  const passwordFile = join(env.DPGW_CONFIG_DIR!, 'stream-password');
  writeFileSync(passwordFile, kafka.streamPassword, { mode: 0o600 });
  const schema = join(env.DPGW_CONFIG_DIR!, 'telemetry-schema.yaml');
  writeFileSync(schema, readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8').replace(/^schemaName: track$/m, `schemaName: ${DATA_SET}`));
  const manifest = join(env.DPGW_CONFIG_DIR!, 'telemetry.yaml');
  writeFileSync(manifest, JSON.stringify({ version: 1, dataSets: [{ datasource: 'mock-sensor-feed', dataset: DATA_SET, groups: ['track-readers'], schema, table: { name: DATA_SET } }] }));
  const provision = await spawnDpgw(['provision', manifest, '--stream-password', `file:${passwordFile}`], { env });
  expect(provision.code, provision.stderr).toBe(0);
  const producer = new Kafka({ clientId: 'dpgw-e2e', brokers: [kafka.brokerList], sasl: { mechanism: 'scram-sha-512', username: kafka.streamUser, password: kafka.streamPassword }, logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  try {
    await producer.send({ topic: TOPIC, messages: Array.from({ length: 150 }, (_, i) => ({ value: JSON.stringify({ id: `t-${i}`, trkId: `S${i % 9}`, asset: i % 5, lon: 5 + (i % 50) / 10, lat: 50 + (i % 30) / 10, alt: 100, __security__: { owner: 'data-platform' } }) })) });
  } finally {
    await producer.disconnect();
  }
  // Ready when Pinot's broker counts the rows and Trino (its Pinot catalog caches the table
  // list for 15 s here) shows the analyst the table through Superset's connection.
  const token = await supersetToken('analyst');
  for (let i = 0; i < 120; i++) {
    const counted = (await (await fetch(`${pinot.broker}/query/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: `SELECT COUNT(*) FROM ${DATA_SET}` }) })).json()) as { resultTable?: { rows: number[][] } };
    const listed = (await supersetGet('/api/v1/database/1/tables/?q=(force:!t,schema_name:default)', token)) as { result?: Array<{ value: string }> };
    if ((counted.resultTable?.rows[0]?.[0] ?? 0) >= 150 && listed.result?.some((t) => t.value === DATA_SET)) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}, 240_000);
afterAll(() => sandbox?.close());

function dashboardAs(username: string, args: string[] = []) {
  const user = superset.users.find((u) => u.username === username)!;
  return spawnDpgw(['dashboard', '--dataset', DATA_SET, '--dashboard', 'Sensor positions', ...args], {
    env: cleanEnv({ DPGW_DASHBOARD_URL: superset.url, DPGW_DASHBOARD_USER: username, DPGW_DASHBOARD_PASSWORD: user.password, DPGW_DASHBOARD_DATABASE: superset.database }),
  });
}

/**
 * A GET of Superset's API as the test's own check. Superset's server may close a kept-alive
 * connection just as the next request goes out on it ("other side closed"): a GET is safe to
 * send again, once, on a fresh connection.
 */
async function supersetGet(path: string, token: string): Promise<unknown> {
  const get = () => fetch(`${superset.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const answer = await get().catch((error: unknown) => {
    if ((error as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw error;
    return get();
  });
  return answer.json();
}

async function supersetToken(username: string): Promise<string> {
  const user = superset.users.find((u) => u.username === username)!;
  const login = await fetch(`${superset.url}/api/v1/security/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password: user.password, provider: 'db' }) });
  return ((await login.json()) as { access_token: string }).access_token;
}

/** How many data sets, charts and dashboards Superset holds (an Alpha user sees them all). */
async function counts(): Promise<Record<string, number>> {
  const token = await supersetToken('analyst');
  const result: Record<string, number> = {};
  for (const resource of ['dataset', 'chart', 'dashboard']) {
    result[resource] = ((await supersetGet(`/api/v1/${resource}/`, token)) as { count: number }).count;
  }
  return result;
}

describe(`the map in Superset ${superset.version}, as the dashboard user in Trino`, () => {
  it('the outsider is refused by the query engine and nothing is created', async () => {
    const before = await counts();
    const result = await dashboardAs('outsider');
    expect(result.code).toBe(3);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`the query engine shows dashboard user outsider no table ${DATA_SET} in schema default of connection "${superset.database}" (it sees no table there); nothing was created`);
    expect(await counts()).toEqual(before);
  });

  it('the analyst gets the data set, the scatterplot of lon and lat on the dashboard, and it renders; a re-run changes nothing', async () => {
    const first = await dashboardAs('analyst', ['--json']);
    expect(first.code, first.stderr).toBe(0);
    const made = JSON.parse(first.stdout);
    expect(made).toMatchObject({
      changed: true,
      dataSet: { name: `${DATA_SET}_latest_100`, sql: `SELECT * FROM default.${DATA_SET} LIMIT 100`, change: 'created' },
      dashboard: { title: 'Sensor positions', change: 'created' },
      chart: { name: `${DATA_SET} positions`, change: 'created' },
    });
    expect(made.rendered.rows).toBeGreaterThan(0);
    expect(made.rendered.lonRange[0]).toBeGreaterThanOrEqual(5);
    expect(made.rendered.latRange[1]).toBeLessThanOrEqual(53);
    console.log(`[e2e] Superset chart ${made.chart.id} renders ${made.rendered.rows} points; dashboard ${made.dashboard.url}`);

    // The saved chart is the contract's map: a deck.gl scatterplot of lon and lat on the dashboard.
    const chart = ((await supersetGet(`/api/v1/chart/${made.chart.id}`, await supersetToken('analyst'))) as { result: { viz_type: string; params: string; dashboards: Array<{ id: number }> } }).result;
    expect(chart.viz_type).toBe('deck_scatter');
    expect(JSON.parse(chart.params).spatial).toEqual({ type: 'latlong', lonCol: 'lon', latCol: 'lat' });
    expect(chart.dashboards.map((d) => d.id)).toEqual([made.dashboard.id]);

    const again = await dashboardAs('analyst', ['--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, dataSet: { change: 'unchanged' }, dashboard: { change: 'unchanged', id: made.dashboard.id }, chart: { change: 'unchanged', id: made.chart.id } });
    expect(again.stderr).toContain('nothing to change');
  });

  it('a wrong password is one line with exit 4', async () => {
    const result = await spawnDpgw(['dashboard', '--dataset', DATA_SET], { env: cleanEnv({ DPGW_DASHBOARD_URL: superset.url, DPGW_DASHBOARD_USER: 'analyst', DPGW_DASHBOARD_PASSWORD: 'not-the-password' }) });
    expect(result.code).toBe(4);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('the dashboard tool refused the sign-in of analyst');
  });
});
