/** `dpgw schema infer` as a data engineer runs it: messages in, the schema `schema push` reads out. */
import { createWriteStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, TRACK_GROUP, type Sandbox } from '../../src/sandbox/sandbox.js';
import { cleanEnv, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { tokenFor } from '../helpers/sandbox-http.js';

const work = mkdtempSync(join(tmpdir(), 'dpgw-infer-'));
const file = (name: string, content: string | Buffer) => {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
};

/** Track messages as a feed sends them: the contract's columns, enumerations, a nested __security__ object. */
function trackMessages(count: number): string {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      origin: ['THIRD_PARTY', 'SENSOR'][i % 2],
      dataMode: ['REAL', 'TEST', 'EXERCISE'][i % 3],
      objType: ['VESSEL', 'AIRCRAFT'][i % 2],
      id: `trk-${i}`,
      createdBy: 'feed',
      classificationMarking: 'U',
      objIdent: ['FRIEND', 'NEUTRAL', 'UNKNOWN'][i % 3],
      origNetwork: 'OPS',
      trkId: `T${1000 + i}`,
      asset: 7 + (i % 5),
      __security__: { releasability: ['NATO'], owner: { org: 'x' } },
      alt: 100.5 + i,
      lon: 4.25 + i / 1000,
      lat: 52.125 + i / 1000,
      time: now - i * 1000,
    }),
  ).join('\n');
}

const byGroup = (schema: Record<string, unknown>) =>
  Object.fromEntries(['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs'].map((group) => [group, ((schema[group] as Array<Record<string, unknown>>) ?? []).map((spec) => `${String(spec.name)}:${String(spec.dataType)}`).sort()]));

describe('dpgw schema infer', () => {
  it('the examples of README and docs/schema-infer.md, as written: the shipped track messages give the contract\'s schema', async () => {
    const output = join(work, 'track.yaml');
    const inferred = await spawnDpgw(['schema', 'infer', 'examples/track/track-messages.jsonl', '--name', 'track', '-o', output]);
    expect(inferred.code, inferred.stderr).toBe(0);
    const contract = load(readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8')) as Record<string, unknown>;
    expect(byGroup(load(readFileSync(output, 'utf8')) as Record<string, unknown>)).toEqual(byGroup(contract));
    const checked = await spawnDpgw(['schema', 'infer', 'examples/track/track-messages.jsonl', '--check', 'examples/track/schema.yaml']);
    expect([checked.code, checked.stdout + checked.stderr]).toEqual([0, expect.stringContaining('200 messages fit examples/track/schema.yaml')]);
  });

  it("infers exactly the contract's track schema from track messages, and schema validate accepts it", async () => {
    const messages = file('track.jsonl', trackMessages(300));
    const output = join(work, 'track-schema.yaml');
    const result = await spawnDpgw(['schema', 'infer', messages, '--name', 'track', '-o', output]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/column time holds epoch milliseconds \(\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d\): the date-time column, 1:MILLISECONDS:EPOCH/);
    const inferred = load(readFileSync(output, 'utf8')) as Record<string, unknown>;
    const contract = load(readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8')) as Record<string, unknown>;
    expect(byGroup(inferred)).toEqual(byGroup(contract));
    expect(inferred.dateTimeFieldSpecs).toEqual(contract.dateTimeFieldSpecs);
    expect(readFileSync(output, 'utf8')).toMatch(/^# Inferred by `dpgw schema infer` from 300 messages of track\.jsonl\./);
    expect((await spawnDpgw(['schema', 'validate', output])).code).toBe(0);
  });

  it('reads stdin, widens mixed columns with a warning naming a sample line, reports nulls and absent columns, adds the time column the template fills', async () => {
    const lines = ['{"a": 1, "b": "x", "n": null, "flag": true}', '{"a": 2.5, "b": 3, "n": null}', '{"a": 3, "b": "y", "n": null}'].join('\n');
    const result = await spawnDpgw(['schema', 'infer', '--json'], { input: lines });
    expect(result.code, result.stderr).toBe(0);
    const { schema, messages } = JSON.parse(result.stdout);
    expect(messages).toBe(3);
    expect(byGroup(schema)).toEqual({ dimensionFieldSpecs: ['b:STRING', 'flag:BOOLEAN', 'n:STRING'], metricFieldSpecs: ['a:DOUBLE'], dateTimeFieldSpecs: ['time:LONG'] });
    expect(result.stderr).toMatch(/column b mixes types \(string at stdin:1, int at stdin:2\): widened to STRING/);
    expect(result.stderr).toContain('column n is null in every message');
    expect(result.stderr).toContain('column flag is in 1 of 3 messages (33 %)');
    expect(result.stderr).toContain('added time, which the table template fills with now()');
  });

  it('types as the store reads them: lists multi-value, true/false BOOLEAN, 1500.00 DOUBLE, day numbers and ISO dates as time columns', async () => {
    const messages = file(
      'flights.jsonl',
      [
        '{"flight": 1, "airports": ["JFK", "LAX"], "cancelled": false, "price": 1500.00, "DaysSinceEpoch": 16071, "departed": "2014-01-01T09:14:00Z"}',
        '{"flight": 2, "airports": ["SEA"], "cancelled": true, "price": 99.00, "DaysSinceEpoch": 16072, "departed": "2014-01-02T10:02:00Z"}',
      ].join('\n'),
    );
    const output = join(work, 'flights.yaml');
    const result = await spawnDpgw(['schema', 'infer', messages, '--name', 'flights', '-o', output]);
    expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(output, 'utf8');
    expect(text).toContain('  - { name: airports, dataType: STRING, singleValueField: false }');
    expect(text).toContain('  - { name: cancelled, dataType: BOOLEAN }');
    expect(text).toContain('metricFieldSpecs:\n  - { name: price, dataType: DOUBLE }');
    expect(text).toContain('  - name: DaysSinceEpoch\n    dataType: INT\n    notNull: false\n    format: "1:DAYS:EPOCH"\n    granularity: "1:DAYS"');
    expect(result.stderr).toContain('columns DaysSinceEpoch, departed all hold times; DaysSinceEpoch, which holds epoch days (2014-01-01 to 2014-01-02), is the date-time column, 1:DAYS:EPOCH (choose with --time-column)');
    expect((await spawnDpgw(['schema', 'validate', output])).code).toBe(0);

    const iso = await spawnDpgw(['schema', 'infer', messages, '--name', 'flights', '--time-column', 'departed']);
    expect(iso.code, iso.stderr).toBe(0);
    expect(iso.stdout).toContain(`  - name: departed\n    dataType: STRING\n    notNull: false\n    format: "1:SECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd'T'HH:mm:ss'Z'"\n    granularity: "1:SECONDS"`);
    expect(iso.stdout).toContain('  - { name: DaysSinceEpoch, dataType: INT }');
    expect(iso.stderr).toContain("column departed holds dates as text (yyyy-MM-dd'T'HH:mm:ss'Z') (2014-01-01 to 2014-01-02): the date-time column");
  });

  it('skips malformed lines with their file:line, never crashes, and refuses input with no message', async () => {
    const good = '{"id": "a", "speed": 1.5}';
    const mixed = file('mixed.jsonl', Buffer.concat([Buffer.from('\uFEFF' + good + '\n{"id": "b", "spe\n'), Buffer.from([0x00, 0xff, 0xfe, 0x0a]), Buffer.from('[1, 2]\n42\n\n' + good + '\n')]));
    const result = await spawnDpgw(['schema', 'infer', mixed, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).messages).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`${mixed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: skipped: not JSON`));
    expect(result.stderr).toMatch(/mixed\.jsonl:3: skipped: not JSON/);
    expect(result.stderr).toMatch(/mixed\.jsonl:4: skipped: a JSON array, not an object/);
    expect(result.stderr).toMatch(/mixed\.jsonl:5: skipped: a JSON number, not an object/);

    const empty = await spawnDpgw(['schema', 'infer', file('empty.jsonl', '')]);
    expect(empty.code).toBe(2);
    expect(empty.stderr.trim().split('\n')).toHaveLength(1);
    expect(empty.stderr).toMatch(/no JSON object messages in .*empty\.jsonl/);
    const missing = await spawnDpgw(['schema', 'infer', join(work, 'nope.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*nope\.jsonl: no such file/);
  });

  it('streams a 50 MB file of messages', async () => {
    const big = join(work, 'big.jsonl');
    const out = createWriteStream(big);
    const line = JSON.stringify({ id: 'x'.repeat(100), value: 1.5, count: 3, time: Date.now() }) + '\n';
    for (let written = 0; written < 50 * 1024 * 1024; written += line.length) if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    await new Promise<void>((resolve) => out.end(() => resolve()));
    const result = await spawnDpgw(['schema', 'infer', big, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { schema, messages } = JSON.parse(result.stdout);
    expect(messages).toBeGreaterThan(300_000);
    expect(byGroup(schema)).toEqual({ dimensionFieldSpecs: ['count:INT', 'id:STRING'], metricFieldSpecs: ['value:DOUBLE'], dateTimeFieldSpecs: ['time:LONG'] });
  });

  it('--check lists every missing, extra and mistyped column and exits 2; messages that fit exit 0', async () => {
    const schema = join(ROOT, 'examples/track/schema.yaml');
    const fitting = await spawnDpgw(['schema', 'infer', file('fit.jsonl', trackMessages(20)), '--check', schema]);
    expect(fitting.code, fitting.stderr).toBe(0);
    expect(fitting.stdout).toContain('20 messages fit');
    const drifted = trackMessages(5)
      .split('\n')
      .map((line) => {
        const message = JSON.parse(line);
        delete message.trkId;
        message.asset = 'A-7';
        message.heading = 90.5;
        return JSON.stringify(message);
      })
      .join('\n');
    const result = await spawnDpgw(['schema', 'infer', file('drift.jsonl', drifted), '--check', schema]);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^missing: .*declares trkId \(STRING\); no message has it$/m);
    expect(result.stdout).toMatch(/^type: .*declares asset INT; the messages make it STRING$/m);
    expect(result.stdout).toMatch(/^extra: the messages have heading \(DOUBLE\)/m);
  });

  it('a --time-column or --metric the messages lack is a usage error', async () => {
    const messages = file('small.jsonl', '{"a": 1, "b": "x"}\n');
    const time = await spawnDpgw(['schema', 'infer', messages, '--time-column', 'ts']);
    expect(time.code).toBe(2);
    expect(time.stderr).toMatch(/--time-column: ts: no such column in the messages \(they have a, b\)/);
    const metric = await spawnDpgw(['schema', 'infer', messages, '--metric', 'b']);
    expect(metric.code).toBe(2);
    expect(metric.stderr).toMatch(/--metric: b: a metric must be numeric/);
  });
});

/** A port on 127.0.0.1 nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Reading a real topic is in the end-to-end tier (test/e2e/backed-gateway.test.ts, real Kafka).
describe('dpgw schema infer --dataset: what goes wrong before and around the stream', () => {
  let sandbox: Sandbox | undefined;
  afterAll(() => sandbox?.close());

  it('finds the topic in the catalog; flags are checked before any connection; unreachable brokers are one line with exit 5', async () => {
    sandbox = await startSandbox({ topicDelayMs: 0 });
    const broker = `127.0.0.1:${await closedPort()}`;
    const env = cleanEnv({ DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_TOKEN: await tokenFor(sandbox, 'admin'), DPGW_BROKER_LIST: broker, DPGW_STREAM_USER: sandbox.stream.user, DPGW_STREAM_PASSWORD: sandbox.stream.password });
    const dpgw = (args: string[], extra: NodeJS.ProcessEnv = {}) => spawnDpgw(['schema', 'infer', ...args], { env: { ...env, ...extra } });

    const notEnabled = await dpgw(['--dataset', 'track']);
    expect(notEnabled.code).toBe(9);
    expect(notEnabled.stderr).toMatch(/--dataset: data set "track" is not enabled.*dpgw enable --datasource <source> --dataset track/);
    const enabled = await spawnDpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP, '--json'], { env });
    expect(enabled.code, enabled.stderr).toBe(0);
    const topic = JSON.parse(enabled.stdout).topic as string;

    const unreachable = await dpgw(['--dataset', 'track', '--timeout', '5', '--verbose']);
    expect(unreachable.code).toBe(5);
    expect(unreachable.stderr).toContain(`reading messages of topic ${topic}`);
    expect(unreachable.stderr).toContain(`stream: metadata of ${topic} from ${broker} as ${sandbox.stream.user} (SASL SCRAM-SHA-512)`);
    expect(unreachable.stderr).toMatch(new RegExp(`dpgw: ${broker}: cannot read from the brokers: Connection to ${broker} failed — check --broker-list`));
    expect(unreachable.stderr.split('\n').filter((l) => l.startsWith('dpgw:'))).toHaveLength(1);
    expect(unreachable.stderr + unreachable.stdout).not.toContain(sandbox.stream.password);

    // Brokers that take the connection and never answer: the --timeout bound holds with exit 5, whichever step it stops.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const silentBroker = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const hung = await dpgw(['--dataset', 'track', '--timeout', '1'], { DPGW_BROKER_LIST: silentBroker });
      expect([hung.code, hung.stderr.trimEnd()]).toEqual([5, expect.stringMatching(new RegExp(`\\ndpgw: ${silentBroker}: reading topic ${topic} took longer than 1 s \\(connecting\\) — check the broker list`))]);
    } finally {
      silent.close();
    }

    // Usage errors: exit 2, nothing read.
    const both = await dpgw([file('one.jsonl', '{"a":1}\n'), '--dataset', 'track']);
    expect([both.code, both.stderr]).toEqual([2, expect.stringMatching(/give messages files or --dataset, not both/)]);
    const badBroker = await dpgw(['--topic', topic], { DPGW_BROKER_LIST: 'kafka-0' });
    expect([badBroker.code, badBroker.stderr]).toEqual([2, expect.stringMatching(/DPGW_BROKER_LIST: broker "kafka-0" is not host:port/)]);
    const noBroker = await dpgw(['--topic', topic], { DPGW_BROKER_LIST: '' });
    expect([noBroker.code, noBroker.stderr]).toEqual([2, expect.stringMatching(/brokerList: no stream bootstrap address.*--broker-list/)]);
    const noPassword = await dpgw(['--topic', topic, '--no-input'], { DPGW_STREAM_PASSWORD: '' });
    expect([noPassword.code, noPassword.stderr]).toEqual([2, expect.stringMatching(/stream user dpgw-stream needs the stream password.*DPGW_STREAM_PASSWORD/)]);
    const badSample = await dpgw(['--topic', topic, '--sample', '0']);
    expect([badSample.code, badSample.stderr]).toEqual([2, expect.stringMatching(/--sample: "0" is not a number of messages/)]);
  }, 30_000);
});
