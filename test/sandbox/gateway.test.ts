/** The sandbox gateway over HTTP: every endpoint and rule, each fault mode, the request log. */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { HEALTH_COMPONENTS } from '../../src/contract/constants.js';
import { OTHER_AUDIENCE_CLIENT_ID, startSandbox, TRACK_GROUP, type Sandbox } from '../../src/sandbox/sandbox.js';
import { call, passwordGrant, tokenFor } from '../helpers/sandbox-http.js';
import { trackSchema, trackTable } from '../helpers/track.js';

let sandbox: Sandbox;
let admin: string;
const api = (path: string) => `${sandbox.gatewayUrl}${path}`;
const catalog = (path: string) => api(`/api/v2/catalog${path}`);

beforeAll(async () => {
  sandbox = await startSandbox({ topicDelayMs: 150 });
  admin = await tokenFor(sandbox, 'admin');
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.faults.reset());

/** Enables a data set of the mock data library and waits for its topic; returns the listed data set. */
async function enableAndWait(enablement: string, dataSet: string, groups = [TRACK_GROUP]) {
  const [source] = (await call('GET', catalog('/datasources'), { token: admin })).body;
  const created = await call('POST', catalog(`/datasources/${source.id}/enablements`), { token: admin, json: { name: enablement, groups } });
  const enablementId = created.status === 201 ? created.body.id : (await call('GET', catalog(`/datasources/${source.id}/enablements`), { token: admin })).body.find((e: { name: string }) => e.name === enablement).id;
  await call('PUT', catalog(`/datasources/${source.id}/enablements/${enablementId}/datasets/${dataSet}`), { token: admin, json: {} });
  for (let i = 0; i < 100; i++) {
    const listed = (await call('GET', catalog(`/datasources/${source.id}/enablements/${enablementId}/datasets`), { token: admin })).body;
    const found = listed.find((d: { name: string }) => d.name === dataSet);
    if (found) return { source, enablementId, dataSet: found };
    await sleep(20);
  }
  throw new Error('topic never appeared');
}

describe('health', () => {
  it('reports all twelve components with the contract sub-components, with or without a token', async () => {
    const anonymous = await call('GET', api('/api/health'));
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.status).toBe('UP');
    expect(anonymous.body.groups).toEqual(['api', 'liveness', 'readiness']);
    expect(Object.keys(anonymous.body.components)).toEqual(Object.keys(HEALTH_COMPONENTS));
    for (const [name, subs] of Object.entries(HEALTH_COMPONENTS)) {
      expect(anonymous.body.components[name].status).toBe('UP');
      expect(Object.keys(anonymous.body.components[name].components)).toEqual(subs);
    }
    expect((await call('GET', api('/api/health'), { token: admin })).status).toBe(200);
  });

  it('answers per component with groups, 404 for an unknown one, and checks afresh every call', async () => {
    const before = sandbox.health.checks;
    const mq = await call('GET', api('/api/health/mq'));
    expect(mq.body).toEqual({ status: 'UP', components: { connection: { status: 'UP' } }, groups: ['api', 'liveness', 'readiness'] });
    await call('GET', api('/api/health/mq'));
    expect(sandbox.health.checks).toBe(before + 2);
    expect((await call('GET', api('/api/health/kafka'))).status).toBe(404);
  });

  it('a component set DOWN (admin endpoint) makes it and the whole DOWN, with 503', async () => {
    await call('POST', api('/__sandbox/health'), { json: { component: 'mq.connection', status: 'DOWN' } });
    try {
      const whole = await call('GET', api('/api/health'));
      expect(whole.status).toBe(503);
      expect(whole.body.status).toBe('DOWN');
      expect(whole.body.components.mq).toEqual({ status: 'DOWN', components: { connection: { status: 'DOWN' } } });
      expect(whole.body.components.gateway.status).toBe('UP');
      expect((await call('GET', api('/api/health/mq'))).status).toBe(503);
      expect((await call('GET', api('/api/health/gateway'))).status).toBe(200);
    } finally {
      sandbox.health.reset();
    }
  });
});

describe('authentication', () => {
  it('requires a valid bearer token on every /api route but health', async () => {
    const none = await call('GET', catalog('/datasources'));
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ status: 401, error: 'Unauthorized', path: '/api/v2/catalog/datasources' });
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const garbage = await call('GET', catalog('/datasources'), { token: 'not.a.jwt' });
    expect(garbage.status).toBe(401);
    expect(garbage.headers.get('www-authenticate')).toContain('invalid_token');
    const [h, p] = admin.split('.');
    expect((await call('GET', catalog('/datasources'), { token: `${h}.${p}.AAAA` })).status).toBe(401);
    expect((await call('GET', api('/api/version'))).status).toBe(401);
  });

  it('refuses a token meant for another audience', async () => {
    const reporting = sandbox.clients.find((c) => c.clientId === OTHER_AUDIENCE_CLIENT_ID)!;
    const grant = await passwordGrant(sandbox, 'admin', { client_id: reporting.clientId, client_secret: reporting.secret });
    expect(grant.status).toBe(200);
    const answer = await call('GET', api('/api/version'), { token: grant.body.access_token });
    expect(answer.status).toBe(401);
    expect(answer.body.message).toBe('The aud claim is not valid');
  });

  it('refuses an expired token', async () => {
    const shortLived = await startSandbox({ accessTokenLifetimeSeconds: 4 });
    try {
      const token = await tokenFor(shortLived, 'admin');
      expect((await call('GET', `${shortLived.gatewayUrl}/api/version`, { token })).status).toBe(200);
      const { exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { exp: number };
      // The clock moves past the token's own expiry (only Date: the servers' timers run as ever).
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(exp * 1000 + 1_100);
      const expired = await call('GET', `${shortLived.gatewayUrl}/api/version`, { token });
      expect(expired.status).toBe(401);
      expect(expired.body.message).toBe('Jwt expired');
    } finally {
      vi.useRealTimers();
      await shortLived.close();
    }
  });

  it('lets only the admin group provision (403 otherwise)', async () => {
    const analyst = await tokenFor(sandbox, 'analyst');
    const answer = await call('POST', api('/api/internal/olap/schemas'), { token: analyst, json: trackSchema() });
    expect(answer.status).toBe(403);
    expect(answer.body.message).toContain('platform-admins');
    expect((await call('GET', catalog('/datasources'), { token: analyst })).status).toBe(200);
  });
});

describe('version and catalog', () => {
  it('serves the platform version, older than 1.15.165 by default', async () => {
    expect((await call('GET', api('/api/version'), { token: admin })).body).toEqual({ version: '1.15.164' });
  });

  it('lists the mock data library and what it offers', async () => {
    const sources = (await call('GET', catalog('/datasources'), { token: admin })).body;
    expect(sources.map((s: { name: string }) => s.name)).toEqual(['mock-data-library', 'mock-sensor-feed']);
    const offered = (await call('GET', catalog(`/datasources/${sources[0].id}/datasets`), { token: admin })).body;
    expect(offered.map((d: { name: string }) => d.name)).toEqual(['track', 'vessel', 'weather']);
    expect((await call('GET', catalog('/datasources/nope/datasets'), { token: admin })).status).toBe(404);
  });

  it('creates enablements (409 for a second of the same name) and validates them', async () => {
    const [source] = (await call('GET', catalog('/datasources'), { token: admin })).body;
    const created = await call('POST', catalog(`/datasources/${source.id}/enablements`), { token: admin, json: { name: 'weather-team', groups: ['weather-readers'] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'weather-team', groups: ['weather-readers'] });
    expect(created.body.links[0].href).toBe(`/datasources/${source.id}/enablements/${created.body.id}`);
    expect((await call('POST', catalog(`/datasources/${source.id}/enablements`), { token: admin, json: { name: 'weather-team', groups: ['x'] } })).status).toBe(409);
    const noGroups = await call('POST', catalog(`/datasources/${source.id}/enablements`), { token: admin, json: { name: 'x', groups: [] } });
    expect(noGroups.status).toBe(400);
    expect(noGroups.body.message).toContain('groups');
    const listed = (await call('GET', catalog(`/datasources/${source.id}/enablements`), { token: admin })).body;
    expect(listed.map((e: { name: string }) => e.name)).toContain('weather-team');
  });

  it('enables a data set idempotently; it is listed only once its topic exists, with the contract fields', async () => {
    const [source] = (await call('GET', catalog('/datasources'), { token: admin })).body;
    const enablement = (await call('POST', catalog(`/datasources/${source.id}/enablements`), { token: admin, json: { name: 'vessel-team', groups: ['vessel-readers'] } })).body;
    const enablePath = catalog(`/datasources/${source.id}/enablements/${enablement.id}/datasets/vessel`);
    expect((await call('PUT', enablePath, { token: admin, json: {} })).status).toBe(202);
    expect((await call('PUT', enablePath, { token: admin, json: {} })).status).toBe(200);
    const all = () => call('GET', catalog('/datasources/all/enablements/all/datasets'), { token: admin });
    expect((await all()).body.find((d: { name: string }) => d.name === 'vessel')).toBeUndefined();
    await sleep(300);
    const vessel = (await all()).body.find((d: { name: string }) => d.name === 'vessel');
    expect(vessel.storage).toEqual([{ name: 'default', id: expect.any(String) }]);
    expect(vessel.links).toEqual([{ rel: 'self', href: `/datasources/${source.id}/enablements/${enablement.id}/datasets/${vessel.id}` }]);
    const [labelKey, topic] = Object.entries(vessel.labels)[0] as [string, string];
    expect(labelKey.endsWith('/dataset')).toBe(true);
    expect(topic).toBe('mock-data-library.vessel-team.vessel');
    expect((await call('PUT', catalog(`/datasources/${source.id}/enablements/${enablement.id}/datasets/nothing`), { token: admin, json: {} })).status).toBe(404);
  });
});

describe('OLAP schemas and tables', () => {
  it("takes a schema again when it only adds columns, and refuses one that removes or retypes one, in Pinot 0.11's words (measured)", async () => {
    const base = { ...trackSchema(), schemaName: 'evolving' };
    expect((await call('POST', api('/api/internal/olap/schemas'), { token: admin, json: base })).status).toBe(200);
    const wider = { ...base, dimensionFieldSpecs: [...base.dimensionFieldSpecs!, { name: 'speed', dataType: 'DOUBLE' }] };
    expect((await call('POST', api('/api/internal/olap/schemas'), { token: admin, json: wider })).body).toEqual({ unrecognizedProperties: {}, status: 'evolving successfully added' });
    const narrower = { ...base, dimensionFieldSpecs: base.dimensionFieldSpecs!.slice(1) };
    const refused = await call('POST', api('/api/internal/olap/schemas'), { token: admin, json: narrower });
    expect([refused.status, refused.body]).toEqual([400, { code: 400, error: 'New schema: evolving is not backward-compatible with the existing schema' }]);
    const read = await call('GET', api('/api/internal/olap/schemas/evolving'), { token: admin });
    expect(read.body.dimensionFieldSpecs.map((c: { name: string }) => c.name)).toContain('speed');
  });

  it('stores a schema by name, accepts it again, and rejects bad ones naming the field', async () => {
    const first = await call('POST', api('/api/internal/olap/schemas'), { token: admin, json: trackSchema() });
    expect(first.status).toBe(200);
    expect((await call('POST', api('/api/internal/olap/schemas'), { token: admin, json: trackSchema() })).status).toBe(200);
    expect(sandbox.store.schemas.get('track')).toEqual(trackSchema());
    const cases: Array<[(s: ReturnType<typeof trackSchema>) => void, string]> = [
      [(s) => delete (s as Partial<typeof s>).schemaName, "'schemaName'"],
      [(s) => (s.dimensionFieldSpecs![0]!.dataType = 'TEXT'), "dimensionFieldSpecs[0].dataType 'TEXT'"],
      [(s) => (s.metricFieldSpecs![0]!.dataType = 'STRING'), "metric column 'alt' must be numeric"],
      [(s) => (s.dateTimeFieldSpecs![0]!.format = '1:MILLIS:EPOCH'), "dateTimeFieldSpecs[0].format '1:MILLIS:EPOCH'"],
      [(s) => (s.dateTimeFieldSpecs![0]!.granularity = 'MILLISECONDS'), 'dateTimeFieldSpecs[0].granularity'],
      [(s) => s.metricFieldSpecs!.push({ name: 'lat', dataType: 'DOUBLE' }), 'Duplicate column name: lat'],
      [(s) => Object.assign(s, { dimensionFieldSpecs: [], metricFieldSpecs: [], dateTimeFieldSpecs: [] }), 'no columns'],
    ];
    for (const [change, message] of cases) {
      const schema = trackSchema();
      change(schema);
      const answer = await call('POST', api('/api/internal/olap/schemas'), { token: admin, json: schema });
      expect(answer.status, message).toBe(400);
      expect(answer.body.code).toBe(400);
      expect(answer.body.error).toContain(message);
    }
  });

  it('validates a REALTIME table as the store does, then creates it once (409 after)', async () => {
    const { dataSet } = await enableAndWait('track-team', 'track');
    const topic = Object.values(dataSet.labels)[0] as string;
    await call('POST', api('/api/internal/olap/schemas'), { token: admin, json: trackSchema() });
    const cases: Array<[(t: ReturnType<typeof trackTable>) => void, string]> = [
      [(t) => (t.segmentsConfig.schemaName = 'trak'), "'segmentsConfig.schemaName': schema 'trak' does not exist"],
      [(t) => (t.segmentsConfig.timeColumnName = 'alt'), "'segmentsConfig.timeColumnName': Cannot find valid fieldSpec for timeColumn: alt"],
      [(t) => (t.segmentsConfig.retentionTimeUnit = 'FORTNIGHTS'), "'segmentsConfig.retentionTimeUnit': invalid time unit: FORTNIGHTS"],
      [(t) => (t.segmentsConfig.retentionTimeValue = 0), "'segmentsConfig.retentionTimeValue' must be a positive integer"],
      [(t) => (t.segmentsConfig.replication = 1.5), "'segmentsConfig.replication' must be a positive integer"],
      [(t) => delete t.tableIndexConfig.streamConfigs.streamType, "'tableIndexConfig.streamConfigs.streamType'"],
      [(t) => delete t.tableIndexConfig.streamConfigs['stream.mq.topic.name'], "'tableIndexConfig.streamConfigs.stream.mq.topic.name'"],
      [(t) => delete t.tableIndexConfig.streamConfigs['stream.mq.decoder.class.name'], "'tableIndexConfig.streamConfigs.stream.mq.decoder.class.name': Must specify decoder class name"],
      // A current store takes no consumer type, but refuses the removed highlevel one.
      [(t) => (t.tableIndexConfig.streamConfigs['stream.mq.consumer.type'] = 'highlevel'), 'HLC consumer (consumer.type=highlevel) is no longer supported'],
      [(t) => (t.ingestionConfig = { streamIngestionConfig: { streamConfigMaps: [t.tableIndexConfig.streamConfigs] } } as never), 'keep tableIndexConfig.streamConfigs or ingestionConfig.streamIngestionConfig.streamConfigMaps, not both'],
      [(t) => ((t.ingestionConfig = { streamIngestionConfig: { streamConfigMaps: [t.tableIndexConfig.streamConfigs, t.tableIndexConfig.streamConfigs] } } as never), delete (t.tableIndexConfig as Partial<typeof t.tableIndexConfig>).streamConfigs), 'exactly one map of stream configs, not 2 maps'],
      [(t) => (t.tableIndexConfig.streamConfigs['stream.mq.topic.name'] = 'no-such-topic'), "topic 'no-such-topic' does not exist"],
      [(t) => (t.ingestionConfig = { transformConfigs: [{ columnName: 'when', transformFunction: 'now()' }] }), "the destination column 'when' of the transform function must be present in the schema"],
      [(t) => delete (t as Partial<typeof t>).tenants, "'tenants'"],
      [(t) => (t.tableName = 'my track'), 'containing space is not allowed'],
    ];
    for (const [change, message] of cases) {
      const answer = await call('POST', api('/api/internal/olap/tables'), { token: admin, json: trackTable(topic, 'mq', change) });
      expect(answer.status, message).toBe(400);
      expect(answer.body.error).toContain(message);
    }
    expect(sandbox.store.tables.size).toBe(0);
    const created = await call('POST', api('/api/internal/olap/tables'), { token: admin, json: trackTable(topic) });
    expect(created.status).toBe(200);
    expect(created.body.status).toBe('Table track_REALTIME successfully added');
    const again = await call('POST', api('/api/internal/olap/tables'), { token: admin, json: trackTable(topic) });
    expect(again.status).toBe(409);
    expect(again.body.error).toContain('already exists');
  });

  it('keys streams by the stream type (kafka for a real Pinot)', async () => {
    const { dataSet } = await enableAndWait('kafka-team', 'weather');
    const topic = Object.values(dataSet.labels)[0] as string;
    await call('POST', api('/api/internal/olap/schemas'), { token: admin, json: { ...trackSchema(), schemaName: 'weather' } });
    const table = trackTable(topic, 'kafka', (t) => {
      t.tableName = 'weather';
      t.segmentsConfig.schemaName = 'weather';
    });
    expect((await call('POST', api('/api/internal/olap/tables'), { token: admin, json: table })).status).toBe(200);
  });
});

describe('storage touch', () => {
  it('grants the enablement groups read on the tables of the data set, and says so', async () => {
    const { source, enablementId, dataSet } = await enableAndWait('track-team', 'track');
    expect(sandbox.catalog.canRead('track', [TRACK_GROUP])).toBe(false);
    const storage = dataSet.storage.find((s: { name: string }) => s.name === 'default');
    const touched = await call('GET', api(`/api/v2/catalog${dataSet.links[0].href}/storages/${storage.id}`), { token: admin });
    expect(touched.status).toBe(200);
    expect(touched.body.permissions).toEqual([{ table: 'track', groups: [TRACK_GROUP], privilege: 'SELECT' }]);
    expect(touched.body.message).toBe(`read permission on track granted to ${TRACK_GROUP}`);
    expect(sandbox.catalog.canRead('track', [TRACK_GROUP])).toBe(true);
    expect(sandbox.catalog.canRead('track', [])).toBe(false);
    expect((await call('GET', catalog(`/datasources/${source.id}/enablements/${enablementId}/datasets/${dataSet.id}/storages/nope`), { token: admin })).status).toBe(404);
  });

  it('from 1.15.165 on, table creation grants by itself', async () => {
    const newer = await startSandbox({ platformVersion: '1.15.165' });
    try {
      const token = await tokenFor(newer, 'admin');
      const [source] = (await call('GET', `${newer.gatewayUrl}/api/v2/catalog/datasources`, { token })).body;
      const enablement = (await call('POST', `${newer.gatewayUrl}/api/v2/catalog/datasources/${source.id}/enablements`, { token, json: { name: 'e', groups: ['g'] } })).body;
      await call('PUT', `${newer.gatewayUrl}/api/v2/catalog/datasources/${source.id}/enablements/${enablement.id}/datasets/track`, { token, json: {} });
      await call('POST', `${newer.gatewayUrl}/api/internal/olap/schemas`, { token, json: trackSchema() });
      expect((await call('POST', `${newer.gatewayUrl}/api/internal/olap/tables`, { token, json: trackTable('mock-data-library.e.track') })).status).toBe(200);
      expect(newer.catalog.permissions).toEqual([expect.objectContaining({ table: 'track', groups: ['g'], via: 'automatic' })]);
    } finally {
      await newer.close();
    }
  });
  it('takes a table as a current store writes it: numbers as text, tenants {}, no schemaName, no retention, the stream in streamConfigMaps', async () => {
    const { dataSet } = await enableAndWait('track-team', 'track');
    const topic = Object.values(dataSet.labels)[0] as string;
    const storeWritten = trackTable(topic, 'mq', (t) => {
      const streams = t.tableIndexConfig.streamConfigs;
      delete streams['stream.mq.consumer.type'];
      Object.assign(t, { tableName: 'track_store_written', tenants: {}, ingestionConfig: { streamIngestionConfig: { streamConfigMaps: [{ ...streams, 'realtime.segment.flush.threshold.rows': 30 }] } } });
      delete (t.tableIndexConfig as Partial<typeof t.tableIndexConfig>).streamConfigs;
      Object.assign(t.segmentsConfig, { replication: '1', replicasPerPartition: '1', schemaName: undefined, retentionTimeUnit: undefined, retentionTimeValue: undefined });
    });
    await call('POST', api('/api/internal/olap/schemas'), { token: admin, json: { ...trackSchema(), schemaName: 'track_store_written' } });
    const written = await call('POST', api('/api/internal/olap/tables'), { token: admin, json: storeWritten });
    expect(written.body).toMatchObject({ status: 'Table track_store_written_REALTIME successfully added' });
    expect((await call('DELETE', api('/api/internal/olap/tables/track_store_written?type=realtime'), { token: admin })).status).toBe(200);
  });
});

describe('fault injection', () => {
  it('adds latency to every gateway request', async () => {
    await call('POST', api('/__sandbox/faults'), { json: { latencyMs: 200 } });
    const started = Date.now();
    await call('GET', api('/api/health'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(195);
  });

  it('fails a fraction of /api requests with 503', async () => {
    sandbox.faults.update({ failureRate: 1 });
    const answer = await call('GET', catalog('/datasources'), { token: admin });
    expect(answer.status).toBe(503);
    expect(answer.body.message).toContain('injected failure');
    sandbox.faults.update({ failureRate: 0.5 });
    const statuses = await Promise.all(Array.from({ length: 40 }, () => call('GET', api('/api/health')).then((r) => r.status)));
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(5);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(5);
  });

  it('drops connections without an answer', async () => {
    sandbox.faults.update({ dropRate: 1 });
    await expect(fetch(api('/api/health'))).rejects.toThrow();
  });

  it('fails targeted requests a given number of times', async () => {
    await call('POST', api('/__sandbox/faults'), { json: { failures: [{ method: 'POST', path: '/api/internal/olap/*', status: 500, times: 1 }] } });
    expect((await call('POST', api('/api/internal/olap/schemas'), { token: admin, json: trackSchema() })).status).toBe(500);
    expect((await call('POST', api('/api/internal/olap/schemas'), { token: admin, json: trackSchema() })).status).toBe(200);
  });
});

describe('the request log', () => {
  it('keeps every request in order with secrets masked, and counts connections', async () => {
    await call('POST', api('/__sandbox/reset'));
    const table = trackTable('t');
    await call('POST', api('/api/internal/olap/tables'), { token: admin, json: table });
    await call('GET', api('/api/health?verbose=1'));
    const entries = sandbox.requestLog.of('gateway');
    expect(entries.map((e) => `${e.method} ${e.path}`)).toEqual(['POST /api/internal/olap/tables', 'GET /api/health']);
    expect(entries[0]!.headers.authorization).toBe('Bearer ***');
    expect(entries[0]!.headers['content-type']).toBe('application/json');
    expect((entries[0]!.body as typeof table).tableIndexConfig.streamConfigs['sasl.jaas.config']).toBe('org.apache.kafka.common.security.scram.ScramLoginModule required username="stream" password="***";');
    expect(entries[1]!.query).toEqual({ verbose: '1' });
    expect(entries[1]!.status).toBe(200);
    expect(JSON.stringify(sandbox.requestLog.entries)).not.toContain('stream-secret-pw');
    expect(JSON.stringify(sandbox.requestLog.entries)).not.toContain(admin);
    const viaHttp = await call('GET', api('/__sandbox/requests'));
    expect(viaHttp.body).toHaveLength(2);
    expect(sandbox.connections().gateway).toBeGreaterThan(0);
  });

  it('counts the connections it accepts and the most open at once (what bench:provision holds to the concurrency)', async () => {
    const counted = await startSandbox();
    const agent = new http.Agent({ keepAlive: true });
    const get = () =>
      new Promise<number>((resolve, reject) => {
        http.get(`${counted.gatewayUrl}/api/health`, { agent }, (response) => response.resume().on('end', () => resolve(response.statusCode ?? 0))).on('error', reject);
      });
    try {
      // One keep-alive connection, used twice: accepted once, one at a time.
      expect(await get()).toBe(200);
      expect(await get()).toBe(200);
      expect([counted.connections().gateway, counted.connectionsAtOnce().gateway]).toEqual([1, 1]);
      // Three at once on a fresh pool: three more accepted, three open together.
      agent.destroy();
      const three = new http.Agent({ keepAlive: true });
      const getWith = () => new Promise<void>((resolve, reject) => http.get(`${counted.gatewayUrl}/api/health`, { agent: three }, (response) => response.resume().on('end', resolve)).on('error', reject));
      await Promise.all([getWith(), getWith(), getWith()]);
      three.destroy();
      expect(counted.connections().gateway).toBe(4);
      expect(counted.connectionsAtOnce().gateway).toBe(3);
    } finally {
      agent.destroy();
      await counted.close();
    }
  });

  it('writes JSON lines to a log file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dpgw-sandbox-')), 'requests.jsonl');
    const logged = await startSandbox({ logFile: file });
    try {
      await call('GET', `${logged.gatewayUrl}/api/health`);
      await call('GET', `${logged.gatewayUrl}/api/health/mq`);
    } finally {
      await logged.close();
    }
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((l) => l.path)).toEqual(['/api/health', '/api/health/mq']);
    expect(lines[0]).toMatchObject({ seq: 1, server: 'gateway', method: 'GET', status: 200 });
  });
});
