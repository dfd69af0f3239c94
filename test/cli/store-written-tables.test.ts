/**
 * Table configs as the analytics store writes them (`GET /tables/x`): turned into a template by
 * `dpgw table template`, provisioned on the sandbox with no further edit; refused, when the store
 * would refuse them, before any schema is stored. The fixtures are written here, the way the
 * store writes a table config (numbers as text, tenants {}, no schemaName, streamConfigMaps).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { objectAt } from '../../src/olap/object-at.js';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchemaBeside } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 20 });

/** Where the store-written track table holds its stream config. */
const MAP = ['ingestionConfig', 'streamIngestionConfig', 'streamConfigMaps', 0] as const;

const STORE_PASSWORD = 'store-config-password';

/** The track table as a current store answers GET /tables/track: its own brokers and credentials, its own writing. */
function storeWrittenTrack(edit: (stream: Record<string, unknown>, table: Record<string, unknown>) => void = () => undefined): unknown {
  const stream: Record<string, unknown> = {
    streamType: 'kafka',
    'stream.kafka.topic.name': 'track-events',
    'stream.kafka.decoder.class.name': 'org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder',
    'stream.kafka.consumer.factory.class.name': 'org.apache.pinot.plugin.stream.kafka20.KafkaConsumerFactory',
    'stream.kafka.broker.list': 'kafka.store.internal:9093',
    'stream.kafka.consumer.prop.auto.offset.reset': 'smallest',
    'security.protocol': 'SASL_SSL',
    'sasl.mechanism': 'PLAIN',
    'sasl.jaas.config': `org.apache.kafka.common.security.plain.PlainLoginModule required username="store" password="${STORE_PASSWORD}";`,
    'ssl.truststore.location': '/etc/store/truststore.jks',
    'stream.kafka.hlc.zk.connect.string': 'localhost:2191/kafka',
    'realtime.segment.flush.threshold.rows': '50000',
  };
  const table: Record<string, unknown> = {
    tableName: 'track_REALTIME',
    tableType: 'REALTIME',
    segmentsConfig: { timeColumnName: 'time', timeType: 'MILLISECONDS', replication: '1', replicasPerPartition: '1', minimizeDataMovement: false },
    tenants: {},
    tableIndexConfig: { loadMode: 'MMAP', invertedIndexColumns: ['objType'], aggregateMetrics: false, nullHandlingEnabled: false },
    metadata: { customConfigs: {} },
    ingestionConfig: { streamIngestionConfig: { streamConfigMaps: [stream] }, transformConfigs: [{ columnName: 'time', transformFunction: 'now()' }] },
    routing: { instanceSelectorType: 'strictReplicaGroup' },
    isDimTable: false,
  };
  edit(stream, table);
  return { REALTIME: table };
}

async function setUp() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const folder = env.DPGW_CONFIG_DIR!;
  trackSchemaBeside(folder);
  const manifest = (template: string) => {
    const file = join(folder, 'provision.yaml');
    writeFileSync(file, `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: track, template: ${template} } }\n`);
    return file;
  };
  const dpgw = (args: string[], extra: NodeJS.ProcessEnv = {}) => spawnDpgw(args, { env: { ...env, ...extra } });
  return { sandbox, env, folder, manifest, dpgw, gatewayPosts: () => sandbox.requestLog.of('gateway').filter((entry) => entry.method === 'POST') };
}

describe('dpgw table template', () => {
  it("runs as its --help example shows, and turns the store's config into a template: connection, names, topic, tenants replaced, the rest kept, no secret printed", async () => {
    const { env, folder } = await setUp();
    writeFileSync(join(folder, 'table-config.json'), JSON.stringify(storeWrittenTrack(), null, 2));
    const result = await spawnDpgw(['table', 'template', 'table-config.json', '-o', 'template.yaml'], { env, cwd: folder });
    expect(result.code, result.stderr).toBe(0);
    const template = parse(readFileSync(join(folder, 'template.yaml'), 'utf8')) as Record<string, unknown>;
    const stream = objectAt(template, ...MAP);
    expect(template.tableName).toBe('${tableName}');
    expect(template.tenants).toEqual({ broker: '${brokerTenant}', server: '${serverTenant}' });
    expect(template.segmentsConfig).toEqual({ timeColumnName: 'time', timeType: 'MILLISECONDS', replication: '1', replicasPerPartition: '1', minimizeDataMovement: false });
    expect(stream).toEqual({
      streamType: '${streamType}',
      'stream.${streamType}.topic.name': '${topic}',
      'stream.${streamType}.decoder.class.name': '${decoderClass}',
      'stream.${streamType}.consumer.factory.class.name': '${consumerFactoryClass}',
      'stream.${streamType}.broker.list': '${brokerList}',
      'stream.${streamType}.consumer.prop.auto.offset.reset': 'smallest',
      'realtime.segment.flush.threshold.rows': '50000',
      'security.protocol': 'SASL_PLAINTEXT',
      'sasl.mechanism': 'SCRAM-SHA-512',
      'sasl.jaas.config': '${saslJaasConfig}',
    });
    expect(template.routing).toEqual({ instanceSelectorType: 'strictReplicaGroup' });
    expect(objectAt(template, 'tableIndexConfig').invertedIndexColumns).toEqual(['objType']);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toEqual(expect.arrayContaining([
      'replaced ingestionConfig.streamIngestionConfig.streamConfigMaps[0].stream.kafka.broker.list: ${brokerList}',
      'replaced ingestionConfig.streamIngestionConfig.streamConfigMaps[0].sasl.mechanism: SCRAM-SHA-512',
      'removed ingestionConfig.streamIngestionConfig.streamConfigMaps[0].ssl.truststore.location',
      'removed ingestionConfig.streamIngestionConfig.streamConfigMaps[0].stream.kafka.hlc.zk.connect.string',
      'added tenants.broker: ${brokerTenant}',
    ]));
    // The summary counts each kind as the lines above name it (an added or removed key is not "replaced").
    const countOf = (kind: string) => lines.filter((line) => line.startsWith(`${kind} `)).length;
    expect(lines).toContain(`✓ template written to template.yaml (keys: ${countOf('replaced')} replaced, ${countOf('added')} added, ${countOf('removed')} removed)`);
    expect(result.stdout + result.stderr).not.toContain(STORE_PASSWORD);
    // --json: the same, the secrets masked.
    const json = await spawnDpgw(['table', 'template', join(folder, 'table-config.json'), '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).replaced).toContainEqual({ field: 'ingestionConfig.streamIngestionConfig.streamConfigMaps[0].sasl.jaas.config', path: ['ingestionConfig', 'streamIngestionConfig', 'streamConfigMaps', 0, 'sasl.jaas.config'], was: '***', now: '${saslJaasConfig}' });
    expect(json.stdout + json.stderr).not.toContain(STORE_PASSWORD);
  });

  it("prints no credential of the config's stream: a registry's user info, a URL's password, a PEM private key (the file keeps them, as the config has them)", async () => {
    const { env, folder } = await setUp();
    const config = join(folder, 'table-config.json');
    writeFileSync(config, JSON.stringify(storeWrittenTrack((stream) => Object.assign(stream, {
      'stream.kafka.decoder.class.name': 'org.apache.pinot.plugin.inputformat.avro.confluent.KafkaConfluentSchemaRegistryAvroMessageDecoder',
      'stream.kafka.decoder.prop.schema.registry.rest.url': 'https://registry-user:url-password-1@registry.store.internal:8081',
      'stream.kafka.decoder.prop.basic.auth.credentials.source': 'USER_INFO',
      'stream.kafka.decoder.prop.basic.auth.user.info': 'registry-user:user-info-password-2',
      'ssl.keystore.key': '-----BEGIN PRIVATE KEY-----private-key-3-----END PRIVATE KEY-----',
    }))));
    const secrets = ['url-password-1', 'user-info-password-2', 'private-key-3'];
    const human = await spawnDpgw(['table', 'template', config], { env });
    const json = await spawnDpgw(['table', 'template', config, '--json'], { env });
    const written = await spawnDpgw(['table', 'template', config, '-o', join(folder, 'tpl.yaml')], { env });
    for (const result of [human, json, written]) {
      expect(result.code, result.stderr).toBe(0);
      for (const secret of secrets) expect(result.stdout + result.stderr).not.toContain(secret);
    }
    expect(human.stdout).toContain('stream.${streamType}.decoder.prop.basic.auth.user.info: "***"');
    expect(JSON.parse(json.stdout).replaced).toContainEqual(expect.objectContaining({ field: 'ingestionConfig.streamIngestionConfig.streamConfigMaps[0].stream.kafka.decoder.prop.schema.registry.rest.url', was: 'https://registry-user:***@registry.store.internal:8081' }));
    expect(readFileSync(join(folder, 'tpl.yaml'), 'utf8')).toContain('registry-user:user-info-password-2');
  });

  it("a config file's name cannot write into the template: a line break in it is escaped in the header comment", async () => {
    const { env, folder } = await setUp();
    const name = 'config\nmetadata: { customConfigs: { injected: "yes" } }\n#.json';
    writeFileSync(join(folder, name), JSON.stringify(storeWrittenTrack()));
    const result = await spawnDpgw(['table', 'template', name, '-o', 'tpl.yaml'], { env, cwd: folder });
    expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(join(folder, 'tpl.yaml'), 'utf8');
    expect(text.split('\n')[0]).toBe('# A dpgw table template from config\\nmetadata: { customConfigs: { injected: "yes" } }\\n#.json (dpgw table template): dpgw fills each ${placeholder} (docs/tables.md).');
    expect((parse(text) as { metadata: unknown }).metadata).toEqual({ customConfigs: {} });
  });

  it("warns when the config sets no auto.offset.reset: the store would start at the topic's latest offset and never read the messages already on it", async () => {
    const { env, folder } = await setUp();
    writeFileSync(join(folder, 'latest.json'), JSON.stringify(storeWrittenTrack((stream) => delete stream['stream.kafka.consumer.prop.auto.offset.reset'])));
    const latest = await spawnDpgw(['table', 'template', 'latest.json', '-o', 'latest.yaml'], { env, cwd: folder });
    expect(latest.code, latest.stderr).toBe(0);
    expect(latest.stderr).toContain("warning: ingestionConfig.streamIngestionConfig.streamConfigMaps[0] sets no auto.offset.reset: the store starts at the topic's latest offset, so the messages already on it are never read; dpgw's own template reads from the earliest (add stream.${streamType}.consumer.prop.auto.offset.reset: smallest)");
    writeFileSync(join(folder, 'earliest.json'), JSON.stringify(storeWrittenTrack()));
    const earliest = await spawnDpgw(['table', 'template', 'earliest.json', '-o', 'earliest.yaml'], { env, cwd: folder });
    expect(earliest.stderr).not.toContain('auto.offset.reset');
  });

  it("a table dpgw made, converted back: one line per key it writes back changed (the registry URL), none for a key it writes back as it was", async () => {
    const { env, folder } = await setUp();
    const dpgwMade = storeWrittenTrack((stream) => {
      Object.assign(stream, { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'SCRAM-SHA-512', 'stream.kafka.decoder.prop.schema.registry.rest.url': 'http://registry.internal:8081' });
      delete stream['ssl.truststore.location'];
    });
    writeFileSync(join(folder, 'made.json'), JSON.stringify(dpgwMade));
    const result = await spawnDpgw(['table', 'template', 'made.json', '-o', 'made.yaml'], { env, cwd: folder });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split('\n').filter((line) => /^(replaced|added|removed) /.test(line));
    expect(lines.filter((line) => line.includes('schema.registry.rest.url'))).toEqual(['replaced ingestionConfig.streamIngestionConfig.streamConfigMaps[0].stream.kafka.decoder.prop.schema.registry.rest.url: ${registryUrl}']);
    expect(lines.some((line) => /security\.protocol|sasl\.mechanism/.test(line))).toBe(false);
  });

  it('refuses an OFFLINE config, and an existing output file without --force', async () => {
    const { dpgw, folder } = await setUp();
    const offline = join(folder, 'offline.json');
    writeFileSync(offline, JSON.stringify({ OFFLINE: { tableName: 'track_OFFLINE', tableType: 'OFFLINE', segmentsConfig: {}, tenants: {}, tableIndexConfig: {} } }));
    const refused = await dpgw(['table', 'template', offline, '-o', join(folder, 'out.yaml')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/offline\.json:1:1: the table config is not a REALTIME table \(tableType: OFFLINE\)/);
    expect(existsSync(join(folder, 'out.yaml'))).toBe(false);

    const config = join(folder, 'table-config.json');
    writeFileSync(config, JSON.stringify(storeWrittenTrack()));
    const output = join(folder, 'template.yaml');
    writeFileSync(output, 'mine\n');
    const existing = await dpgw(['table', 'template', config, '-o', output]);
    expect(existing.code).toBe(2);
    expect(existing.stderr).toContain('--force');
    expect(readFileSync(output, 'utf8')).toBe('mine\n');
    expect((await dpgw(['table', 'template', config, '-o', output, '--force'])).code).toBe(0);
    expect(readFileSync(output, 'utf8')).toContain('${brokerList}');
  });
});

describe('a table config as the store writes it, provisioned', () => {
  it('serves as a template with no edit but the conversion: the store-written table is created on the sandbox, its stream in streamConfigMaps', async () => {
    const { dpgw, folder, manifest, sandbox } = await setUp();
    writeFileSync(join(folder, 'table-config.json'), JSON.stringify(storeWrittenTrack()));
    expect((await dpgw(['table', 'template', join(folder, 'table-config.json'), '-o', join(folder, 'tpl.yaml')])).code).toBe(0);
    // A manifest's own template: its stream connection is dpgw's, in the place it uses, so no --allow-manifest-endpoints is needed.
    const result = await dpgw(['provision', manifest('tpl.yaml')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('no retention (retentionTimeUnit, retentionTimeValue): the store keeps every segment of this table forever');
    const stored = sandbox.store.tables.get('track')!.definition as unknown as Record<string, unknown>;
    const stream = objectAt(stored, ...MAP);
    expect(stream['stream.mq.broker.list']).toBe(sandbox.stream.brokerList);
    expect(stream['sasl.jaas.config']).toContain(`username="${sandbox.stream.user}"`);
    expect(stream['stream.mq.consumer.type']).toBeUndefined();
    expect(objectAt(stored, 'tableIndexConfig').streamConfigs).toBeUndefined();
    expect(stored.routing).toEqual({ instanceSelectorType: 'strictReplicaGroup' });
  });

  it("a manifest's streamConfigMaps may not choose the connection either", async () => {
    const { dpgw, folder, manifest, gatewayPosts } = await setUp();
    writeFileSync(join(folder, 'table-config.json'), JSON.stringify(storeWrittenTrack()));
    expect((await dpgw(['table', 'template', join(folder, 'table-config.json'), '-o', join(folder, 'tpl.yaml')])).code).toBe(0);
    const tpl = join(folder, 'tpl.yaml');
    writeFileSync(tpl, readFileSync(tpl, 'utf8').replace('stream.${streamType}.broker.list: ${brokerList}', 'stream.${streamType}.broker.list: evil.attacker.example:9092'));
    const result = await dpgw(['provision', manifest('tpl.yaml'), '--plan']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/the manifest's template sets stream\.mq\.broker\.list to "evil\.attacker\.example:9092", not the run's .*tpl\.yaml:\d+:\d+: ingestionConfig\.streamIngestionConfig\.streamConfigMaps\[0\]\.stream\.mq\.broker\.list/);
    expect(gatewayPosts()).toEqual([]);
  });

  it('a table the store would refuse is refused before its schema is stored', async () => {
    const { dpgw, folder, manifest, sandbox, gatewayPosts } = await setUp();
    writeFileSync(join(folder, 'table-config.json'), JSON.stringify(storeWrittenTrack()));
    const tpl = join(folder, 'tpl.yaml');
    expect((await dpgw(['table', 'template', join(folder, 'table-config.json'), '-o', tpl])).code).toBe(0);
    const converted = parse(readFileSync(tpl, 'utf8')) as Record<string, unknown>;
    // Each refused by the store at the table's POST: the removed highlevel consumer, two stream maps, the stream in both places.
    const cases: Array<[(template: Record<string, unknown>, maps: Record<string, unknown>[]) => void, string]> = [
      [(_template, maps) => (maps[0]!['stream.${streamType}.consumer.type'] = 'highlevel'), 'the highlevel consumer is no longer supported by the store'],
      [(_template, maps) => maps.push({ ...maps[0] }), 'streamConfigMaps must hold exactly one map of stream configs, not 2 maps'],
      [(template, maps) => (objectAt(template, 'tableIndexConfig').streamConfigs = { ...maps[0] }), 'keep tableIndexConfig.streamConfigs or ingestionConfig.streamIngestionConfig.streamConfigMaps, not both'],
    ];
    for (const [edit, message] of cases) {
      const template = structuredClone(converted);
      edit(template, objectAt(template, 'ingestionConfig', 'streamIngestionConfig').streamConfigMaps as Record<string, unknown>[]);
      writeFileSync(tpl, stringify(template));
      for (const args of [['--plan'], []]) {
        const result = await dpgw(['provision', manifest('tpl.yaml'), ...args, '--allow-manifest-endpoints']);
        expect(result.code, message).toBe(2);
        expect(result.stderr).toContain(message);
      }
    }
    expect(sandbox.store.schemas.size).toBe(0);
    expect(gatewayPosts()).toEqual([]);
  });
  it("the config of a manifest's table makes no table of that manifest: its mark is dropped where no manifest builds the table (table render and create)", async () => {
    const { dpgw, folder } = await setUp();
    // A table a named manifest made, as GET /tables/track answers it: its mark converts with the rest.
    writeFileSync(join(folder, 'table-config.json'), JSON.stringify(storeWrittenTrack((_stream, table) => (table.metadata = { customConfigs: { 'dpgw.manifest': 'team-a', 'dpgw.manifest.named': 'true', owner: 'kept' } }))));
    expect((await dpgw(['table', 'template', join(folder, 'table-config.json'), '-o', join(folder, 'tpl.yaml')])).code).toBe(0);
    const rendered = await dpgw(['table', 'render', '--dataset', 'track', '--topic', 'mock-data-library.track.track', '--schema', join(folder, 'track-schema.yaml'), '--template', join(folder, 'tpl.yaml'), '--json']);
    expect(rendered.code, rendered.stderr).toBe(0);
    expect(JSON.parse(rendered.stdout).metadata).toEqual({ customConfigs: { owner: 'kept' } });
  });
});

describe('dpgw table render with a store-written template', () => {
  it('needs no registry URL for a JSON decoder, nor a consumer type (warned), and fills the map of streamConfigMaps', async () => {
    const { dpgw, folder } = await setUp();
    writeFileSync(join(folder, 'table-config.json'), JSON.stringify(storeWrittenTrack()));
    expect((await dpgw(['table', 'template', join(folder, 'table-config.json'), '-o', join(folder, 'tpl.yaml')])).code).toBe(0);
    const rendered = await dpgw(['table', 'render', '--dataset', 'track', '--topic', 'mock-data-library.track.track', '--schema', join(folder, 'track-schema.yaml'), '--template', join(folder, 'tpl.yaml'), '--json'], { DPGW_REGISTRY_URL: '' });
    expect(rendered.code, rendered.stderr).toBe(0);
    expect(rendered.stderr).toContain('no stream.mq.consumer.type: current stores need none');
    const table = JSON.parse(rendered.stdout);
    expect(objectAt(table, ...MAP)['stream.mq.topic.name']).toMatch(/track/);
    // The default template, without a registry URL: the key is left out, not refused.
    const defaults = await dpgw(['table', 'render', '--dataset', 'track', '--topic', 'mock-data-library.track.track', '--schema', join(folder, 'track-schema.yaml'), '--json'], { DPGW_REGISTRY_URL: '' });
    expect(defaults.code, defaults.stderr).toBe(0);
    expect(Object.keys(objectAt(JSON.parse(defaults.stdout), 'tableIndexConfig', 'streamConfigs')).some((key) => key.includes('schema.registry'))).toBe(false);
  });

  it('table create with a schema file the store does not hold yet: refused with the push command, after the checks that may still change the schema; a --sample-ignore typo refused even with --dry-run', async () => {
    const { dpgw, folder, gatewayPosts } = await setUp();
    const schema = join(folder, 'track-schema.yaml');
    expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
    const before = gatewayPosts().length;
    const unpushed = await dpgw(['table', 'create', '--dataset', 'track', '--schema', schema]);
    expect(unpushed.code, unpushed.stderr).toBe(9);
    expect(unpushed.stderr).toMatch(/\ndpgw: http:.*\/olap\/schemas\/track: the store holds no schema track: the table would be refused — /);
    expect(unpushed.stderr).toContain(`push it first: dpgw schema push ${schema}; nothing was sent`);

    for (const args of [['--dry-run'], []]) {
      const typo = await dpgw(['table', 'create', '--dataset', 'track', '--schema', schema, '--sample-ignore', 'Time', ...args]);
      expect(typo.code, typo.stderr).toBe(2);
      expect(typo.stderr).toContain('schema track has no column Time to pass unjudged');
    }
    expect(gatewayPosts().length).toBe(before);
  });
});
