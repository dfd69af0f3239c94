/**
 * Why a table has no rows (issue #47 §4) on the real Kafka and Pinot: `dpgw table pause` through
 * the gateway, `table status` saying it is paused with the next step, `dpgw table resume` and the
 * rows produced meanwhile arriving; then messages that are not JSON, which Pinot's decoder drops
 * while its offsets move on, and the diagnosis naming them from a sample of the topic.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Finding } from '../../src/olap/no-rows-diagnosis.js';
import type { TableStatus } from '../../src/olap/table-status.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { feedMessages } from '../../src/sandbox/stream/feed-messages.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminEnv, startBackedGateway } from './backed-platform.js';

const kafka = inject('kafka');
const pinot = inject('pinot');
// Its own enablement, topic and table: the counts here are this file's alone.
const ENABLEMENT = 'track-norows';
const TABLE = 'track_norows';
const TOPIC = `mock-data-library.${ENABLEMENT}.track`;
const MESSAGES = 60;
let sandbox: Sandbox;

type Diagnosed = TableStatus & { code?: string; diagnosis: Finding[]; pause: { paused?: boolean } };

beforeAll(async () => {
  sandbox = await startBackedGateway();
});
afterAll(() => sandbox.close());

async function produce(values: Array<{ key?: string; value: string }>): Promise<void> {
  const { Kafka, logLevel } = kafkajs;
  const producer = new Kafka({ clientId: 'dpgw-e2e-norows', brokers: [kafka.brokerList], sasl: { mechanism: 'scram-sha-512', username: kafka.streamUser, password: kafka.streamPassword }, logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  try {
    await producer.send({ topic: TOPIC, messages: values });
  } finally {
    await producer.disconnect();
  }
}

/** `table status --json` read again every second until `done` holds or `ms` pass: the last exit code and document. */
async function statusUntil(env: NodeJS.ProcessEnv, ms: number, done: (code: number, status: Diagnosed) => boolean): Promise<{ code: number; status: Diagnosed }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const result = await spawnDpgw(['table', 'status', TABLE, '--json'], { env });
    const status = JSON.parse(result.stdout) as Diagnosed;
    if (done(result.code, status) || Date.now() >= deadline) return { code: result.code, status };
    await sleep(1_000);
  }
}

describe(`why a table has no rows, on Kafka ${kafka.version} and Pinot ${pinot.version}`, () => {
  const env = () => ({ ...adminEnv(sandbox.gatewayUrl), DPGW_STREAM_PASSWORD: kafka.streamPassword });

  it('pause through the gateway: status says paused with the next step (exit 6); resume: the rows produced meanwhile arrive (exit 0)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'dpgw-e2e-norows-'));
    writeFileSync(join(folder, 'schema.yaml'), readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8').replace('schemaName: track', `schemaName: ${TABLE}`));
    writeFileSync(join(folder, 'provision.yaml'), `dataSets:\n  - { datasource: mock-data-library, dataset: track, enablement: ${ENABLEMENT}, groups: [track-readers], schema: schema.yaml, table: { name: ${TABLE} } }\n`);
    const provisioned = await spawnDpgw(['provision', join(folder, 'provision.yaml')], { env: env() });
    expect(provisioned.code, provisioned.stderr).toBe(0);
    await produce(feedMessages('track', MESSAGES).map(({ key, value }) => ({ key, value })));
    const consumed = await statusUntil(env(), 120_000, (code, read) => code === 0 && read.rows === MESSAGES);
    expect(consumed.code, JSON.stringify(consumed.status)).toBe(0);

    const refused = await spawnDpgw(['table', 'pause', TABLE], { env: env() });
    expect(refused.code).toBe(2);
    const paused = await spawnDpgw(['table', 'pause', TABLE, '--yes', '--json'], { env: env() });
    expect(paused.code, paused.stderr).toBe(0);
    console.log(`[e2e] Pinot ${pinot.version} pauseConsumption through the gateway: ${paused.stdout}`);
    expect(JSON.parse(paused.stdout)).toMatchObject({ status: 200, response: { pauseFlag: true } });

    const { code, status } = await statusUntil(env(), 60_000, (_, read) => read.diagnosis.some((f) => f.finding === 'paused'));
    console.log(`[e2e] paused: dpgw table status ${TABLE} --json: ${JSON.stringify(status)}`);
    expect(code).toBe(6);
    expect(status.diagnosis.map((f) => f.finding)).toEqual(['paused']);
    const text = await spawnDpgw(['table', 'status', TABLE], { env: env() });
    expect(text.stdout.split('\n').filter((line) => line.startsWith('diagnosis: '))).toEqual([expect.stringMatching(new RegExp(`^diagnosis: consumption of table ${TABLE} is paused \\(the store's pauseStatus: pauseFlag true, .*\\); next: dpgw table resume ${TABLE}$`))]);

    await produce(feedMessages('track', 30).map(({ key, value }) => ({ key, value })));
    const resumed = await spawnDpgw(['table', 'resume', TABLE, '--yes'], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = await statusUntil(env(), 120_000, (exit, read) => exit === 0 && read.rows === MESSAGES + 30);
    console.log(`[e2e] resumed: dpgw table status ${TABLE} --json: ${JSON.stringify(after.status)}`);
    expect(after.code).toBe(0);
    expect(after.status).toMatchObject({ verdict: 'consuming', rows: MESSAGES + 30, diagnosis: [], pause: { paused: false } });
  }, 360_000);

  it("messages that are not JSON: Pinot's offsets pass them, no row comes; the diagnosis names them from a sample of the topic (exit 6)", async () => {
    await produce(Array.from({ length: 6 }, (_, i) => ({ key: `bad-${i}`, value: `not json ${i}` })));
    const { code, status } = await statusUntil(env(), 120_000, (_, read) => read.diagnosis.some((f) => f.finding === 'decoder-drops'));
    console.log(`[e2e] not JSON: dpgw table status ${TABLE} --json: ${JSON.stringify(status)}`);
    expect(code).toBe(6);
    expect(status).toMatchObject({ verdict: 'consuming', code: 'TABLE_ROWS_LOST', rows: MESSAGES + 30 });
    const text = await spawnDpgw(['table', 'status', TABLE], { env: env() });
    expect(text.code).toBe(6);
    expect(text.stdout.split('\n').filter((line) => line.startsWith('diagnosis: '))).toEqual([
      expect.stringMatching(new RegExp(`^diagnosis: the store's decoder drops messages of table ${TABLE} \\(partition \\d: \\d+ messages? passed, \\d+ rows stored.*; \\d of \\d+ sampled messages are not JSON objects \\(${TOPIC.replace(/\./g, '\\.')}/\\d@\\d+: not JSON .*\\); next: have the producers send one JSON object a message`)),
    ]);
  }, 240_000);
});
