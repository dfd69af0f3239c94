/**
 * The sandbox's query engine over HTTP, with a plain fetch client: the statement
 * protocol's shape as Trino 476 answered in the end-to-end tier, and the policy
 * engine's decisions at OPA's paths.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, TRACK_GROUP, type Sandbox } from '../../src/sandbox/sandbox.js';
import { call, tokenFor } from '../helpers/sandbox-http.js';
import { startRecordingServer } from '../helpers/recording-server.js';
import { trackSchema, trackTable } from '../helpers/track.js';
// @ts-expect-error -- a plain ESM script of the project (scripts/), typed by its JSDoc
import { opaGrants } from '../../scripts/platform/backing.mjs';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** A table `track` with the contract's schema, granted to the track group. */
async function withTrackTable(): Promise<Sandbox> {
  sandbox = await startSandbox({ topicDelayMs: 0, rowsPerTable: 3 });
  const admin = await tokenFor(sandbox, 'admin');
  const source = sandbox.catalog.dataSources[0]!;
  const base = `${sandbox.gatewayUrl}/api/v2/catalog/datasources/${source.id}`;
  const enablement = (await call('POST', `${base}/enablements`, { token: admin, json: { name: 'track', groups: [TRACK_GROUP] } })).body;
  await call('PUT', `${base}/enablements/${enablement.id}/datasets/track`, { token: admin });
  expect((await call('POST', `${sandbox.gatewayUrl}/api/internal/olap/schemas`, { token: admin, json: trackSchema() })).status).toBe(200);
  const created = await call('POST', `${sandbox.gatewayUrl}/api/internal/olap/tables`, { token: admin, json: trackTable('mock-data-library.track.track') });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  sandbox.catalog.grant('track', 'track', [...sandbox.catalog.enablements.values()][0]!, 'storage-touch');
  return sandbox;
}

describe('sandbox query engine', () => {
  it("answers Trino's statement protocol: a queued document, then a page with columns and data", async () => {
    const s = await withTrackTable();
    const token = await tokenFor(s, 'analyst');
    const posted = await fetch(`${s.queryEngineUrl}/v1/statement`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-trino-catalog': 'pinot' }, body: 'SELECT lon, lat FROM default.track LIMIT 2' });
    const queued = (await posted.json()) as { id: string; nextUri: string; stats: { state: string } };
    expect(queued.stats.state).toBe('QUEUED');
    expect(queued.nextUri.startsWith(`${s.queryEngineUrl}/v1/statement/queued/${queued.id}/`)).toBe(true);
    const page = (await call('GET', queued.nextUri, { token })).body;
    expect(page.stats.state).toBe('FINISHED');
    expect(page.nextUri).toBeUndefined();
    expect(page.columns.map((c: { name: string; type: string }) => `${c.name} ${c.type}`)).toEqual(['lon double', 'lat double']);
    expect(page.data).toHaveLength(2);
    for (const [lon, lat] of page.data as number[][]) {
      expect(Math.abs(lon!)).toBeLessThanOrEqual(180);
      expect(Math.abs(lat!)).toBeLessThanOrEqual(90);
    }
    // A page is read once.
    expect((await call('GET', queued.nextUri, { token })).status).toBe(404);
  });

  it("refuses a request without a valid token as Trino does: 401, text, WWW-Authenticate", async () => {
    const s = await withTrackTable();
    const answer = await fetch(`${s.queryEngineUrl}/v1/statement`, { method: 'POST', headers: { authorization: 'Bearer not-a-token', 'x-trino-catalog': 'pinot' }, body: 'SELECT 1' });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="Trino", token_type="JWT"');
    expect(answer.headers.get('content-type')).toContain('text/plain');
    expect(await answer.text()).toMatch(/^Invalid JWT/);
    expect(s.requestLog.entries.at(-1)).toMatchObject({ server: 'query-engine', status: 401, headers: { authorization: 'Bearer ***' } });
  });

  it('decides as the policy engine does, and answers at OPA paths in OPA shape', async () => {
    const s = await withTrackTable();
    const identity = (groups: string[]) => ({ identity: { user: 'u', groups } });
    const ask = async (path: string, input: unknown) => (await call('POST', path, { json: { input } })).body.result;
    const select = { operation: 'SelectFromColumns', resource: { table: { catalogName: 'pinot', schemaName: 'default', tableName: 'track', columns: ['lon'] } } };
    expect(await ask(s.policyUri, { context: identity([TRACK_GROUP]), action: select })).toBe(true);
    expect(await ask(s.policyUri, { context: identity([]), action: select })).toBe(false);
    const filter = { operation: 'FilterSchemas', filterResources: [{ schema: { catalogName: 'pinot', schemaName: 'default' } }, { schema: { catalogName: 'pinot', schemaName: 'information_schema' } }] };
    expect(await ask(s.policyBatchedUri, { context: identity([TRACK_GROUP]), action: filter })).toEqual([0, 1]);
    expect(await ask(s.policyBatchedUri, { context: identity(['other']), action: filter })).toEqual([]);
    const columns = { operation: 'FilterColumns', filterResources: [{ table: { catalogName: 'pinot', schemaName: 'default', tableName: 'track', columns: ['lon', 'lat', 'time'] } }] };
    expect(await ask(s.policyBatchedUri, { context: identity([TRACK_GROUP]), action: columns })).toEqual([0, 1, 2]);
  });
});

describe("backed mode: the platform's grants in the policy engine's data", () => {
  async function touchTrack(policyEngineUrl: string) {
    sandbox = await startSandbox({ topicDelayMs: 0, backing: { onGranted: opaGrants(policyEngineUrl) } });
    const admin = await tokenFor(sandbox, 'admin');
    const source = sandbox.catalog.dataSources[0]!;
    const base = `${sandbox.gatewayUrl}/api/v2/catalog/datasources/${source.id}`;
    const enablement = (await call('POST', `${base}/enablements`, { token: admin, json: { name: 'track', groups: [TRACK_GROUP] } })).body;
    await call('PUT', `${base}/enablements/${enablement.id}/datasets/track`, { token: admin });
    await call('POST', `${sandbox.gatewayUrl}/api/internal/olap/schemas`, { token: admin, json: trackSchema() });
    sandbox.store.addTable(trackTable('mock-data-library.track.track'), () => true);
    const dataSet = sandbox.catalog.listDataSets('all', 'all').find((d) => d.name === 'track')!;
    const self = dataSet.links.find((l) => l.rel === 'self')!.href;
    return call('GET', `${sandbox.gatewayUrl}/api/v2/catalog${self}/storages/${dataSet.storage[0]!.id}`, { token: admin });
  }

  it('the storage touch writes the table’s groups before it answers', async () => {
    const opa = await startRecordingServer({ 'PUT /v1/data/dpgw/grants/track': () => ({ status: 204 }) });
    try {
      const touched = await touchTrack(opa.url);
      expect(touched.status).toBe(200);
      expect(opa.requests.map((r) => `${r.method} ${r.path} ${r.body}`)).toEqual(['PUT /v1/data/dpgw/grants/track {"groups":["track-readers"]}']);
    } finally {
      await opa.close();
    }
  });

  it('a policy engine that refuses the grant makes the call fail with 502, naming why', async () => {
    const opa = await startRecordingServer({ 'PUT /v1/data/dpgw/grants/track': () => ({ status: 500, body: { code: 'internal_error' } }) });
    try {
      const touched = await touchTrack(opa.url);
      expect(touched.status).toBe(502);
      expect(touched.body.message).toContain('the authorization service could not write the permissions: the policy engine refused the grant on track: 500');
    } finally {
      await opa.close();
    }
  });
});
