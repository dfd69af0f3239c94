/**
 * The contract's workflow with real systems behind the gateway (the sandbox in
 * backed mode): tokens from the real Keycloak, topics on the real Kafka, schemas
 * and tables sent to the real Pinot, whose answers the gateway passes through.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import kafkajs from 'kafkajs';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseJaasOptions } from '../../src/olap/jaas-config.js';
import { maskSecrets } from '../../src/secrets/redaction.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { feedMessages } from '../../src/sandbox/stream/feed-messages.js';
import { cleanEnv, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminEnv, startBackedGateway } from './backed-platform.js';

const keycloak = inject('keycloak');
const kafka = inject('kafka');
const pinot = inject('pinot');
const { Kafka, logLevel } = kafkajs;
const TOPIC = 'mock-data-library.track.track';
const MESSAGES = 300;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startBackedGateway();
});
afterAll(() => sandbox.close());

const dpgwEnv = () => adminEnv(sandbox.gatewayUrl);

function kafkaClient(password = kafka.streamPassword) {
  return new Kafka({ clientId: 'dpgw-e2e', brokers: [kafka.brokerList], sasl: { mechanism: 'scram-sha-512', username: kafka.streamUser, password }, logLevel: logLevel.NOTHING, retry: { retries: 3 } });
}

async function query(sql: string): Promise<{ rows: unknown[][]; exceptions: unknown[] }> {
  const response = await fetch(`${pinot.broker}/query/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql }) });
  const body = (await response.json()) as { resultTable?: { rows: unknown[][] }; exceptions?: unknown[] };
  return { rows: body.resultTable?.rows ?? [], exceptions: body.exceptions ?? [] };
}

describe(`the track data set through Keycloak ${keycloak.version}, Kafka ${kafka.version} and Pinot ${pinot.version}`, () => {
  it('dpgw provision registers it; messages on the topic become rows Pinot answers with', async () => {
    const env = dpgwEnv();
    const passwordFile = join(env.DPGW_CONFIG_DIR!, 'stream-password');
    writeFileSync(passwordFile, kafka.streamPassword, { mode: 0o600 });
    const result = await spawnDpgw(['provision', join(ROOT, 'examples/track/provision.yaml'), '--json', '--stream-password', `file:${passwordFile}`], { env });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.dataSets[0]).toMatchObject({ dataset: 'track', status: 'done', topic: TOPIC });
    expect(summary.dataSets[0].steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable changed', 'stream passed', 'sample skipped', 'schema changed', 'table changed', 'storage changed', 'consume passed']);
    // The topic was empty when the table was made: the sample check said so and let it go on.
    expect(summary.dataSets[0].steps[2].reason).toMatch(/^not checked: topic mock-data-library\.track\.track holds no messages yet/);
    // Pinot's own consuming segments, through the gateway: every partition of the topic Kafka holds.
    expect(summary.dataSets[0].steps.find((s: { step: string }) => s.step === 'consume').reason).toBe(`table track is consuming 3 of 3 partitions of topic ${TOPIC}`);
    expect(result.stderr).toContain('signed in as admin');

    // Pinot has the schema and the table; Kafka has the topic.
    expect(await (await fetch(`${pinot.controller}/schemas`)).json()).toContain('track');
    expect(JSON.stringify(await (await fetch(`${pinot.controller}/tables`)).json())).toContain('track');
    const admin = kafkaClient().admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).toContain(TOPIC);
    } finally {
      await admin.disconnect();
    }

    // A producer authenticated as the stream user of the table definition feeds the topic.
    const stored = sandbox.store.tables.get('track')!.definition.tableIndexConfig.streamConfigs;
    const producer = kafkaClient(parseJaasOptions(stored['sasl.jaas.config']!).password).producer();
    await producer.connect();
    try {
      // The track messages the sandbox's own feeds produce: the contract's columns, realistic values.
      await producer.send({ topic: TOPIC, messages: feedMessages('track', MESSAGES).map(({ key, value }) => ({ key, value })) });
    } finally {
      await producer.disconnect();
    }

    let count = 0;
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      count = Number((await query('SELECT COUNT(*) FROM track')).rows[0]?.[0] ?? 0);
      if (count >= MESSAGES) break;
      await sleep(1_000);
    }
    console.log(`[e2e] Pinot counts ${count} rows of the ${MESSAGES} produced`);
    expect(count).toBe(MESSAGES);
    const { rows } = await query('SELECT lon, lat FROM track LIMIT 100');
    expect(rows).toHaveLength(100);
    for (const [lon, lat] of rows as number[][]) {
      expect(Math.abs(lon!)).toBeLessThanOrEqual(180);
      expect(Math.abs(lat!)).toBeLessThanOrEqual(90);
    }
  }, 240_000);

  it("the stream pre-flight with Kafka's SCRAM: a wrong stream password is refused before anything is sent; the right one gives a table Pinot consumes on every partition, and the rows arrive", async () => {
    const env = dpgwEnv();
    const folder = env.DPGW_CONFIG_DIR!;
    writeFileSync(join(folder, 'schema.yaml'), readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8').replace('schemaName: track', 'schemaName: track_proof'));
    const manifest = join(folder, 'proof.yaml');
    writeFileSync(manifest, 'dataSets:\n  - { datasource: mock-data-library, dataset: track, enablement: track, groups: [track-readers], schema: schema.yaml, table: { name: track_proof } }\n');
    const posts = () => sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET').length;
    const before = posts();
    const refused = await spawnDpgw(['provision', manifest], { env: { ...env, DPGW_STREAM_PASSWORD: 'not-the-stream-password' } });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(`dpgw: ${kafka.brokerList}: the tables would never consume: the brokers refused stream user ${kafka.streamUser} (SASL SCRAM-SHA-512)`);
    expect(refused.stderr).not.toContain('not-the-stream-password');
    // Proven by the gateway's request log: no enablement, no schema, no table was sent.
    expect(posts()).toBe(before);
    expect(await (await fetch(`${pinot.controller}/tables/track_proof`)).json()).toEqual({});

    const run = await spawnDpgw(['provision', manifest, '--json'], { env: { ...env, DPGW_STREAM_PASSWORD: kafka.streamPassword } });
    expect(run.code, run.stderr).toBe(0);
    const [result] = JSON.parse(run.stdout).dataSets;
    expect(result.steps.find((s: { step: string }) => s.step === 'stream')).toMatchObject({ action: 'check', status: 'passed', reason: expect.stringContaining(`topic ${TOPIC}: 3 partitions`), facts: { partitions: 3 } });
    expect(result.steps.find((s: { step: string }) => s.step === 'consume')).toEqual({ step: 'consume', action: 'wait', status: 'passed', reason: `table track_proof is consuming 3 of 3 partitions of topic ${TOPIC}`, facts: { consuming: 3, partitions: 3 } });
    // What Pinot itself says, asked of its controller directly.
    const info = (await (await fetch(`${pinot.controller}/tables/track_proof/consumingSegmentsInfo`)).json()) as { _segmentToConsumingInfoMap: Record<string, Array<{ consumerState: string }>> };
    expect(Object.values(info._segmentToConsumingInfoMap).map((servers) => servers[0]!.consumerState)).toEqual(['CONSUMING', 'CONSUMING', 'CONSUMING']);
    // The rows arrive: the messages the first test produced, from the earliest offset.
    let count = 0;
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && count < MESSAGES) {
      count = Number((await query('SELECT COUNT(*) FROM track_proof')).rows[0]?.[0] ?? 0);
      if (count < MESSAGES) await sleep(1_000);
    }
    expect(count).toBeGreaterThanOrEqual(MESSAGES);
  }, 240_000);

  it('the read side through the real Pinot: table get and schema get are what its controller holds, catalog show names the topic on Kafka', async () => {
    const env = dpgwEnv();
    const table = await spawnDpgw(['table', 'get', 'track', '--json'], { env });
    expect(table.code, table.stderr).toBe(0);
    const held = (await (await fetch(`${pinot.controller}/tables/track`)).json()) as { REALTIME: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- Pinot's own answer
    // What Pinot holds, the stream password masked in dpgw's output and nowhere else changed.
    expect(JSON.parse(table.stdout)).toEqual(maskSecrets(held));
    expect(held.REALTIME.segmentsConfig.retentionTimeValue).toBe('7');
    expect(JSON.parse(table.stdout).REALTIME.tableIndexConfig.streamConfigs['sasl.jaas.config']).toMatch(/password="\*\*\*"/);
    expect(table.stdout + table.stderr).not.toContain(kafka.streamPassword);
    const yaml = await spawnDpgw(['table', 'get', 'track'], { env });
    expect(yaml.stdout).toMatch(/^REALTIME:\n {2}tableName: track_REALTIME\n/);
    expect(yaml.stdout).not.toContain(kafka.streamPassword);

    const schema = await spawnDpgw(['schema', 'get', 'track', '--json'], { env });
    expect(schema.code, schema.stderr).toBe(0);
    expect(JSON.parse(schema.stdout)).toEqual(await (await fetch(`${pinot.controller}/schemas/track`)).json());

    // Pinot's answers for names it does not have: exit 9 for both.
    for (const what of ['schema', 'table']) expect((await spawnDpgw([what, 'get', 'nothing_here'], { env })).code).toBe(9);

    const shown = JSON.parse((await spawnDpgw(['catalog', 'show', 'track', '--json'], { env })).stdout);
    expect(shown).toMatchObject({ topic: TOPIC, table: { name: 'track', exists: true, checked: true } });
    const admin = kafkaClient().admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).toContain(shown.topic);
    } finally {
      await admin.disconnect();
    }
  });

  it("a plan of more reads than --concurrency takes Pinot's own lists of schemas and tables: a name they lack is not read by name", async () => {
    const env = dpgwEnv();
    const folder = env.DPGW_CONFIG_DIR!;
    const trackSchema = readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8');
    writeFileSync(join(folder, 'schema.yaml'), trackSchema);
    const fresh = ['vessel_listed', 'weather_listed'];
    for (const name of fresh) writeFileSync(join(folder, `${name}.yaml`), trackSchema.replace(/^schemaName: track$/m, `schemaName: ${name}`));
    const file = join(folder, 'listed.yaml');
    writeFileSync(
      file,
      `name: track\ndataSets:\n  - { datasource: mock-data-library, dataset: track, enablement: track, groups: [track-readers], schema: schema.yaml, table: { name: track } }\n` +
        fresh.map((name) => `  - { datasource: mock-data-library, dataset: ${name.split('_')[0]}, groups: [track-readers], schema: ${name}.yaml, table: { name: ${name} } }\n`).join(''),
    );
    sandbox.requestLog.clear();
    const planned = await spawnDpgw(['provision', file, '--plan', '--json', '--concurrency', '1'], { env });
    expect(planned.code, planned.stderr).toBe(0);
    const actions = JSON.parse(planned.stdout).plan.map((p: { steps: Array<{ step: string; action: string }> }) => p.steps.filter((s) => s.step === 'schema' || s.step === 'table').map((s) => s.action));
    expect(actions.slice(1)).toEqual([['create', 'create'], ['create', 'create']]);
    expect(actions[0][0]).toBe('none');
    // Pinot 0.11's GET /schemas (a bare array) and GET /tables ({"tables": [...]}), passed on by the gateway and taken by dpgw.
    const listings = sandbox.requestLog.of('gateway', '/api/internal/olap/').filter((e) => e.method === 'GET' && /\/(schemas|tables)$/.test(e.path));
    expect(listings.map((e) => `${e.path} ${e.status}`).sort()).toEqual(['/api/internal/olap/schemas 200', '/api/internal/olap/tables 200']);
    const answered = Math.max(...listings.map((e) => Date.parse(e.at) + (e.durationMs ?? 0)));
    const freshReads = sandbox.requestLog.of('gateway', '/api/internal/olap/').filter((e) => e.method === 'GET' && fresh.some((name) => e.path.endsWith(`/${name}`)));
    expect(freshReads.filter((e) => Date.parse(e.at) > answered + 50).map((e) => e.path)).toEqual([]);
  });

  it('a changed manifest is never "nothing to change": retention 7 → 60 is planned, applied, held by Pinot, then the plan is exit 0; a removed column is refused with nothing sent', async () => {
    const env = dpgwEnv();
    const passwordFile = join(env.DPGW_CONFIG_DIR!, 'stream-password');
    writeFileSync(passwordFile, kafka.streamPassword, { mode: 0o600 });
    const folder = env.DPGW_CONFIG_DIR!;
    writeFileSync(join(folder, 'schema.yaml'), readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8'));
    const manifest = (retention: number, schema = 'schema.yaml') => {
      const file = join(folder, 'changed.yaml');
      // The manifest that made the table (examples/track/provision.yaml, named track after its folder), changed.
      writeFileSync(file, `name: track\ndataSets:\n  - { datasource: mock-data-library, dataset: track, enablement: track, groups: [track-readers], schema: ${schema}, table: { name: track, retentionDays: ${retention} } }\n`);
      return file;
    };
    const withPassword = ['--stream-password', `file:${passwordFile}`];
    const planned = await spawnDpgw(['provision', manifest(60), '--plan', '--detailed-exitcode'], { env });
    expect(planned.code, planned.stderr).toBe(7);
    expect(planned.stdout).toContain('~ segmentsConfig.retentionTimeValue: "7" → 60');
    const applied = await spawnDpgw(['provision', manifest(60), '--detailed-exitcode', '--json', ...withPassword], { env });
    expect(applied.code, applied.stderr).toBe(7);
    expect(JSON.parse(applied.stdout).dataSets[0].steps.find((s: { step: string }) => s.step === 'table')).toMatchObject({ action: 'update', status: 'changed', difference: ['~ segmentsConfig.retentionTimeValue: "7" → 60'] });
    // Asked of Pinot's controller directly, not through dpgw.
    const held = (await (await fetch(`${pinot.controller}/tables/track`)).json()) as { REALTIME: { segmentsConfig: { retentionTimeValue: string } } };
    expect(held.REALTIME.segmentsConfig.retentionTimeValue).toBe('60');
    const again = await spawnDpgw(['provision', manifest(60), '--detailed-exitcode', ...withPassword], { env });
    expect(again.code, again.stderr).toBe(0);
    const replanned = await spawnDpgw(['provision', manifest(60), '--plan', '--detailed-exitcode'], { env });
    expect(replanned.code, replanned.stdout).toBe(0);

    writeFileSync(join(folder, 'narrower.yaml'), readFileSync(join(folder, 'schema.yaml'), 'utf8').replace(/ {2}- \{ name: alt, dataType: DOUBLE \}\n/, ''));
    const requestsBefore = sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET').length;
    const refused = await spawnDpgw(['provision', manifest(60, 'narrower.yaml'), ...withPassword], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/schema track would remove or retype columns the analytics store holds \(- alt: DOUBLE \(metric\)\)/);
    expect(sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET')).toHaveLength(requestsBefore);
  });

  it('dpgw schema infer --dataset track reads those messages from Kafka, read-only; Pinot accepts the schema and fills a table from it', async () => {
    const env = dpgwEnv();
    env.DPGW_STREAM_PASSWORD = kafka.streamPassword;
    env.DPGW_TOKEN = await adminToken();
    const admin = kafkaClient().admin();
    await admin.connect();
    const groupsBefore = (await admin.listGroups()).groups.map((g) => g.groupId);
    const output = join(env.DPGW_CONFIG_DIR!, 'track_inferred.yaml');
    const result = await spawnDpgw(['schema', 'infer', '--dataset', 'track', '--sample', String(MESSAGES), '--name', 'track_inferred', '-o', output, '--verbose'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`stream: metadata of ${TOPIC} from ${kafka.brokerList} as ${kafka.streamUser} (SASL SCRAM-SHA-512)`);
    expect(result.stderr).toContain(`schema track_inferred from ${MESSAGES} messages of topic ${TOPIC} written to ${output}`);
    expect(result.stdout + result.stderr).not.toContain(kafka.streamPassword);

    // The contract's track schema: the same columns in the same groups with the same types; time is the one the template fills.
    const byGroup = (schema: Record<string, Array<{ name: string; dataType: string }>>) =>
      Object.fromEntries(['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs'].map((group) => [group, (schema[group] ?? []).map((spec) => `${spec.name}:${spec.dataType}`).sort()]));
    const inferred = parseYaml(readFileSync(output, 'utf8'));
    expect(byGroup(inferred)).toEqual(byGroup(parseYaml(readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8'))));

    // Read-only: no consumer group was joined, so none was left behind (and nothing committed).
    try {
      expect((await admin.listGroups()).groups.map((g) => g.groupId).sort()).toEqual(groupsBefore.sort());
    } finally {
      await admin.disconnect();
    }

    const pushed = await spawnDpgw(['schema', 'push', output], { env });
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(await (await fetch(`${pinot.controller}/schemas`)).json()).toContain('track_inferred');
    const created = await spawnDpgw(['table', 'create', '--dataset', 'track', '--schema', output], { env });
    expect(created.code, created.stderr).toBe(0);
    let count = 0;
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && count < MESSAGES) {
      count = Number((await query('SELECT COUNT(*) FROM track_inferred')).rows[0]?.[0] ?? 0);
      if (count < MESSAGES) await sleep(1_000);
    }
    expect(count).toBe(MESSAGES);

    // The same from a manifest: --plan shows the inferred schema, provision pushes it and creates the table.
    const manifest = join(env.DPGW_CONFIG_DIR!, 'infer.yaml');
    writeFileSync(manifest, `dataSets:\n  - datasource: mock-data-library\n    dataset: track\n    enablement: track\n    groups: [track-readers]\n    schema: { infer: { sample: ${MESSAGES}, name: track_manifest } }\n    table: { name: track_manifest }\n`);
    const planned = await spawnDpgw(['provision', manifest, '--plan'], { env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(`schema    create       POST schema track_manifest (new) inferred from ${MESSAGES} messages of topic ${TOPIC}`);
    expect(planned.stdout).toMatch(/^ {5}metricFieldSpecs:\n {7}- \{ name: alt, dataType: DOUBLE \}/m);
    const provisioned = await spawnDpgw(['provision', manifest, '--json'], { env });
    expect(provisioned.code, provisioned.stderr).toBe(0);
    const [summary] = JSON.parse(provisioned.stdout).dataSets;
    expect(summary.steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable unchanged', 'stream passed', 'sample skipped', 'schema changed', 'table changed', 'storage changed', 'consume passed']);
    expect(await (await fetch(`${pinot.controller}/schemas/track_manifest`)).json()).toMatchObject({ schemaName: 'track_manifest', metricFieldSpecs: expect.arrayContaining([expect.objectContaining({ name: 'alt', dataType: 'DOUBLE' })]) });
  }, 240_000);

  it('a schema that says objtype where the Kafka messages say objType is refused before any table is sent, naming the field', async () => {
    const env = dpgwEnv();
    env.DPGW_STREAM_PASSWORD = kafka.streamPassword;
    const slipped = join(env.DPGW_CONFIG_DIR!, 'slipped.yaml');
    writeFileSync(slipped, readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8').replace('schemaName: track', 'schemaName: track_slipped').replace('{ name: objType,', '{ name: objtype,'));
    const changes = () => sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET').length;
    const before = changes();
    const result = await spawnDpgw(['table', 'create', '--dataset', 'track', '--schema', slipped, '--json'], { env: { ...env, DPGW_TOKEN: await adminToken() } });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'MESSAGES_DO_NOT_FIT', details: { missing: [{ column: 'objtype', likely: 'objType' }] } });
    expect(result.stderr).toContain(`schema track_slipped does not fit the messages of topic ${TOPIC}: column objtype: no sampled message carries it (did you mean objType?)`);
    expect(changes()).toBe(before);
    expect(await (await fetch(`${pinot.controller}/tables/track_slipped`)).json()).toEqual({});
  });

  it("a table Pinot rejects gives dpgw's exit 3 with Pinot's reason", async () => {
    const env = dpgwEnv();
    env.DPGW_STREAM_PASSWORD = kafka.streamPassword;
    // A template without the consumer type, which Pinot 0.11 requires.
    const template = join(env.DPGW_CONFIG_DIR!, 'no-consumer-type.yaml');
    const original = (await import('node:fs')).readFileSync(join(ROOT, 'templates/realtime-table.yaml'), 'utf8');
    writeFileSync(template, original.replace(/^ {4}stream\.\$\{streamType\}\.consumer\.type: lowLevel\n/m, ''));
    // A table of its own (table track exists, and a create that differs from it is refused before anything is sent), with its schema in Pinot.
    const schema = join(env.DPGW_CONFIG_DIR!, 'track-rejected.schema.yaml');
    writeFileSync(schema, readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8').replace('schemaName: track', 'schemaName: track_rejected'));
    const token = await adminToken();
    const pushed = await spawnDpgw(['schema', 'push', schema], { env: { ...env, DPGW_TOKEN: token } });
    expect(pushed.code, pushed.stderr).toBe(0);
    const result = await spawnDpgw(['table', 'create', '--dataset', 'track', '--schema', schema, '--template', template], { env: { ...env, DPGW_TOKEN: token } });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr.trimEnd().split('\n').filter((l) => !l.startsWith('warning:') && !l.startsWith('stream checked:') && !l.startsWith('messages checked:'))).toHaveLength(1);
    expect(result.stderr).toMatch(/400 Bad Request: Invalid table config for table track_rejected_REALTIME: .*consumer type/);
  });

  it('the gateway refuses a token Keycloak did not sign', async () => {
    const env = cleanEnv({ DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_TOKEN: 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln' });
    const result = await spawnDpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', 'g', '--dry-run'], { env });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('401 Unauthorized');
  });
});

async function adminToken(): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'password', scope: 'openid', username: 'admin', password: keycloak.users.find((u) => u.username === 'admin')!.password, client_id: keycloak.clientId, client_secret: keycloak.clientSecret });
  const response = await fetch(`${keycloak.authUrl}/auth/realms/${keycloak.realm}/protocol/openid-connect/token`, { method: 'POST', body: form });
  return ((await response.json()) as { access_token: string }).access_token;
}
