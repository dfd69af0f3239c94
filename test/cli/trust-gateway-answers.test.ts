/**
 * What a gateway (or identity provider) answers is checked before dpgw acts on it: a
 * self link is a plain catalog path or nothing is sent to it, a compressed answer is
 * decoded within the same bound as a plain one, a record of the wrong shape ends in one
 * line naming the endpoint and the field, a listing has a bounded number of records, and
 * --timeout bounds one call to a server in all, retries included.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { IdentityClient } from '../../src/auth/identity-client.js';
import { touchDefaultStorage } from '../../src/catalog/table-and-storage-steps.js';
import { DpgwError } from '../../src/errors/dpgw-error.js';
import { GatewayClient } from '../../src/gateway/gateway-client.js';
import { MAX_ANSWER_BYTES, MAX_LISTING_RECORDS, MAX_RUN_ANSWER_BYTES } from '../../src/net/answer-bounds.js';
import { cleanEnv, runInProcess, type RunResult } from '../helpers/run-dpgw.js';

/** A raw control character a terminal acts on. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const LISTING = '/api/v2/catalog/datasources/all/enablements/all/datasets';
const SELF = '/datasources/d1/enablements/e1/datasets/t1';

interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** JSON-encoded unless a Buffer (sent as is). */
  body?: unknown;
  hang?: boolean;
}

interface HostileServer {
  url: string;
  /** Method and path (query included) of every request, in order. */
  requests: string[];
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A server that answers by a function of method and path; whatever it does not know it answers 200 `{}` (as the gateway answered the data set itself). */
async function hostile(answer: (method: string, path: string) => Answer | undefined): Promise<HostileServer> {
  const state: HostileServer = { url: '', requests: [] };
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      state.requests.push(`${request.method} ${request.url}`);
      const reply = answer(request.method ?? '', request.url ?? '') ?? { body: {} };
      if (reply.hang) return;
      const payload = Buffer.isBuffer(reply.body) ? reply.body : Buffer.from(reply.body === undefined ? '' : JSON.stringify(reply.body));
      response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      response.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return state;
}

const envFor = (gateway: string, extra: Record<string, string> = {}) => cleanEnv({ DPGW_GATEWAY: gateway, DPGW_TOKEN: 'trust-test-token-1234', ...extra });

function expectOneLine(result: RunResult, code: number, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(code);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(RAW_CONTROL);
  expect(result.stderr).not.toMatch(/unexpected error/);
}

function dataSet(selfHref: string, storageId = 's1'): Record<string, unknown> {
  return { name: 'track', labels: { 'catalog.example/dataset': 'track-topic' }, storage: [{ name: 'default', id: storageId }], links: [{ rel: 'self', href: selfHref }] };
}

describe('storage touch sends only the request it means', () => {
  const catalogWith = (record: Record<string, unknown>) => hostile((method, path) => (path === LISTING ? { body: [record] } : path === '/api/version' ? { status: 404, body: { error: 'Not Found' } } : undefined));
  const notTheStorage = (server: HostileServer) => server.requests.filter((r) => r !== `GET ${LISTING}` && r !== 'GET /api/version');

  it.each([
    ['a query', `${SELF}?x=1`],
    ['a fragment', `${SELF}#frag`],
    ['a dot-dot segment', '/datasources/d1/enablements/e1/datasets/..'],
    ['an encoded slash', '/datasources/d1/enablements/e1/datasets/t1%2F..'],
    ['an escape sequence', `${SELF}\u001b[2J`],
    ['a space', '/datasources/d1/enablements/e1/datasets/t 1'],
    ['an absolute URL with a query', `http://elsewhere.example${SELF}?x=1`],
  ])('a self link with %s is refused in one line naming it, and nothing is touched', async (_what, href) => {
    const gateway = await catalogWith(dataSet(href));
    const result = await runInProcess(['storage', 'touch', '--dataset', 'track'], envFor(gateway.url));
    expectOneLine(result, 3, /self link .*of data set track.* is not a plain catalog path/);
    expect(result.stderr).toContain(JSON.stringify(href).slice(1, -1).replace('\\u001b', '\\u001b'));
    expect(result.stdout + result.stderr).not.toMatch(/touched/);
    expect(notTheStorage(gateway)).toEqual([]);
  });

  it.each(['..', '.', 's1/../..', 's1%2F..', 's1?x=1', 's1\u001b[2J', ''])('a default storage id %j that is no plain segment is refused, nothing is touched', async (storageId) => {
    const gateway = await catalogWith(dataSet(SELF, storageId));
    const result = await runInProcess(['storage', 'touch', '--dataset', 'track'], envFor(gateway.url));
    expect(result.code, result.stderr).not.toBe(0);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stdout + result.stderr).not.toMatch(/touched/);
    expect(notTheStorage(gateway)).toEqual([]);
  });

  it('a plain self link, with the catalog base or as an absolute URL, is touched at exactly its storage', async () => {
    for (const href of [SELF, `/api/v2/catalog${SELF}`, `http://gateway.internal:8080/api/v2/catalog${SELF}`]) {
      const gateway = await catalogWith(dataSet(href));
      const result = await runInProcess(['storage', 'touch', '--dataset', 'track'], envFor(gateway.url));
      expect(result.code, result.stderr).toBe(0);
      expect(notTheStorage(gateway)).toEqual([`GET /api/v2/catalog${SELF}/storages/s1`]);
    }
  });

  it("provision's storage step (touchDefaultStorage) refuses the same links before sending", async () => {
    const gateway = await hostile(() => undefined);
    const client = new GatewayClient({ baseUrl: gateway.url, tokenSupplier: async () => 'trust-test-token-1234' });
    try {
      for (const [selfHref, storageId] of [[`${SELF}?x=1`, 's1'], [`${SELF}#f`, 's1'], [SELF, '..']] as const) {
        const error = await touchDefaultStorage(client, { dataSet: 'track', selfHref, storageId }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DpgwError);
        expect((error as DpgwError).exitCode).toBe(3);
      }
    } finally {
      client.close();
    }
    expect(gateway.requests).toEqual([]);
  });
});

describe('compressed answers are decoded within the same bound, or refused in one line', () => {
  const health = { status: 'UP', components: { gateway: { status: 'UP' } } };
  const encoders: Record<string, (data: Buffer) => Buffer> = { gzip: zlib.gzipSync, deflate: zlib.deflateSync, br: zlib.brotliCompressSync };

  it.each(Object.keys(encoders))('health and catalog datasets answered with content-encoding %s are read', async (encoding) => {
    const encode = (body: unknown) => ({ headers: { 'content-encoding': encoding }, body: encoders[encoding]!(Buffer.from(JSON.stringify(body))) });
    const gateway = await hostile((_method, path) => (path === '/api/health' ? encode(health) : path === LISTING ? encode([dataSet(SELF)]) : path === '/api/v2/catalog/datasources' ? encode([{ id: 'd1', name: 'source' }]) : path === '/api/v2/catalog/datasources/d1/enablements' ? encode([{ id: 'e1', name: 'e', groups: ['g'] }]) : undefined));
    const healthRun = await runInProcess(['health'], envFor(gateway.url));
    expect(healthRun.code, healthRun.stderr).toBe(0);
    expect(healthRun.stdout).toMatch(/platform UP/);
    const listing = await runInProcess(['catalog', 'datasets', '--json'], envFor(gateway.url));
    expect(listing.code, listing.stderr).toBe(0);
    expect(JSON.parse(listing.stdout).map((d: { name: string }) => d.name)).toEqual(['track']);
  });

  it('an encoding dpgw does not know is refused in one line naming the URL and the encoding', async () => {
    const gateway = await hostile(() => ({ headers: { 'content-encoding': 'x-evil' }, body: Buffer.from('\u0000\u0001garbage') }));
    expectOneLine(await runInProcess(['health'], envFor(gateway.url)), 3, /^dpgw: GET http:\/\/127\.0\.0\.1:\d+\/api\/health answered with content-encoding "x-evil", which dpgw does not decode/);
  });

  it('a gzip that inflates past the answer bound (a decompression bomb) ends in one line, not a crash', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(MAX_ANSWER_BYTES + 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(MAX_ANSWER_BYTES / 100);
    const gateway = await hostile(() => ({ headers: { 'content-encoding': 'gzip' }, body: bomb }));
    expectOneLine(await runInProcess(['health'], envFor(gateway.url)), 3, /^dpgw: answer too large: GET http:\/\/127\.0\.0\.1:\d+\/api\/health answered more than 16 MB/);
  });

  it("the identity provider's discovery and token answers, gzip-encoded, are read", async () => {
    const realmPath = '/auth/realms/test';
    let issuer = '';
    const gzipped = (body: unknown) => ({ headers: { 'content-encoding': 'gzip' }, body: zlib.gzipSync(Buffer.from(JSON.stringify(body))) });
    const provider = await hostile((method, path) => {
      if (path === `${realmPath}/.well-known/openid-configuration`) return gzipped({ issuer, token_endpoint: `${issuer}/protocol/openid-connect/token` });
      if (method === 'POST' && path === `${realmPath}/protocol/openid-connect/token`) return gzipped({ access_token: 'gzipped-access-token-1234', token_type: 'Bearer', expires_in: 300 });
      return { status: 404, body: { error: 'not found' } };
    });
    issuer = `${provider.url}${realmPath}`;
    const identity = new IdentityClient({ authUrl: provider.url, realm: 'test', clientId: 'dpgw', clientSecret: 'client-secret-1234', clientAuth: 'post', timeoutMs: 5_000 });
    try {
      expect((await identity.passwordGrant('someone', 'password-1234')).accessToken).toBe('gzipped-access-token-1234');
    } finally {
      await identity.close();
    }
  });
});

describe('answers of the wrong shape end in one line naming the endpoint and the field', () => {
  const catalog = (records: { sources?: unknown; enablements?: unknown; dataSets?: unknown; health?: unknown }) =>
    hostile((_method, path) => {
      if (path === '/api/v2/catalog/datasources') return { body: records.sources ?? [{ id: 'd1', name: 'source' }] };
      if (path === '/api/v2/catalog/datasources/d1/enablements') return { body: records.enablements ?? [{ id: 'e1', name: 'e', groups: ['g'] }] };
      if (path === LISTING) return { body: records.dataSets ?? [dataSet(SELF)] };
      if (path === '/api/health') return { body: records.health ?? { status: 'UP' } };
      return { status: 404, body: { error: 'Not Found' } };
    });

  it.each([
    ['links not a list', { dataSets: [{ ...dataSet(SELF), links: 'self' }] }, ['catalog', 'datasets'], LISTING, /\[0\]\.links/],
    ['a number for a name', { dataSets: [dataSet(SELF), { ...dataSet(SELF), name: 42 }] }, ['catalog', 'datasets'], LISTING, /\[1\]\.name/],
    ['a storage that is no object', { dataSets: [{ ...dataSet(SELF), storage: ['default'] }] }, ['catalog', 'datasets'], LISTING, /\[0\]\.storage\[0\]/],
    ['a null label', { dataSets: [{ ...dataSet(SELF), labels: { 'catalog.example/dataset': null } }] }, ['catalog', 'datasets'], LISTING, /\[0\]\.labels\["catalog\.example\/dataset"\]/],
    ['a link without an href', { dataSets: [{ ...dataSet(SELF), links: [{ rel: 'self' }] }] }, ['storage', 'touch', '--dataset', 'track'], LISTING, /\[0\]\.links\[0\]\.href/],
    ['a data source id that is a number', { sources: [{ id: 1, name: 'source' }] }, ['catalog', 'sources'], '/api/v2/catalog/datasources', /\[0\]\.id/],
    ['groups that are no list', { enablements: [{ id: 'e1', name: 'e', groups: 'g' }] }, ['catalog', 'enablements'], '/api/v2/catalog/datasources/d1/enablements', /\[0\]\.groups/],
    ['a health component that is null', { health: { status: 'UP', components: { gateway: null } } }, ['health'], '/api/health', /components\.gateway/],
    ['a health status that is a number', { health: { status: 1 } }, ['health'], '/api/health', /status/],
  ])('%s', async (_what, records, argv, path, field) => {
    const gateway = await catalog(records);
    const result = await runInProcess(argv, envFor(gateway.url));
    expectOneLine(result, 3, new RegExp(`^dpgw: GET ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} answered .*dpgw cannot use: `));
    expect(result.stderr).toMatch(field);
  });

  it('a listing of more records than dpgw keeps is refused in one line naming the bound', async () => {
    const sources = Array.from({ length: MAX_LISTING_RECORDS + 1 }, (_, i) => ({ id: `d${i}`, name: `s${i}` }));
    const gateway = await catalog({ sources });
    const result = await runInProcess(['catalog', 'sources'], envFor(gateway.url));
    expectOneLine(result, 3, new RegExp(`^dpgw: GET /api/v2/catalog/datasources answered ${MAX_LISTING_RECORDS + 1} records, more than the ${MAX_LISTING_RECORDS} dpgw keeps of one listing`));
  });
});

describe('an answer to a POST that is no enablement', () => {
  it('is as good as none: the new enablement is read from the (checked) listing, and the data set is enabled in it', async () => {
    let created = false;
    const gateway = await hostile((method, path) => {
      if (path === '/api/v2/catalog/datasources') return { body: [{ id: 'd1', name: 'source' }] };
      if (path === '/api/v2/catalog/datasources/d1/datasets') return { body: [{ id: 'o1', name: 'track' }] };
      if (path === '/api/v2/catalog/datasources/d1/enablements' && method === 'GET') return { body: created ? [{ id: 'e1', name: 'track', groups: ['g'] }] : [] };
      if (path === '/api/v2/catalog/datasources/d1/enablements' && method === 'POST') {
        created = true;
        return { status: 201, body: { id: 42, name: null, groups: 'g' } };
      }
      if (path === '/api/v2/catalog/datasources/d1/enablements/e1/datasets/track' && method === 'PUT') return { status: 202, body: {} };
      if (path.startsWith('/api/v2/catalog/datasources/d1/enablements/e1/datasets')) return { body: [dataSet('/datasources/d1/enablements/e1/datasets/t1')] };
      return { status: 404, body: { error: 'Not Found' } };
    });
    const result = await runInProcess(['enable', '--datasource', 'source', '--dataset', 'track', '--group', 'g'], envFor(gateway.url));
    expect(result.code, result.stderr).toBe(0);
    expect(gateway.requests).toContain('PUT /api/v2/catalog/datasources/d1/enablements/e1/datasets/track');
    expect(gateway.requests.some((r) => r.includes('/enablements/42'))).toBe(false);
  });
});

describe('what one run reads is bounded in all', () => {
  it(`a gateway answering ${MAX_ANSWER_BYTES / 2 ** 20 / 2} MB to every request stops the run past ${MAX_RUN_ANSWER_BYTES / 2 ** 20} MB, in one error, not a crash`, async () => {
    const big = Buffer.from(JSON.stringify({ status: 'UP', padding: 'x'.repeat(MAX_ANSWER_BYTES / 2) }));
    const gateway = await hostile(() => ({ body: big }));
    const client = new GatewayClient({ baseUrl: gateway.url });
    try {
      let answered = 0;
      const error = await (async () => {
        for (;;) {
          await client.health();
          answered++;
        }
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DpgwError);
      expect((error as DpgwError).exitCode).toBe(3);
      expect((error as DpgwError).message).toMatch(new RegExp(`^answer too large: GET .*/api/health brought what this run read from 127\\.0\\.0\\.1:\\d+ past ${MAX_RUN_ANSWER_BYTES / 2 ** 20} MB in all`));
      // Every answer before the bound was read whole; the one past it was not kept.
      expect(answered).toBe(Math.floor(MAX_RUN_ANSWER_BYTES / big.length));
    } finally {
      client.close();
    }
  });
});

describe('--timeout bounds one call to the gateway in all, retries included', () => {
  it('a gateway that never answers: one attempt, and the command ends near --timeout, not a multiple of it', async () => {
    const gateway = await hostile(() => ({ hang: true }));
    const started = Date.now();
    const result = await runInProcess(['catalog', 'sources', '--timeout', '1'], envFor(gateway.url));
    const elapsed = Date.now() - started;
    expectOneLine(result, 5, /got no answer within 1 s/);
    // Today a GET that timed out is sent again up to 5 times: 6 × --timeout and the waits between.
    expect(gateway.requests).toEqual(['GET /api/v2/catalog/datasources']);
    // Generous: a correctness bound (well under the ~8 s of today), not a speed measurement.
    expect(elapsed).toBeLessThan(5_000);
  });

  it('retries of a GET answered 503 stop when --timeout is spent', async () => {
    const gateway = await hostile(() => ({ status: 503, headers: { 'retry-after': '2' }, body: { error: 'Service Unavailable' } }));
    const started = Date.now();
    const result = await runInProcess(['catalog', 'sources', '--timeout', '1'], envFor(gateway.url));
    expect(result.code, result.stderr).toBe(3);
    // A Retry-After of 2 s does not fit in a 1 s budget: not waited for, not sent again.
    expect(gateway.requests).toEqual(['GET /api/v2/catalog/datasources']);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
