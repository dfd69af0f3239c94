import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/gateway/gateway-client.js';
import { GatewayError } from '../../src/gateway/gateway-error.js';
import { DpgwError } from '../../src/errors/dpgw-error.js';
import type { AnalyticsSchema, RealtimeTableDefinition } from '../../src/contract/types.js';
import { closedPort, startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.test-access-token.signature';
let server: RecordingServer | undefined;
let client: GatewayClient | undefined;

afterEach(async () => {
  client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

function clientFor(url: string, extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}): GatewayClient {
  client = new GatewayClient({ baseUrl: url, tokenSupplier: async () => TOKEN, retry: { baseDelayMs: 5, maxDelayMs: 2_000 }, ...extra });
  return client;
}

const schema: AnalyticsSchema = {
  schemaName: 'track',
  dimensionFieldSpecs: [{ name: 'origin', dataType: 'STRING' }],
  metricFieldSpecs: [{ name: 'lat', dataType: 'DOUBLE' }],
  dateTimeFieldSpecs: [{ name: 'time', dataType: 'LONG', notNull: false, format: '1:MILLISECONDS:EPOCH', granularity: '1:MILLISECONDS' }],
};

describe('requests as the contract describes them', () => {
  it('POSTs the schema as JSON with the bearer token', async () => {
    server = await startRecordingServer({ 'POST /api/internal/olap/schemas': () => ({ status: 201 }) });
    const result = await clientFor(server.url).createSchema(schema);
    expect(result).toEqual({ status: 201, body: undefined });
    const [request] = server.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/api/internal/olap/schemas');
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request!.body)).toEqual(schema);
  });

  it('puts the OLAP path word of the settings into the table path', async () => {
    server = await startRecordingServer({ 'POST /api/internal/pinot/tables': () => ({ status: 200, body: { status: 'Table track_REALTIME succesfully added' } }) });
    const table = { tableName: 'track' } as RealtimeTableDefinition;
    const result = await clientFor(server.url, { olapSegment: 'pinot' }).createTable(table);
    expect(result.body).toEqual({ status: 'Table track_REALTIME succesfully added' });
    expect(server.requests[0]!.path).toBe('/api/internal/pinot/tables');
  });

  it('treats 204 and bodies that are not JSON as success', async () => {
    server = await startRecordingServer({
      'POST /api/internal/olap/schemas': () => ({ status: 204 }),
      'POST /api/internal/olap/tables': () => ({ status: 200, body: 'created' }),
    });
    const c = clientFor(server.url);
    expect(await c.createSchema(schema)).toEqual({ status: 204, body: undefined });
    expect(await c.createTable({ tableName: 't' } as RealtimeTableDefinition)).toEqual({ status: 200, body: 'created' });
  });

  it('lists data sets under all/all by default and under given ids', async () => {
    const dataSet = { name: 'track', storage: [{ name: 'default', id: 's1' }], links: [{ rel: 'self', href: '/datasources/d1/enablements/e1/datasets/t1' }] };
    server = await startRecordingServer({
      'GET /api/v2/catalog/datasources/all/enablements/all/datasets': () => ({ body: [dataSet] }),
      'GET /api/v2/catalog/datasources/d1/enablements/e1/datasets': () => ({ body: { items: [dataSet] } }),
    });
    const c = clientFor(server.url);
    expect(await c.listDataSets()).toEqual([dataSet]);
    expect(await c.listDataSets({ dataSourceId: 'd1', enablementId: 'e1' })).toEqual([dataSet]);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v2/catalog/datasources/all/enablements/all/datasets',
      'GET /api/v2/catalog/datasources/d1/enablements/e1/datasets',
    ]);
    expect(server.requests[0]!.body).toBe('');
  });

  it('builds the storage path from the self link, however the href is written', async () => {
    const path = '/api/v2/catalog/datasources/d1/enablements/e1/datasets/t1/storages/s1';
    server = await startRecordingServer({ [`GET ${path}`]: () => ({ status: 200 }) });
    const c = clientFor(server.url);
    await c.touchStorage('/datasources/d1/enablements/e1/datasets/t1', 's1');
    await c.touchStorage('/api/v2/catalog/datasources/d1/enablements/e1/datasets/t1/', 's1');
    await c.touchStorage(`${server.url}/api/v2/catalog/datasources/d1/enablements/e1/datasets/t1`, 's1');
    expect(server.requests.map((r) => r.path)).toEqual([path, path, path]);
  });

  it('reads health, whole or per component, with 503 as an answer and without requiring a token', async () => {
    const down = { status: 'DOWN', components: { mq: { status: 'DOWN', components: { connection: { status: 'DOWN' } } } }, groups: ['api', 'liveness', 'readiness'] };
    server = await startRecordingServer({
      'GET /api/health': () => ({ status: 503, body: down }),
      'GET /api/health/mq': () => ({ status: 503, body: down.components.mq }),
    });
    const c = clientFor(server.url, {
      tokenSupplier: async () => {
        throw new DpgwError('NOT_SIGNED_IN', 'not logged in');
      },
    });
    expect(await c.health()).toEqual({ status: 503, record: down });
    expect((await c.health('mq')).record.status).toBe('DOWN');
    // 503 from health is a result: one request each, no retries.
    expect(server.requests.map((r) => r.path)).toEqual(['/api/health', '/api/health/mq']);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('reads the platform version, and treats a 404 as unknown', async () => {
    server = await startRecordingServer({ 'GET /api/version': () => ({ body: { version: '1.15.164' } }) });
    expect(await clientFor(server.url).platformVersion()).toBe('1.15.164');
    server.routes.clear();
    expect(await client!.platformVersion()).toBeUndefined();
  });

  it('creates an enablement and enables a data set with PUT (assumed endpoints)', async () => {
    server = await startRecordingServer({
      'POST /api/v2/catalog/datasources/mock/enablements': () => ({ status: 201, body: { id: 'e1', name: 'tracks', groups: ['g'] } }),
      'PUT /api/v2/catalog/datasources/mock/enablements/e1/datasets/track': () => ({ status: 204 }),
    });
    const c = clientFor(server.url);
    expect(await c.createEnablement('mock', { name: 'tracks', groups: ['g'] })).toEqual({ id: 'e1', name: 'tracks', groups: ['g'] });
    expect((await c.enableDataSet('mock', 'e1', 'track')).status).toBe(204);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ name: 'tracks', groups: ['g'] });
  });
});

describe('error answers', () => {
  const cases: Array<[string, number, unknown, string]> = [
    ['Spring Boot', 400, { timestamp: '2026-11-22T10:00:00.000+00:00', status: 400, error: 'Bad Request', message: 'segmentsConfig.schemaName must name a saved schema', path: '/api/internal/olap/tables' }, 'segmentsConfig.schemaName must name a saved schema'],
    ['Spring Boot without message', 500, { timestamp: '2026-11-22T10:00:00.000+00:00', status: 500, error: 'Internal Server Error', path: '/x' }, 'Internal Server Error'],
    ['RFC 7807', 422, { type: 'about:blank', title: 'Invalid table', status: 422, detail: 'retentionTimeValue must be positive' }, 'Invalid table: retentionTimeValue must be positive'],
    ['the analytics store', 400, { code: 400, error: "Invalid table config: track with error: Cannot find schema 'track'" }, "Invalid table config: track with error: Cannot find schema 'track'"],
    ['plain text', 502, 'upstream connect error', 'upstream connect error'],
  ];
  for (const [shape, status, body, message] of cases) {
    it(`shows the message of ${shape}`, async () => {
      server = await startRecordingServer({ 'POST /api/internal/olap/tables': () => ({ status, body }) });
      const error = await clientFor(server.url)
        .createTable({ tableName: 't' } as RealtimeTableDefinition)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      const gatewayError = error as GatewayError;
      expect(gatewayError.status).toBe(status);
      expect(gatewayError.method).toBe('POST');
      expect(gatewayError.url).toBe(`${server.url}/api/internal/olap/tables`);
      expect(gatewayError.bodyMessage).toBe(message);
      expect(gatewayError.toLine()).toContain(message);
      expect(gatewayError.exitCode).toBe(3);
    });
  }

  it('maps 401 to the authentication exit code with a login hint', async () => {
    server = await startRecordingServer({ 'GET /api/v2/catalog/datasources': () => ({ status: 401, body: { error: 'invalid_token' } }) });
    const error = (await clientFor(server.url, { tokenSupplier: undefined })
      .listDataSources()
      .catch((e: unknown) => e)) as GatewayError;
    expect(error.exitCode).toBe(4);
    expect(error.hint).toContain('dpgw login');
  });
});

describe('retries', () => {
  it('retries a GET on 503 and succeeds', async () => {
    server = await startRecordingServer({ 'GET /api/v2/catalog/datasources': (_r, attempt) => (attempt < 3 ? { status: 503 } : { body: [{ id: 'mock', name: 'mock' }] }) });
    expect(await clientFor(server.url).listDataSources()).toEqual([{ id: 'mock', name: 'mock' }]);
    expect(server.requests).toHaveLength(3);
  });

  it('never sends a POST again after an answer that may mean it was carried out (409, 500, 502, 504)', async () => {
    for (const status of [409, 500, 502, 504]) {
      const s = await startRecordingServer({ 'POST /api/internal/olap/schemas': () => ({ status }) });
      const error = await clientFor(s.url).createSchema(schema).catch((e: unknown) => e);
      expect((error as GatewayError).status).toBe(status);
      expect(s.requests).toHaveLength(1);
      client!.close();
      await s.close();
    }
  });

  it('sends a POST again after 429 and 503, which say it was not carried out, honouring Retry-After', async () => {
    for (const status of [429, 503]) {
      const s = await startRecordingServer({ 'POST /api/internal/olap/schemas': (_r, attempt) => (attempt < 3 ? { status, headers: { 'retry-after': '0' } } : { status: 200, body: {} }) });
      await clientFor(s.url).createSchema(schema);
      expect(s.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
      client!.close();
      await s.close();
    }
  });

  it('never retries a POST whose connection broke', async () => {
    server = await startRecordingServer({ 'POST /api/internal/olap/schemas': () => ({ drop: true }) });
    const error = (await clientFor(server.url).createSchema(schema).catch((e: unknown) => e)) as DpgwError;
    expect(error.exitCode).toBe(5);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a GET on a status that will not change (400, 404, 500)', async () => {
    server = await startRecordingServer({ 'GET /api/v2/catalog/datasources': () => ({ status: 500 }) });
    await expect(clientFor(server.url).listDataSources()).rejects.toBeInstanceOf(GatewayError);
    expect(server.requests).toHaveLength(1);
  });

  it('honours Retry-After before the next attempt', async () => {
    server = await startRecordingServer({ 'GET /api/v2/catalog/datasources': (_r, attempt) => (attempt === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { body: [] }) });
    const started = Date.now();
    await clientFor(server.url).listDataSources();
    expect(server.requests).toHaveLength(2);
    // The wait is Retry-After's second, not the 5 ms backoff this client is configured with.
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('gives up after the retry limit with the last error', async () => {
    server = await startRecordingServer({ 'GET /api/v2/catalog/datasources': () => ({ status: 502, body: 'bad gateway' }) });
    const error = (await clientFor(server.url, { retry: { limit: 2, baseDelayMs: 1 } })
      .listDataSources()
      .catch((e: unknown) => e)) as GatewayError;
    expect(error.status).toBe(502);
    expect(server.requests).toHaveLength(3);
  });

  it('retries a GET whose connection was refused, then reports the network', async () => {
    const port = await closedPort();
    const error = (await clientFor(`http://127.0.0.1:${port}`, { retry: { limit: 2, baseDelayMs: 1 } })
      .listDataSources()
      .catch((e: unknown) => e)) as DpgwError;
    expect(error).toBeInstanceOf(DpgwError);
    expect(error.exitCode).toBe(5);
    expect(error.message).toContain(`cannot reach 127.0.0.1:${port}`);
    expect(error.message).toContain('ECONNREFUSED');
  });
});

describe('timeouts, tokens and connections', () => {
  it('gives up on a request that gets no answer within the timeout', async () => {
    server = await startRecordingServer({ 'GET /api/v2/catalog/datasources': () => ({ hang: true }) });
    const error = (await clientFor(server.url, { timeoutMs: 300 })
      .listDataSources()
      .catch((e: unknown) => e)) as DpgwError;
    expect(error.kind).toBe('network');
    expect(error.exitCode).toBe(5);
    expect(error.message).toMatch(/no answer within 0\.3 s/);
    expect(error.hint).toContain('--timeout');
  });

  it('on 401 refreshes the token once and sends the request again', async () => {
    const forced: boolean[] = [];
    server = await startRecordingServer({
      'POST /api/internal/olap/schemas': (request) => (request.headers.authorization === 'Bearer fresh-token-value' ? { status: 201 } : { status: 401 }),
    });
    const c = clientFor(server.url, {
      tokenSupplier: async ({ forceRefresh }) => {
        forced.push(forceRefresh);
        return forceRefresh ? 'fresh-token-value' : 'stale-token-value';
      },
    });
    expect((await c.createSchema(schema)).status).toBe(201);
    expect(forced).toEqual([false, true]);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer stale-token-value', 'Bearer fresh-token-value']);
  });

  it('does not loop when the refreshed token is refused too', async () => {
    server = await startRecordingServer({ 'POST /api/internal/olap/schemas': () => ({ status: 401 }) });
    let calls = 0;
    const c = clientFor(server.url, { tokenSupplier: async () => `token-number-${++calls}` });
    const error = (await c.createSchema(schema).catch((e: unknown) => e)) as GatewayError;
    expect(error.exitCode).toBe(4);
    expect(server.requests).toHaveLength(2);
  });

  it('with limitRequestsAtOnce(n), puts at most n requests on the wire at once and sends the others in the order asked', async () => {
    // A server that holds every request 40 ms and counts how many it holds at once.
    let holding = 0;
    let mostAtOnce = 0;
    const arrived: string[] = [];
    const slow = createServer((request, response) => {
      holding++;
      mostAtOnce = Math.max(mostAtOnce, holding);
      arrived.push(request.url ?? '');
      setTimeout(() => {
        holding--;
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"schemaName":"s","dimensionFieldSpecs":[]}');
      }, 40);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const c = clientFor(`http://127.0.0.1:${(slow.address() as AddressInfo).port}`);
      c.limitRequestsAtOnce(2);
      const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
      const reads = await Promise.all(names.map((name) => c.getSchema(name)));
      expect(reads.map((r) => r.kind)).toEqual(names.map(() => 'found'));
      expect(mostAtOnce).toBe(2);
      expect(arrived).toEqual(names.map((name) => `/api/internal/olap/schemas/${name}`));
    } finally {
      client?.close();
      client = undefined;
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it('reuses one kept-alive connection for a series of requests', async () => {
    server = await startRecordingServer({ 'GET /api/health': () => ({ body: { status: 'UP' } }) });
    const c = clientFor(server.url);
    for (let i = 0; i < 5; i++) await c.health();
    expect(server.requests).toHaveLength(5);
    expect(server.connections).toBe(1);
  });
});

describe('the --verbose trace', () => {
  it('shows method, URL, status and duration with every secret masked', async () => {
    server = await startRecordingServer({ 'POST /api/internal/olap/tables': () => ({ status: 400, body: { code: 400, error: 'bad table' } }) });
    const lines: string[] = [];
    const c = clientFor(server.url, { trace: (line) => lines.push(line) });
    const table = {
      tableName: 'track',
      tableIndexConfig: {
        loadMode: 'MMAP',
        streamConfigs: {
          'sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="stream" password="s3cret-stream-pw";',
          'stream.mq.topic.name': 'track-topic',
        },
      },
      password: 'another-s3cret',
      client_secret: 'client-s3cret',
    } as unknown as RealtimeTableDefinition;
    await c.createTable(table).catch(() => undefined);
    const trace = lines.join('\n');
    expect(trace).toContain(`→ POST ${server.url}/api/internal/olap/tables`);
    expect(trace).toMatch(new RegExp(`← 400 POST ${server.url.replace(/[.]/g, '\\.')}/api/internal/olap/tables \\d+ ms`));
    expect(trace).toContain('authorization: Bearer ***');
    expect(trace).toContain('username=\\"stream\\" password=\\"***\\"');
    expect(trace).toContain('track-topic');
    for (const secret of [TOKEN, 's3cret-stream-pw', 'another-s3cret', 'client-s3cret']) expect(trace).not.toContain(secret);
    // The request itself still carried the real values.
    expect(server.requests[0]!.body).toContain('s3cret-stream-pw');
  });
});
