/**
 * `dpgw table status` with the real Kafka and Pinot behind the gateway: a table Pinot consumes,
 * its per-partition offsets (Pinot's consuming segments), the topic's latest offsets (Kafka's
 * ListOffsets) and the lag between them, the rows Pinot counts, and the segment states and
 * errors of Pinot's external view and debug view, each read passed on by the gateway.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { feedMessages } from '../../src/sandbox/stream/feed-messages.js';
import type { TableStatus } from '../../src/olap/table-status.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminEnv, startBackedGateway } from './backed-platform.js';

const kafka = inject('kafka');
const pinot = inject('pinot');
// Its own enablement, so its own topic and table: the counts here are this file's alone, whichever e2e file runs first.
const ENABLEMENT = 'track-status';
const TABLE = 'track_status';
const TOPIC = `mock-data-library.${ENABLEMENT}.track`;
const MESSAGES = 150;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startBackedGateway();
});
afterAll(() => sandbox.close());

/** `table status --json` read again every second until `done` holds or `ms` pass (Pinot's offsets move as its servers commit reads): the last exit code and document. */
async function statusUntil(env: NodeJS.ProcessEnv, ms: number, done: (code: number, status: TableStatus) => boolean): Promise<{ code: number; status: TableStatus }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const result = await spawnDpgw(['table', 'status', TABLE, '--json'], { env });
    const status = JSON.parse(result.stdout) as TableStatus;
    if (done(result.code, status) || Date.now() >= deadline) return { code: result.code, status };
    await sleep(1_000);
  }
}

async function pinotCount(table: string): Promise<number> {
  const response = await fetch(`${pinot.broker}/query/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: `SELECT COUNT(*) FROM ${table}` }) });
  const body = (await response.json()) as { resultTable?: { rows: unknown[][] } };
  return Number(body.resultTable?.rows[0]?.[0] ?? 0);
}

describe(`dpgw table status on Kafka ${kafka.version} and Pinot ${pinot.version}`, () => {
  it('a consuming table: every partition CONSUMING with the offset Pinot reached, the latest offset Kafka holds and the lag; the rows Pinot counts; exit 0', async () => {
    const env = { ...adminEnv(sandbox.gatewayUrl), DPGW_STREAM_PASSWORD: kafka.streamPassword };
    const folder = mkdtempSync(join(tmpdir(), 'dpgw-e2e-status-'));
    writeFileSync(join(folder, 'schema.yaml'), readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8').replace('schemaName: track', `schemaName: ${TABLE}`));
    writeFileSync(join(folder, 'provision.yaml'), `dataSets:\n  - { datasource: mock-data-library, dataset: track, enablement: ${ENABLEMENT}, groups: [track-readers], schema: schema.yaml, table: { name: ${TABLE} } }\n`);
    const provisioned = await spawnDpgw(['provision', join(folder, 'provision.yaml')], { env });
    expect(provisioned.code, provisioned.stderr).toBe(0);

    const { Kafka, logLevel } = kafkajs;
    const producer = new Kafka({ clientId: 'dpgw-e2e-status', brokers: [kafka.brokerList], sasl: { mechanism: 'scram-sha-512', username: kafka.streamUser, password: kafka.streamPassword }, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    try {
      await producer.send({ topic: TOPIC, messages: feedMessages('track', MESSAGES).map(({ key, value }) => ({ key, value })) });
    } finally {
      await producer.disconnect();
    }
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && (await pinotCount(TABLE)) < MESSAGES) await sleep(1_000);
    expect(await pinotCount(TABLE)).toBe(MESSAGES);

    // What Pinot's controller itself answers, for docs/tables.md.
    for (const path of [`tables/${TABLE}/consumingSegmentsInfo`, `tables/${TABLE}/externalview`, `tables/${TABLE}/metadata`, `debug/tables/${TABLE}`]) {
      console.log(`[e2e] Pinot ${pinot.version} GET /${path}: ${JSON.stringify(await (await fetch(`${pinot.controller}/${path}`)).json())}`);
    }
    const counted = await fetch(`${pinot.broker}/query/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: `SELECT $segmentName, COUNT(*) FROM "${TABLE}" GROUP BY $segmentName LIMIT 100000` }) });
    console.log(`[e2e] Pinot ${pinot.version} broker, rows per segment: ${JSON.stringify(await counted.json())}`);
    // Pinot 0.11's controller does not count a consuming segment's rows: its table metadata says 0.
    expect(((await (await fetch(`${pinot.controller}/tables/${TABLE}/metadata`)).json()) as { numRows: number }).numRows).toBe(0);

    // Pinot's consuming segment offsets move as the servers commit their reads: read until they have caught up.
    const { code, status } = await statusUntil(env, 60_000, (_, read) => read.partitions.every((p) => p.lag === '0'));
    console.log(`[e2e] dpgw table status ${TABLE} --json: ${JSON.stringify(status)}`);
    expect(code).toBe(0);
    expect(status).toMatchObject({ verdict: 'consuming', topic: TOPIC, rows: MESSAGES, unknown: [], tableErrors: [] });
    expect(status.partitions.map((p) => [p.partition, p.consuming, p.state, p.errors])).toEqual([0, 1, 2].map((partition) => [partition, true, 'CONSUMING', []]));
    // Every message became a row of its partition: the rows the broker counts are the offsets reached.
    expect(status.partitions.map((p) => String(p.rows))).toEqual(status.partitions.map((p) => p.offset));
    // Every message is in one partition: the offsets reached add up to what was produced, and Kafka's latest offsets agree.
    expect(status.partitions.reduce((sum, p) => sum + Number(p.offset), 0)).toBe(MESSAGES);
    expect(status.partitions.map((p) => p.latestOffset)).toEqual(status.partitions.map((p) => p.offset));
    expect(status.partitions.map((p) => p.lag)).toEqual(['0', '0', '0']);

    // The same as a person reads it.
    const text = await spawnDpgw(['table', 'status', TABLE], { env });
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`table ${TABLE}, topic ${TOPIC}: consuming 3 of 3 partitions; ${MESSAGES} rows stored`);
    expect(lines.slice(2).map((line) => line.split(/ +/).slice(0, 3))).toEqual([0, 1, 2].map((partition) => [String(partition), 'yes', 'CONSUMING']));
  }, 240_000);

  it("consumption paused in Pinot (its controller's pauseConsumption): no partition consumes, exit 6, the rows of the completed segments and Kafka's latest offsets still shown; resumed, exit 0 with lag 0", async () => {
    const env = { ...adminEnv(sandbox.gatewayUrl), DPGW_STREAM_PASSWORD: kafka.streamPassword };
    const pause = await fetch(`${pinot.controller}/tables/${TABLE}/pauseConsumption`, { method: 'POST' });
    expect(pause.status, await pause.text()).toBe(200);
    // Pinot commits the consuming segments and makes no new ones: wait until none is left.
    const paused = Date.now() + 60_000;
    let pauseStatus: { pauseFlag?: boolean; consumingSegments?: string[] } = {};
    while (Date.now() < paused) {
      pauseStatus = (await (await fetch(`${pinot.controller}/tables/${TABLE}/pauseStatus`)).json()) as typeof pauseStatus;
      const view = (await (await fetch(`${pinot.controller}/tables/${TABLE}/externalview`)).json()) as { REALTIME: Record<string, Record<string, string>> };
      if (pauseStatus.pauseFlag && (pauseStatus.consumingSegments ?? []).length === 0 && Object.values(view.REALTIME).every((servers) => !Object.values(servers).includes('CONSUMING'))) break;
      await sleep(1_000);
    }
    console.log(`[e2e] Pinot ${pinot.version} pauseStatus: ${JSON.stringify(pauseStatus)}`);
    const { Kafka, logLevel } = kafkajs;
    const producer = new Kafka({ clientId: 'dpgw-e2e-status', brokers: [kafka.brokerList], sasl: { mechanism: 'scram-sha-512', username: kafka.streamUser, password: kafka.streamPassword }, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    try {
      await producer.send({ topic: TOPIC, messages: feedMessages('track', 30).map(({ key, value }) => ({ key, value })) });
    } finally {
      await producer.disconnect();
    }

    const stopped = await spawnDpgw(['table', 'status', TABLE, '--json'], { env });
    console.log(`[e2e] paused: dpgw table status ${TABLE} --json: ${stopped.stdout}`);
    expect(stopped.code, stopped.stderr).toBe(6);
    const status = JSON.parse(stopped.stdout) as TableStatus & { code: string };
    expect(status).toMatchObject({ verdict: 'not-consuming', code: 'TABLE_NOT_CONSUMING', rows: MESSAGES });
    expect(status.partitions.map((p) => [p.partition, p.consuming, p.state])).toEqual([0, 1, 2].map((partition) => [partition, false, 'ONLINE']));
    expect(status.partitions.reduce((sum, p) => sum + Number(p.latestOffset), 0)).toBe(MESSAGES + 30);
    const text = await spawnDpgw(['table', 'status', TABLE], { env });
    expect(text.stdout.split('\n')[0]).toBe(`table ${TABLE}, topic ${TOPIC}: consuming 0 of 3 partitions; ${MESSAGES} rows stored`);

    const resume = await fetch(`${pinot.controller}/tables/${TABLE}/resumeConsumption`, { method: 'POST' });
    expect(resume.status, await resume.text()).toBe(200);
    const { code: resumedCode, status: resumed } = await statusUntil(env, 90_000, (exit, read) => exit === 0 && read.rows === MESSAGES + 30 && read.partitions.every((p) => p.lag === '0'));
    console.log(`[e2e] resumed: dpgw table status ${TABLE} --json: ${JSON.stringify(resumed)}`);
    expect(resumedCode).toBe(0);
    expect(resumed).toMatchObject({ verdict: 'consuming', rows: MESSAGES + 30 });
    expect(resumed.partitions.map((p) => [p.consuming, p.state, p.lag])).toEqual([0, 1, 2].map(() => [true, 'CONSUMING', '0']));
    // The newest segment of each partition is the second: the first was committed at the pause.
    expect(resumed.partitions.every((p) => new RegExp(`^${TABLE}__\\d__1__`).test(p.segment ?? ''))).toBe(true);
  }, 240_000);

  it('an unknown table is exit 9 on the real Pinot too', async () => {
    const result = await spawnDpgw(['table', 'status', 'nothing_here'], { env: adminEnv(sandbox.gatewayUrl) });
    expect(result.code).toBe(9);
  });
});
