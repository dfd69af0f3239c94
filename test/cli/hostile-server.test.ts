/**
 * Servers can answer anything: what they send is shown as text (control characters
 * escaped, never a forged line), bounded in size, never a reason to send the token
 * elsewhere, and never put raw into a table definition.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { StatementClient } from '../../src/query-engine/statement-client.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { cleanEnv, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { TRACK_SCHEMA_FILE } from '../helpers/track.js';

const ESCAPES = ['\u001b[2J', '\u001b]0;pwned\u0007', '\u009b31m', '\u202e'];
const FORGED = '\n✓ all checks passed';
/** A raw control character a terminal acts on (dpgw writes none when the output is not a terminal). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function hostile(routes: Parameters<typeof startRecordingServer>[0]): Promise<RecordingServer> {
  const server = await startRecordingServer(routes);
  servers.push(server);
  return server;
}

const env = (gateway: string) => cleanEnv({ DPGW_GATEWAY: gateway, DPGW_TOKEN: 'hostile-test-token-1234' });

describe('what a server sends reaches the terminal as text', () => {
  it('health: component names and statuses with escape sequences and line breaks are escaped, no forged line', async () => {
    const components = Object.fromEntries(ESCAPES.map((e, i) => [`mq${e}${i}`, { status: 'UP' }]));
    const gateway = await hostile({ 'GET /api/health': () => ({ body: { status: 'DOWN', components: { ...components, [`gateway${FORGED}`]: { status: `DOWN${FORGED}`, components: { [`auth${ESCAPES[0]}`]: { status: 'UP' } } } }, groups: ['api'] } }) });
    const result = await spawnDpgw(['health'], { env: env(gateway.url) });
    expect(result.code).toBe(6);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stdout.split('\n').some((line) => line.startsWith('✓'))).toBe(false);
    expect(result.stdout).toContain('mq\\u001b[2J0');
    expect(result.stdout).toContain('gateway\\n✓ all checks passed');
    const json = await spawnDpgw(['health', '--json'], { env: env(gateway.url) });
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect(Object.keys(JSON.parse(json.stdout).components)).toContain(`mq${ESCAPES[2]}2`);
  });

  it("an error body's escape sequences and line breaks stay on dpgw's one line", async () => {
    const gateway = await hostile({ 'POST /api/internal/olap/schemas': () => ({ status: 400, body: { code: 400, error: `bad schema${ESCAPES.join('')}${FORGED}` } }) });
    const result = await spawnDpgw(['schema', 'push', TRACK_SCHEMA_FILE], { env: env(gateway.url) });
    expect(result.code).toBe(3);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^dpgw: POST .* failed with 400 Bad Request: bad schema\\u001b\[2J.* ✓ all checks passed/);
  });

  it('a topic label that is no topic name is refused before the table is sent', async () => {
    const label = 'track","sasl.jaas.config":"x\u001b[2J';
    const listing = [{ name: 'track', labels: { 'catalog.example/dataset': label }, storage: [{ name: 'default', id: 's1' }], links: [{ rel: 'self', href: '/datasources/d1/enablements/e1/datasets/t1' }] }];
    const gateway = await hostile({ 'GET /api/v2/catalog/datasources/all/enablements/all/datasets': () => ({ body: listing }) });
    const result = await spawnDpgw(['table', 'create', '--dataset', 'track', '--schema', TRACK_SCHEMA_FILE, '--stream-password', 'env:NOPE'], { env: { ...env(gateway.url), DPGW_STREAM_PASSWORD: 'stream-pw-1234', DPGW_BROKER_LIST: 'b:9092', DPGW_STREAM_USER: 'u', DPGW_REGISTRY_URL: 'http://r:8081' } });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/the catalog's topic label of data set track is not usable: the topic name "track\\",\\"sasl/);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(gateway.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it("catalog listings and show: the catalog's names are escaped, no forged line", async () => {
    const self = '/datasources/d1/enablements/e1/datasets/t1';
    const gateway = await hostile({
      'GET /api/v2/catalog/datasources': () => ({ body: [{ id: 'd1', name: `evil${ESCAPES[0]}source` }] }),
      'GET /api/v2/catalog/datasources/d1/enablements': () => ({ body: [{ id: 'e1', name: `e1${FORGED}`, groups: [`g${ESCAPES[1]}`] }] }),
      'GET /api/v2/catalog/datasources/all/enablements/all/datasets': () => ({ body: [{ name: 'track', id: `t1${FORGED}`, storage: [{ name: 'default', id: `s${ESCAPES[2]}` }], links: [{ rel: 'self', href: self }] }] }),
      'GET /api/internal/olap/tables/track': () => ({ status: 404, body: { code: 404, error: `no${FORGED}` } }),
    });
    for (const args of [['catalog', 'datasets'], ['catalog', 'enablements'], ['catalog', 'show', 'track']]) {
      const result = await spawnDpgw(args, { env: env(gateway.url) });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toMatch(RAW_CONTROL);
      expect(result.stdout.split('\n').some((line) => line.startsWith('✓'))).toBe(false);
    }
  });

  it('a schema or table nested 20,000 levels deep is refused in one line naming the endpoint, not a stack overflow', async () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const json = { 'content-type': 'application/json' };
    const gateway = await hostile({
      'GET /api/internal/olap/schemas/track': () => ({ headers: json, body: `{"schemaName":"track","dimensionFieldSpecs":[{"name":"id","dataType":"STRING","x":${deep}}]}` }),
      'GET /api/internal/olap/tables/track': () => ({ headers: json, body: `{"REALTIME":{"tableName":"track_REALTIME","tableType":"REALTIME","x":${deep}}}` }),
    });
    for (const [args, path] of [
      [['schema', 'get', 'track'], 'schemas/track'],
      [['schema', 'get', 'track', '--json'], 'schemas/track'],
      [['table', 'get', 'track'], 'tables/track'],
      [['table', 'get', 'track', '--json'], 'tables/track'],
    ] as const) {
      const result = await spawnDpgw([...args], { env: env(gateway.url) });
      expect(result.stderr, args.join(' ')).not.toContain('unexpected error');
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(3);
      expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(`dpgw: answer too deep: GET ${gateway.url}/api/internal/olap/${path} answered JSON nested more than 100 levels deep, which dpgw does not read`)]);
    }
  });

  it('an error answer nested 20,000 levels deep is shown clipped, not a stack overflow', async () => {
    const gateway = await hostile({ 'POST /api/internal/olap/schemas': () => ({ status: 400, headers: { 'content-type': 'application/json' }, body: `${'['.repeat(20_000)}${']'.repeat(20_000)}` }) });
    const result = await spawnDpgw(['schema', 'push', TRACK_SCHEMA_FILE], { env: env(gateway.url) });
    expect(result.stderr).not.toContain('unexpected error');
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^dpgw: POST .* failed with 400 Bad Request: \[{20}/)]);
  });

  it('an answer larger than dpgw reads ends in one line, not a crash', async () => {
    let sent = 0;
    const server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      // Bounded: at most 200 MB, and never after the client has gone.
      const pump = () => {
        while (sent < 200 && !response.destroyed) {
          sent++;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
    const result = await spawnDpgw(['health'], { env: env(`http://127.0.0.1:${(server.address() as AddressInfo).port}`) });
    expect(result.code).toBe(3);
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^dpgw: answer too large: GET http:\/\/127\.0\.0\.1:\d+\/api\/health answered more than 16 MB, which dpgw does not read — /)]);
    expect(sent).toBeLessThan(200);
  });
});

describe('secrets in every written form', () => {
  const sandboxes = sandboxPerTest();

  it('a stream password with quotes and backslashes is masked whole in a --verbose trace', async () => {
    const sandbox = await sandboxes.start();
    const password = 'pa"ss\\wo\'rd with spaces&more=1';
    const result = await spawnDpgw(['table', 'create', '--dataset', 'track', '--schema', TRACK_SCHEMA_FILE, '--dry-run', '--verbose'], { env: { ...(await adminPipelineEnv(sandbox)), DPGW_STREAM_PASSWORD: password } });
    const output = result.stdout + result.stderr;
    for (const form of [password, JSON.stringify(password).slice(1, -1), encodeURIComponent(password), 'wo\'rd with', 'ss\\\\wo', 'more=1']) expect(output).not.toContain(form);
    expect(output).toContain('***');
  });
});

describe('the query engine cannot steer the token or the time', () => {
  it('a cancel goes to the configured engine only', async () => {
    const elsewhere = await hostile({});
    const engine = await hostile({ 'POST /v1/statement': () => ({ body: { id: 'q1', columns: [{ name: 'x', type: 'integer' }], data: [[1], [2]], nextUri: `${elsewhere.url}/v1/statement/executing/q1/1` } }) });
    const client = new StatementClient({ baseUrl: engine.url, catalog: 'pinot', tokenSupplier: async () => 'engine-token-1234' });
    try {
      expect((await client.query('SELECT x FROM t', { maxRows: 1 })).rows).toEqual([[1]]);
    } finally {
      client.close();
    }
    expect(elsewhere.requests).toEqual([]);
  });

  it('a query left QUEUED is cancelled at its deadline', async () => {
    const engine = await hostile({});
    const queued = () => ({ body: { id: 'q2', nextUri: `${engine.url}/v1/statement/queued/q2/1`, stats: { state: 'QUEUED' } } });
    engine.routes.set('POST /v1/statement', queued);
    engine.routes.set('GET /v1/statement/queued/q2/1', queued);
    engine.routes.set('DELETE /v1/statement/queued/q2/1', () => ({ status: 204 }));
    const client = new StatementClient({ baseUrl: engine.url, catalog: 'pinot', tokenSupplier: async () => 'engine-token-1234', statementDeadlineMs: 300 });
    try {
      await expect(client.query('SELECT 1')).rejects.toMatchObject({ kind: 'network', message: expect.stringMatching(/did not finish `SELECT 1` within 0\.3 s \(query q2, still QUEUED\); it was cancelled/) });
    } finally {
      client.close();
    }
    expect(engine.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
  });
});

describe('a refusal names the service that refused and the setting that points at it', () => {
  it('a 404 of the query engine names --query-engine, of the dashboard tool --dashboard-url, of the gateway --gateway; unreachable ones likewise', async () => {
    const nowhere = await hostile({});
    const base = cleanEnv({ DPGW_TOKEN: 'a.b.c', DPGW_DASHBOARD_PASSWORD: 'dashboard-pw-1234' });
    const engine = await spawnDpgw(['verify', '--dataset', 'track', '--query-engine', nowhere.url], { env: base });
    expect([engine.code, engine.stderr.trim()]).toEqual([3, `dpgw: POST ${nowhere.url}/v1/statement failed with 404 Not Found: Not Found — check --query-engine (see \`dpgw config\`): the query engine has no such path`]);
    const dashboard = await spawnDpgw(['dashboard', '--dataset', 'track', '--dashboard-url', nowhere.url, '--dashboard-user', 'ana'], { env: base });
    expect([dashboard.code, dashboard.stderr.trim()]).toEqual([3, `dpgw: POST ${nowhere.url}/api/v1/security/login failed with 404 Not Found: Not Found — check --dashboard-url (see \`dpgw config\`): the dashboard tool has no such path`]);
    const gateway = await spawnDpgw(['catalog', 'sources', '--gateway', nowhere.url], { env: base });
    expect(gateway.stderr).toContain('check --gateway and the path settings (--olap-segment)');
    await nowhere.close();
    const closed = await spawnDpgw(['verify', '--dataset', 'track', '--query-engine', nowhere.url], { env: base });
    expect([closed.code, closed.stderr]).toEqual([5, expect.stringContaining('check --query-engine (see `dpgw config`) and that the query engine is running')]);
  });
});
