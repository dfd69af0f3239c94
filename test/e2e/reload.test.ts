/**
 * Issue #47 §1 on the real Kafka and Pinot behind the gateway: a table that holds rows gains a
 * column with a default; `provision --force-commit` reloads its segments through the gateway
 * (Pinot's reload job, followed to the end) and commits its consuming segments; the messages
 * produced after carry the column. A query of Pinot's broker then returns the default for the
 * rows stored before and the values for the rows after, with no error.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { feedMessages } from '../../src/sandbox/stream/feed-messages.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminEnv, startBackedGateway } from './backed-platform.js';

const kafka = inject('kafka');
const pinot = inject('pinot');
// Its own enablement, topic and table: the counts here are this file's alone.
const ENABLEMENT = 'track-reload';
const TABLE = 'track_reload';
const TOPIC = `mock-data-library.${ENABLEMENT}.track`;
const BEFORE = 120;
const AFTER = 45;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startBackedGateway();
});
afterAll(() => sandbox.close());

async function produce(count: number, extra: Record<string, unknown> = {}): Promise<void> {
  const { Kafka, logLevel } = kafkajs;
  const producer = new Kafka({ clientId: 'dpgw-e2e-reload', brokers: [kafka.brokerList], sasl: { mechanism: 'scram-sha-512', username: kafka.streamUser, password: kafka.streamPassword }, logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  try {
    await producer.send({ topic: TOPIC, messages: feedMessages('track', count).map(({ key, value }) => ({ key, value: JSON.stringify({ ...JSON.parse(value), ...extra }) })) });
  } finally {
    await producer.disconnect();
  }
}

async function broker(sql: string): Promise<{ resultTable?: { rows: unknown[][] }; exceptions?: unknown[] }> {
  const response = await fetch(`${pinot.broker}/query/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql }) });
  return (await response.json()) as { resultTable?: { rows: unknown[][] }; exceptions?: unknown[] };
}

async function countUntil(rows: number): Promise<number> {
  const count = async () => Number((await broker(`SELECT COUNT(*) FROM ${TABLE}`)).resultTable?.rows[0]?.[0] ?? 0);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && (await count()) < rows) await sleep(1_000);
  return count();
}

describe(`a column added to a table that holds rows, on Kafka ${kafka.version} and Pinot ${pinot.version}`, () => {
  it('provision --force-commit reloads and commits; the old rows show the default, the new ones their values, with no error', async () => {
    const env = { ...adminEnv(sandbox.gatewayUrl), DPGW_STREAM_PASSWORD: kafka.streamPassword };
    const folder = mkdtempSync(join(tmpdir(), 'dpgw-e2e-reload-'));
    const schema = readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8').replace('schemaName: track', `schemaName: ${TABLE}`);
    writeFileSync(join(folder, 'schema.yaml'), schema);
    writeFileSync(join(folder, 'provision.yaml'), `dataSets:\n  - { datasource: mock-data-library, dataset: track, enablement: ${ENABLEMENT}, groups: [track-readers], schema: schema.yaml, table: { name: ${TABLE} } }\n`);
    const created = await spawnDpgw(['provision', join(folder, 'provision.yaml')], { env });
    expect(created.code, created.stderr).toBe(0);
    await produce(BEFORE);
    expect(await countUntil(BEFORE)).toBe(BEFORE);

    // The column, with a default; the producers do not send it yet (the sample check is told so).
    writeFileSync(join(folder, 'schema.yaml'), schema.replace('metricFieldSpecs:\n', 'metricFieldSpecs:\n  - { name: speed, dataType: DOUBLE, defaultNullValue: -1 }\n'));
    const planned = await spawnDpgw(['provision', join(folder, 'provision.yaml'), '--plan', '--sample-ignore', 'speed', '--force-commit', '--json'], { env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(JSON.parse(planned.stdout).plan[0].steps.find((s: { step: string }) => s.step === 'reload')).toMatchObject({ action: 'update', requests: [{ method: 'POST', path: `/api/internal/olap/segments/${TABLE}/reload?type=REALTIME` }, { method: 'POST', path: `/api/internal/olap/tables/${TABLE}/forceCommit` }] });

    const started = Date.now();
    const run = await spawnDpgw(['provision', join(folder, 'provision.yaml'), '--sample-ignore', 'speed', '--force-commit', '--json'], { env });
    expect(run.code, run.stderr).toBe(0);
    const reload = JSON.parse(run.stdout).dataSets[0].steps.find((s: { step: string }) => s.step === 'reload');
    console.log(`[e2e] reload step after ${Date.now() - started} ms: ${JSON.stringify(reload)}`);
    for (const entry of sandbox.requestLog.of('gateway').filter((e) => /segments|forceCommit|consumingSegmentsInfo/.test(e.path))) console.log(`[e2e] gateway ${entry.method} ${entry.path} → ${entry.status}`);
    expect(reload).toMatchObject({ action: 'update', status: 'changed' });
    expect(reload.reason).toMatch(new RegExp(`^table ${TABLE} reloaded \\(\\d+ of \\d+ segments?\\): rows stored before show the added column speed \\(with the default\\); force-committed \\(3 consuming segments\\): the rows from now on carry the columns$`));

    await produce(AFTER, { speed: 12.5 });
    expect(await countUntil(BEFORE + AFTER)).toBe(BEFORE + AFTER);
    const answer = await broker(`SELECT speed, COUNT(*) FROM ${TABLE} GROUP BY speed ORDER BY speed`);
    console.log(`[e2e] Pinot ${pinot.version} broker, speed per row: ${JSON.stringify(answer)}`);
    expect(answer.exceptions).toEqual([]);
    expect(answer.resultTable!.rows).toEqual([
      [-1, BEFORE],
      [12.5, AFTER],
    ]);

    // What Pinot's controller itself answers, for docs/gateway-api.md.
    const reloaded = await fetch(`${pinot.controller}/segments/${TABLE}/reload?type=REALTIME`, { method: 'POST' });
    const reloadBody = (await reloaded.json()) as { status: string };
    console.log(`[e2e] Pinot ${pinot.version} POST /segments/${TABLE}/reload?type=REALTIME → ${reloaded.status} ${JSON.stringify(reloadBody)}`);
    const jobId = /"reloadJobId":"([^"]+)"/.exec(reloadBody.status.replace(/\\"/g, '"'))?.[1];
    const status = await fetch(`${pinot.controller}/segments/segmentReloadStatus/${jobId}`);
    console.log(`[e2e] Pinot ${pinot.version} GET /segments/segmentReloadStatus/{jobId} → ${status.status} ${await status.text()}`);
    const committed = await fetch(`${pinot.controller}/tables/${TABLE}/forceCommit`, { method: 'POST' });
    console.log(`[e2e] Pinot ${pinot.version} POST /tables/${TABLE}/forceCommit → ${committed.status} ${JSON.stringify(await committed.text())}`);
  });
});
