/**
 * enable, schema push, table create, storage touch and health as a user runs
 * them: the built binary against the sandbox, asserting on the sandbox's request
 * log the exact paths, headers and bodies.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseJaasOptions } from '../../src/olap/jaas-config.js';
import { TRACK_GROUP, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { spawnDpgw, type RunResult } from '../helpers/run-dpgw.js';
import { adminPipelineEnv, changesThePlatform } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const SCHEMA = 'examples/track/schema.yaml';
const sandboxes = sandboxPerTest({ topicDelayMs: 100 });

async function setUp(options: SandboxOptions = {}) {
  const sandbox = await sandboxes.start(options);
  const env = await adminPipelineEnv(sandbox);
  const token = env.DPGW_TOKEN!;
  const dpgw = (args: string[], extra: NodeJS.ProcessEnv = {}) => spawnDpgw(args, { env: { ...env, ...extra } });
  const gatewayLog = () => sandbox.requestLog.of('gateway');
  const mutations = () => gatewayLog().filter(changesThePlatform);
  const enableTrack = async () => {
    const result = await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP]);
    expect(result.code, result.stderr).toBe(0);
    return result;
  };
  return { sandbox, env, token, dpgw, gatewayLog, mutations, enableTrack };
}

/** One line besides warnings and the stream pre-flight's report. */
const oneLine = (result: RunResult) => expect(result.stderr.trimEnd().split('\n').filter((l) => !l.startsWith('warning:') && !l.startsWith('stream checked:') && !l.startsWith('messages checked:'))).toHaveLength(1);

describe('dpgw enable', () => {
  it('creates the enablement, enables the data set, waits for the topic and prints it', async () => {
    const { enableTrack, gatewayLog, sandbox } = await setUp({ topicDelayMs: 600 });
    const result = await enableTrack();
    const source = sandbox.catalog.dataSources[0]!;
    const enablement = [...sandbox.catalog.enablements.values()][0]!;
    const base = `/api/v2/catalog/datasources/${source.id}`;
    const log = gatewayLog().map((e) => `${e.method} ${e.path}`);
    expect(log[0]).toBe('GET /api/v2/catalog/datasources');
    // What the source offers and its enablements are asked side by side.
    expect(log.slice(1, 3).sort()).toEqual([`GET ${base}/datasets`, `GET ${base}/enablements`]);
    // A new enablement has nothing enabled yet: no listing before the PUT.
    expect(log.slice(3, 5)).toEqual([`POST ${base}/enablements`, `PUT ${base}/enablements/${enablement.id}/datasets/track`]);
    // It polled until the topic existed.
    expect(log.slice(5).every((l) => l === `GET ${base}/enablements/${enablement.id}/datasets`)).toBe(true);
    expect(log.length).toBeGreaterThan(6);
    const post = gatewayLog()[3]!;
    expect(post.body).toEqual({ name: 'track', groups: [TRACK_GROUP] });
    expect(post.headers['content-type']).toBe('application/json');
    expect(post.headers.authorization).toBe('Bearer ***');
    expect(result.stdout).toContain('topic      mock-data-library.track.track');
    expect(result.stdout).toMatch(/self link {2}\/datasources\/[\w-]+\/enablements\/[\w-]+\/datasets\/[\w-]+/);
    expect(result.stdout).toMatch(/storage {4}default [\w-]+/);
    expect(result.stderr).toContain('✓ enabled track (created enablement track for groups track-readers)');
  });

  it('is safe to repeat: reuses the enablement and says the data set was enabled already', async () => {
    const { enableTrack, mutations } = await setUp();
    await enableTrack();
    const again = await enableTrack();
    expect(again.stderr).toContain('✓ track was already enabled (reused enablement track)');
    expect(mutations().filter((m) => m.method === 'POST')).toHaveLength(1);
    // The listing said it was enabled with its topic: nothing was sent again.
    expect(mutations().filter((m) => m.method === 'PUT')).toHaveLength(1);
  });

  it('--dry-run sends nothing that changes the platform', async () => {
    const { dpgw, mutations } = await setUp();
    const result = await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP, '--dry-run', '--json']);
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(plan.requests.map((r: { method: string }) => r.method)).toEqual(['POST', 'PUT']);
    expect(plan.requests[0].body).toEqual({ name: 'track', groups: [TRACK_GROUP] });
    expect(mutations()).toEqual([]);
  });

  it('names what is wrong: an unknown source or data set, no groups, no topic in time', async () => {
    const { dpgw, mutations } = await setUp({ topicDelayMs: 10_000 });
    const source = await dpgw(['enable', '--datasource', 'mock-data-libary', '--dataset', 'track', '--group', 'g']);
    expect(source.code).toBe(2);
    expect(source.stderr).toBe('dpgw: --datasource: no data source "mock-data-libary" in the catalog — did you mean "mock-data-library"?\n');
    const dataSet = await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'trak', '--group', 'g']);
    expect(dataSet.code).toBe(2);
    expect(dataSet.stderr).toContain('offers no data set "trak" — did you mean "track"?');
    const groups = await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track']);
    expect(groups.code).toBe(2);
    expect(groups.stderr).toContain('--group');
    expect(mutations()).toEqual([]);
    const late = await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', 'g', '--wait-timeout', '1']);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('its topic did not appear within 1 s — the platform may still be creating it: run the same command again later');
  });
});

describe('dpgw schema push', () => {
  it("POSTs the contract's track schema, field by field", async () => {
    const { dpgw, gatewayLog } = await setUp();
    const result = await dpgw(['schema', 'push', SCHEMA]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('✓ schema track created');
    // Compared with the store first (the schema step of provision): not there, so POSTed.
    const [read, request] = gatewayLog();
    expect([read!.method, read!.path]).toEqual(['GET', '/api/internal/olap/schemas/track']);
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/api/internal/olap/schemas');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBe('Bearer ***');
    const body = request!.body as { schemaName: string; dimensionFieldSpecs: unknown[]; metricFieldSpecs: unknown[]; dateTimeFieldSpecs: unknown[] };
    // The contract's table of the track data set's columns.
    const strings = ['origin', 'dataMode', 'objType', 'id', 'createdBy', 'classificationMarking', 'objIdent', 'origNetwork', 'trkId'];
    expect(body.schemaName).toBe('track');
    expect(body.dimensionFieldSpecs).toEqual([...strings.map((name) => ({ name, dataType: 'STRING' })), { name: 'asset', dataType: 'INT' }, { name: '__security__', dataType: 'JSON' }]);
    expect(body.metricFieldSpecs).toEqual(['alt', 'lon', 'lat'].map((name) => ({ name, dataType: 'DOUBLE' })));
    expect(body.dateTimeFieldSpecs).toEqual([{ name: 'time', dataType: 'LONG', notNull: false, format: '1:MILLISECONDS:EPOCH', granularity: '1:MILLISECONDS' }]);
    expect(Object.keys(body)).toEqual(['schemaName', 'dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs']);
  });

  it('the same schema again sends nothing and says so; --dry-run says nothing would be sent', async () => {
    const { dpgw, gatewayLog } = await setUp();
    expect((await dpgw(['schema', 'push', SCHEMA])).code).toBe(0);
    const again = await dpgw(['schema', 'push', SCHEMA, '--json']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('✓ schema track matches the store; nothing was sent');
    expect(JSON.parse(again.stdout)).toMatchObject({ schemaName: 'track', change: 'unchanged', status: null });
    const dry = await dpgw(['schema', 'push', SCHEMA, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('schema track: no changes');
    expect(dry.stdout).not.toContain('POST /api/internal/olap/schemas');
    expect(gatewayLog().filter((e) => e.method === 'POST')).toHaveLength(1);
  });

  it('a column added is sent and named; one removed is refused with exit 2 before anything is sent', async () => {
    const { dpgw, gatewayLog } = await setUp();
    expect((await dpgw(['schema', 'push', SCHEMA])).code).toBe(0);
    const folder = mkdtempSync(join(tmpdir(), 'dpgw-schema-'));
    const original = readFileSync(SCHEMA, 'utf8');
    const wider = join(folder, 'wider.yaml');
    writeFileSync(wider, original.replace('metricFieldSpecs:\n', 'metricFieldSpecs:\n  - { name: speed, dataType: DOUBLE }\n'));
    const added = await dpgw(['schema', 'push', wider]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('✓ schema track updated');
    expect(added.stderr).toContain('+ speed: DOUBLE (metric)');
    const posts = gatewayLog().filter((e) => e.method === 'POST').length;
    const narrower = join(folder, 'narrower.yaml');
    writeFileSync(narrower, readFileSync(wider, 'utf8').replace('  - { name: speed, dataType: DOUBLE }\n', '').replace(/ {2}- \{ name: alt, dataType: DOUBLE \}\n|\n {2}- name: alt\n {4}dataType: DOUBLE/, ''));
    const refused = await dpgw(['schema', 'push', narrower, '--json']);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'SCHEMA_CHANGE_REFUSED', location: narrower });
    expect(refused.stderr).toMatch(/schema track would remove or retype columns the analytics store holds \(.*- speed: DOUBLE \(metric\)/);
    expect(gatewayLog().filter((e) => e.method === 'POST')).toHaveLength(posts);
  });
});

describe('bad schema files: one line with file:line:column, exit 2, nothing sent', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['unknown-type.yaml', 'schemaName: t\ndimensionFieldSpecs:\n  - { name: a, dataType: STRNG }\n', /unknown-type\.yaml:3:26: dimensionFieldSpecs\[0\]\.dataType: unknown dataType "STRNG" \(did you mean STRING\?\)/],
    ['syntax.yaml', 'schemaName: t\ndimensionFieldSpecs:\n  - { name: a, dataType: STRING\n', /syntax\.yaml:\d+:\d+: YAML syntax error: /],
    ['trailing.json', '{\n  "schemaName": "t",\n  "metricFieldSpecs": [{"name": "a", "dataType": "DOUBLE"}],\n}\n', /trailing\.json:4:1: JSON syntax error: /],
    ['no-columns.yaml', 'schemaName: t\n', /no-columns\.yaml:1:1: \(top level\): the schema has no columns/],
    ['bad-time.yaml', 'schemaName: t\ndateTimeFieldSpecs:\n  - { name: time, dataType: LONG, format: "1:MILLIS:EPOCH", granularity: "1:MILLISECONDS" }\n', /bad-time\.yaml:3:43: dateTimeFieldSpecs\[0\]\.format: format "1:MILLIS:EPOCH" is not one the store reads \("MILLIS" is not a time unit/],
  ];
  for (const [name, text, expected] of cases) {
    it(name, async () => {
      const { dpgw, env, gatewayLog } = await setUp();
      const file = join(env.DPGW_CONFIG_DIR!, name);
      writeFileSync(file, text);
      const result = await dpgw(['schema', 'push', file]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      oneLine(result);
      expect(result.stderr).toMatch(expected);
      expect(gatewayLog()).toEqual([]);
    });
  }

  it('schema validate lists every problem', async () => {
    const { dpgw, env } = await setUp();
    const file = join(env.DPGW_CONFIG_DIR!, 'many.yaml');
    writeFileSync(file, 'schemaName: my schema\nmetricFieldSpecs:\n  - { name: a, dataType: STRING }\n  - { name: a, dataType: DOUBLE }\n');
    const result = await dpgw(['schema', 'validate', file]);
    expect(result.code).toBe(2);
    expect(result.stdout.trim().split('\n')).toEqual([
      `${file}:1:13: schemaName: the schema name "my schema" has a space at position 3: use letters, digits, '-' and '_' (the analytics store refuses '.' and spaces)`,
      `${file}:3:26: metricFieldSpecs[0].dataType: metric "a" must be numeric (INT, LONG, FLOAT, DOUBLE, BIG_DECIMAL) or BYTES, not STRING`,
      `${file}:4:13: metricFieldSpecs[1].name: column "a" is defined twice (also at ${file}:3:13)`,
    ]);
    expect((await dpgw(['schema', 'validate', SCHEMA])).stdout).toContain('schema track is valid');
  });
});

describe('dpgw table create', () => {
  async function ready(options: SandboxOptions = {}) {
    const setup = await setUp(options);
    await setup.enableTrack();
    expect((await setup.dpgw(['schema', 'push', SCHEMA])).code).toBe(0);
    return setup;
  }

  it("POSTs the contract's REALTIME table filled from the data set's topic, field by field", async () => {
    const { dpgw, gatewayLog, sandbox, token } = await ready();
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--verbose']);
    expect(result.code, result.stderr).toBe(0);
    // The --verbose trace shows the request, with the token and the stream password masked.
    expect(result.stderr).toContain('→ POST ');
    expect(result.stderr).toContain('authorization: Bearer ***');
    expect(result.stderr).toContain('password=\\"***\\"');
    expect(result.stdout + result.stderr).not.toContain(token);
    // The stream pre-flight before it, the store consuming every partition after it.
    expect(result.stderr).toContain(`stream checked: ${sandbox.stream.brokerList} as dpgw-stream (SASL SCRAM-SHA-512) signed in; topic mock-data-library.track.track has 3 partitions`);
    expect(result.stderr).toContain('✓ table track created for topic mock-data-library.track.track');
    expect(result.stderr).toContain('✓ table track is consuming 3 of 3 partitions of topic mock-data-library.track.track');
    expect(result.stderr).toContain('next: dpgw storage touch --dataset track');
    expect(gatewayLog().map((e) => `${e.method} ${e.path}`).slice(-2)).toEqual(['POST /api/internal/olap/tables', 'GET /api/internal/olap/tables/track/consumingSegmentsInfo']);
    const request = gatewayLog().find((e) => e.path === '/api/internal/olap/tables')!;
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    const table = request.body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- field-by-field comparison
    expect(Object.keys(table)).toEqual(['tableName', 'tableType', 'segmentsConfig', 'tableIndexConfig', 'ingestionConfig', 'tenants', 'metadata']);
    expect(table.tableName).toBe('track');
    expect(table.tableType).toBe('REALTIME');
    expect(table.segmentsConfig).toEqual({ timeColumnName: 'time', timeType: 'MILLISECONDS', retentionTimeUnit: 'DAYS', retentionTimeValue: 7, replication: 1, replicasPerPartition: 1, schemaName: 'track' });
    expect(table.tableIndexConfig.loadMode).toBe('MMAP');
    expect(table.tableIndexConfig.streamConfigs).toEqual({
      streamType: 'mq',
      'stream.mq.consumer.type': 'lowLevel',
      'stream.mq.topic.name': 'mock-data-library.track.track',
      'stream.mq.decoder.class.name': 'org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder',
      'stream.mq.consumer.factory.class.name': 'org.apache.pinot.plugin.stream.kafka20.KafkaConsumerFactory',
      'stream.mq.broker.list': sandbox.stream.brokerList,
      'key.serializer': 'org.apache.kafka.common.serialization.StringDeserializer',
      'value.serializer': 'org.apache.kafka.common.serialization.StringDeserializer',
      'stream.mq.consumer.prop.auto.offset.reset': 'smallest',
      'security.protocol': 'SASL_PLAINTEXT',
      'sasl.jaas.config': `org.apache.kafka.common.security.scram.ScramLoginModule required username="${sandbox.stream.user}" password="***";`,
      'sasl.mechanism': 'SCRAM-SHA-512',
      'stream.mq.decoder.prop.format': 'JSON',
      'stream.mq.decoder.prop.schema.registry.rest.url': sandbox.stream.registryUrl,
    });
    expect(table.ingestionConfig).toEqual({ transformConfigs: [{ columnName: 'time', transformFunction: 'now()' }] });
    expect(table.tenants).toEqual({ broker: 'DefaultTenant', server: 'DefaultTenant' });
    expect(table.metadata).toEqual({ customConfigs: {} });
    // The stored definition carries the real password inside the JAAS line.
    const stored = sandbox.store.tables.get('track')!.definition.tableIndexConfig.streamConfigs['sasl.jaas.config']!;
    expect(parseJaasOptions(stored)).toEqual({ username: sandbox.stream.user, password: sandbox.stream.password });
    expect(result.stdout + result.stderr).not.toContain(sandbox.stream.password);
  });

  it('keys the stream by the stream type, and escapes quotes and backslashes in the password', async () => {
    const password = 'p"a\\s"s w\\"d';
    // The stream's own password has the quotes and backslashes: the pre-flight signs in with it, the store consumes with it.
    const { dpgw, sandbox } = await ready({ streamPassword: password });
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--stream-type', 'kafka'], { DPGW_STREAM_PASSWORD: password });
    expect(result.code, result.stderr).toBe(0);
    const streams = sandbox.store.tables.get('track')!.definition.tableIndexConfig.streamConfigs;
    expect(streams.streamType).toBe('kafka');
    expect(Object.keys(streams).filter((k) => k.startsWith('stream.')).every((k) => k.startsWith('stream.kafka.'))).toBe(true);
    expect(parseJaasOptions(streams['sasl.jaas.config']!)).toEqual({ username: sandbox.stream.user, password });
    expect(streams['sasl.jaas.config']).toBe(`org.apache.kafka.common.security.scram.ScramLoginModule required username="dpgw-stream" password="p\\"a\\\\s\\"s w\\\\\\"d";`);
    expect(result.stderr).toContain('✓ table track is consuming 3 of 3 partitions');
  });

  it('an existing table the same as the request: one line, exit 0, nothing sent (table-create-converge.test.ts has the rest)', async () => {
    const { dpgw, mutations } = await ready();
    expect((await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA])).code).toBe(0);
    const before = mutations().length;
    const again = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA]);
    expect(again.code, again.stderr).toBe(0);
    oneLine(again);
    expect(again.stderr).toBe('✓ table track matches the store; nothing was sent\n');
    expect(mutations().length).toBe(before);
  });

  it("a gateway 400 naming the field is shown to the user, exit 3", async () => {
    const { dpgw } = await ready();
    // Without the stream pre-flight, which would have refused it first (below).
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--topic', 'no-such-topic', '--no-stream-check']);
    expect(result.code).toBe(3);
    oneLine(result);
    expect(result.stderr).toContain("'tableIndexConfig.streamConfigs.stream.mq.topic.name': topic 'no-such-topic' does not exist on the stream");
    expect(result.stderr).toContain('failed with 400 Bad Request');
  });

  it('checks before sending: time column, retention, placeholders, the stream password', async () => {
    const { dpgw, env, mutations } = await ready();
    const before = mutations().length;
    const time = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--time-column', 'alt']);
    expect(time.code).toBe(2);
    expect(time.stderr).toMatch(/realtime-table\.yaml:9:19: segmentsConfig\.timeColumnName: time column "alt" is a metric, not a date-time column of schema track/);
    const retention = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--retention-days', '0']);
    expect(retention.code).toBe(2);
    expect(retention.stderr).toContain('retentionTimeValue must be a positive whole number of days');
    const noPassword = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA], { DPGW_STREAM_PASSWORD: '' });
    expect(noPassword.code).toBe(2);
    expect(noPassword.stderr).toContain('${saslJaasConfig} has no value: it needs the stream password: pass --stream-password, set DPGW_STREAM_PASSWORD');
    const template = join(env.DPGW_CONFIG_DIR!, 'template.yaml');
    writeFileSync(template, 'tableName: ${tableName}\ntableType: REALTIME\nmetadata:\n  owner: ${teamName}\n');
    const unknown = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--template', template]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`${template}:4:10: metadata.owner: \${teamName} is not a placeholder dpgw knows`);
    expect(mutations().length).toBe(before);
  });

  it('table render prints the filled definition with the password masked, sending nothing: YAML as table get prints, JSON with --json', async () => {
    const { dpgw, mutations, sandbox } = await ready();
    const before = mutations().length;
    const result = await dpgw(['table', 'render', '--dataset', 'track', '--schema', SCHEMA]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^tableName: track\n/);
    const table = parseYaml(result.stdout);
    expect(table.tableIndexConfig.streamConfigs['sasl.jaas.config']).toContain('password="***"');
    expect(result.stdout).not.toContain(sandbox.stream.password);
    const json = await dpgw(['table', 'render', '--dataset', 'track', '--schema', SCHEMA, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(table);
    expect(mutations().length).toBe(before);
    const dry = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).not.toContain(sandbox.stream.password);
    expect(mutations().length).toBe(before);
  });
});

describe('finding the data set', () => {
  it('not enabled: names the enable command', async () => {
    const { dpgw } = await setUp();
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA]);
    expect(result.code).toBe(9);
    expect(result.stderr).toBe('dpgw: --dataset: data set "track" is not enabled: the catalog lists no enabled data set of that name — run `dpgw enable --datasource <source> --dataset track --group <group>` first (it waits for the topic)\n');
  });

  it('a misspelt data set: the nearest enabled one, as every name dpgw looks up (#31 §3)', async () => {
    const { dpgw, enableTrack } = await setUp();
    await enableTrack();
    const result = await dpgw(['table', 'create', '--dataset', 'trak', '--schema', SCHEMA]);
    expect(result.code).toBe(9);
    expect(result.stderr).toBe('dpgw: --dataset: data set "trak" is not enabled: the catalog lists no enabled data set of that name — did you mean "track"?\n');
  });

  it('enabled in two enablements: asks for --enablement, and takes it', async () => {
    const { dpgw, enableTrack } = await setUp();
    await enableTrack();
    expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', 'other', '--enablement', 'second'])).code).toBe(0);
    const ambiguous = await dpgw(['storage', 'touch', '--dataset', 'track']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/data set "track" is enabled in 2 enablements — choose one with --enablement: track \([\w-]+\), second \([\w-]+\)/);
    expect((await dpgw(['storage', 'touch', '--dataset', 'track', '--enablement', 'second'])).code).toBe(0);
    // The next command it suggests after a table in that enablement runs as written.
    expect((await dpgw(['schema', 'push', SCHEMA])).code).toBe(0);
    const table = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--enablement', 'second', '--name', 'second_track']);
    const next = /next: (dpgw .*)$/m.exec(table.stderr)?.[1];
    expect(next).toBe('dpgw storage touch --dataset track --enablement second');
    expect((await dpgw(next!.split(' ').slice(1))).code).toBe(0);
  });

  it('no topic label: asks for --topic, and takes it', async () => {
    const { dpgw } = await setUp({ omitTopicLabels: true, topicDelayMs: 0 });
    const enabled = await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP, '--wait-timeout', '1']);
    expect(enabled.code).toBe(1); // enable waits for the label too
    expect((await dpgw(['schema', 'push', SCHEMA])).code).toBe(0);
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('has no topic label (a label whose key ends in /dataset) — pass the topic with --topic <name>');
    expect((await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--topic', 'mock-data-library.track.track'])).code).toBe(0);
  });
});

describe('dpgw storage touch', () => {
  it('before 1.15.165 (from /api/version) GETs the default storage through the self link', async () => {
    const { dpgw, enableTrack, gatewayLog, sandbox } = await setUp();
    await enableTrack();
    const result = await dpgw(['storage', 'touch', '--dataset', 'track']);
    expect(result.code, result.stderr).toBe(0);
    const [listed] = sandbox.catalog.listDataSets('all', 'all');
    const storagePath = `/api/v2/catalog${listed!.links[0]!.href}/storages/${listed!.storage[0]!.id}`;
    expect(gatewayLog().filter((e) => e.path.includes('/storages/')).map((e) => `${e.method} ${e.path}`)).toEqual([`GET ${storagePath}`]);
    expect(gatewayLog().some((e) => e.path === '/api/version')).toBe(true);
  });

  it('from 1.15.165 on makes no call unless --force; unknown version makes it and says why', async () => {
    const { dpgw, enableTrack, gatewayLog } = await setUp();
    await enableTrack();
    const skipped = await dpgw(['storage', 'touch', '--dataset', 'track', '--platform-version', '1.15.165']);
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toContain('storage touch not needed: platform 1.15.165 (--platform-version)');
    expect(gatewayLog().filter((e) => e.path.includes('/storages/'))).toEqual([]);
    expect((await dpgw(['storage', 'touch', '--dataset', 'track', '--platform-version', '1.16.2', '--force'])).code).toBe(0);
    expect(gatewayLog().filter((e) => e.path.includes('/storages/'))).toHaveLength(1);
    const older = await dpgw(['storage', 'touch', '--dataset', 'track', '--platform-version', '1.9.300']);
    expect(older.stderr).toContain('touched the default storage');
  });

  it('an unknown platform version: touches anyway and says why', async () => {
    const { dpgw, enableTrack } = await setUp({ versionEndpoint: false });
    await enableTrack();
    const result = await dpgw(['storage', 'touch', '--dataset', 'track']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('platform version unknown');
    expect(result.stderr).toContain('touched the default storage of track');
  });
});

describe('dpgw health', () => {
  it('prints the tree, passes the record through with --json, exit 0 when UP', async () => {
    const { dpgw, sandbox } = await setUp();
    const tree = await dpgw(['health']);
    expect(tree.code).toBe(0);
    expect(tree.stdout.split('\n')[0]).toBe('platform UP');
    expect(tree.stdout).toContain('├─ mq UP\n│  └─ connection UP');
    expect(tree.stdout).toContain('└─ v2catalog UP\n   ├─ datasources UP\n   └─ openapi UP');
    const json = await dpgw(['health', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(sandbox.health.check());
  });

  it('exit 6 when something is DOWN; one component; an unknown one lists the known', async () => {
    const { dpgw } = await setUp({ down: ['mq.connection'] });
    const whole = await dpgw(['health']);
    expect(whole.code).toBe(6);
    expect(whole.stdout).toContain('├─ mq DOWN');
    const mq = await dpgw(['health', 'mq', '--json']);
    expect(mq.code).toBe(6);
    expect(JSON.parse(mq.stdout)).toEqual({ status: 'DOWN', components: { connection: { status: 'DOWN' } }, groups: ['api', 'liveness', 'readiness'] });
    expect((await dpgw(['health', 'gateway'])).code).toBe(0);
    const unknown = await dpgw(['health', 'kafka']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('dpgw: component: the gateway has no health component "kafka" — known components: gateway, mq, objectstore, dashboarding, v1graphdb, v1audit, v1courier, v1mq, v1lakehouse, v1registry, v1objects, v2catalog\n');
  });

  it('works without a token and sends one when there is one', async () => {
    const { dpgw, gatewayLog } = await setUp();
    expect((await dpgw(['health'], { DPGW_TOKEN: '' })).code).toBe(0);
    expect((await dpgw(['health'])).code).toBe(0);
    expect(gatewayLog().map((e) => e.headers.authorization)).toEqual([undefined, 'Bearer ***']);
  });
});
