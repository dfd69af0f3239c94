/**
 * The analytics store's own example tables on the real store (issue 45): three of the
 * realtime table configs and schemas in Pinot's pinot-tools jar, read from the jar at test
 * time — an upsert table, one with complex types, one with ingestion transforms — each
 * turned into a template with `dpgw table template`, its schema pushed and its table created
 * with dpgw (stream check and sample check on), fed messages, and its rows shown by Pinot.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
// @ts-expect-error -- a plain ESM script of the project (scripts/), typed at its use
import { storeExamples } from '../../scripts/platform/store-examples.mjs';
import { spawnDpgw } from '../helpers/run-dpgw.js';
import { adminEnv, pinotTable, startBackedGateway } from './backed-platform.js';

const kafka = inject('kafka');
const pinot = inject('pinot');
const { Kafka, logLevel } = kafkajs;
let sandbox: Sandbox;
let examples: string;

beforeAll(async () => {
  sandbox = await startBackedGateway();
  examples = join((await storeExamples()) as string, 'examples', 'stream');
});
afterAll(() => sandbox?.close());

interface Message {
  key?: string;
  value: string;
}

function kafkaClient() {
  return new Kafka({ clientId: 'dpgw-e2e-examples', brokers: [kafka.brokerList], sasl: { mechanism: 'scram-sha-512', username: kafka.streamUser, password: kafka.streamPassword }, logLevel: logLevel.NOTHING, retry: { retries: 3 } });
}

/** Sends `messages` to `topic`, made first when it is new. */
async function produce(topic: string, messages: Message[]): Promise<void> {
  const client = kafkaClient();
  const admin = client.admin();
  await admin.connect();
  try {
    // One partition: the upsert example's rows of one key stay in one partition whatever the producer's partitioner.
    if (!(await admin.listTopics()).includes(topic)) await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  const producer = client.producer();
  await producer.connect();
  try {
    await producer.send({ topic, messages });
  } finally {
    await producer.disconnect();
  }
}

async function query(sql: string): Promise<unknown[][]> {
  const response = await fetch(`${pinot.broker}/query/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql }) });
  const body = (await response.json()) as { resultTable?: { rows: unknown[][] }; exceptions?: Array<{ message: string }> };
  if (body.exceptions?.length) throw new Error(`${sql}: ${body.exceptions.map((e) => e.message).join('; ')}`);
  return body.resultTable?.rows ?? [];
}

/** Polls until the table counts `rows` (or the deadline), and returns the last count. */
async function countOf(table: string, rows: number): Promise<number> {
  let count = 0;
  let failure = '';
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      count = Number((await query(`SELECT COUNT(*) FROM ${table}`))[0]?.[0] ?? 0);
    } catch (error) {
      failure = String(error);
    }
    if (count >= rows) return count;
    await sleep(1_000);
  }
  // Why the rows did not come: the last query error and what the store's controller says of the table.
  const debug = await (await fetch(`${pinot.controller}/debug/tables/${table}?type=REALTIME&verbosity=1`)).text();
  console.error(`[e2e] ${table}: ${count} rows; last query error: ${failure || 'none'}; controller: ${debug.slice(0, 3000)}`);
  return count;
}

/**
 * The store's example, as a user migrating to dpgw brings it: the config turned into a template
 * with `dpgw table template`, the schema pushed, the table created on `topic` — every file as
 * the jar holds it, nothing edited by hand.
 */
async function provisionExample(example: string, configFile: string, schemaFile: string, topic: string) {
  const env = adminEnv(sandbox.gatewayUrl, { DPGW_STREAM_PASSWORD: kafka.streamPassword });
  const dpgw = (args: string[]) => spawnDpgw(args, { env });
  const template = join(env.DPGW_CONFIG_DIR!, `${example}-template.yaml`);
  const converted = await dpgw(['table', 'template', join(examples, example, configFile), '-o', template]);
  expect(converted.code, converted.stderr).toBe(0);
  expect(converted.stderr).toMatch(/replaced \S*topic\.name: \$\{topic\}/);
  const schema = join(examples, example, schemaFile);
  const pushed = await dpgw(['schema', 'push', schema]);
  expect(pushed.code, pushed.stderr).toBe(0);
  const created = await dpgw(['table', 'create', '--dataset', 'track', '--topic', topic, '--schema', schema, '--template', template, '--json']);
  expect(created.code, created.stderr).toBe(0);
  return { created: JSON.parse(created.stdout) as Record<string, unknown>, stderr: created.stderr, template: readFileSync(template, 'utf8') };
}

describe(`the store's own example tables on Pinot ${pinot.version}, from its pinot-tools jar`, () => {
  it('upsertMeetupRsvp (upsert, partitioning, an H3 index on a schema transform): the latest row of each key', async () => {
    const topic = 'e2e-examples.upsert-meetup-rsvp';
    const now = Date.now();
    // 5 events, each answered 4 times: upsert keeps one row per event_id, the latest.
    const answers = (first: number) =>
      Array.from({ length: 20 }, (_, i) => {
        const event = `event-${i % 5}`;
        return {
          key: event,
          value: JSON.stringify({ venue_name: `venue ${i % 5}`, event_name: `Meetup ${i % 5}`, event_id: event, event_time: now + 86_400_000, group_city: 'Berlin', group_country: 'de', group_id: 1000 + (i % 5), group_name: 'dpgw users', group_lat: 52.52, group_lon: 13.405, rsvp_count: first + i, mtime: now - 60_000 + first * 100 + i * 1_000 }),
        };
      });
    // Messages before the table, for dpgw's sample check; the store's example consumes from the latest offset
    // (no auto.offset.reset), so the rows it shows are those sent after.
    await produce(topic, answers(1));
    const { created, stderr } = await provisionExample('upsertMeetupRsvp', 'upsertMeetupRsvp_realtime_table_config.json', 'upsertMeetupRsvp_schema.json', topic);
    await produce(topic, answers(101));
    expect(created).toMatchObject({ tableName: 'upsertMeetupRsvp', topic });
    // The sample check held the messages against the schema: the transform's inputs are carried.
    expect(stderr).toMatch(/transformed: location/);
    const stored = (await pinotTable('upsertMeetupRsvp')).REALTIME as { upsertConfig: { mode: string }; fieldConfigList: Array<{ indexType: string }> };
    expect(stored.upsertConfig.mode).toBe('FULL');
    expect(stored.fieldConfigList[0]!.indexType).toBe('H3');

    // Pinot answers with one row per key, each its last message.
    const latest = [0, 1, 2, 3, 4].map((n) => [`event-${n}`, 116 + n]);
    expect(await until(() => query('SELECT event_id, rsvp_count FROM upsertMeetupRsvp ORDER BY event_id LIMIT 100'), latest)).toEqual(latest);
  }, 300_000);

  it('meetupRsvpComplexType (complex types: a nested object flattened, a list unnested into rows)', async () => {
    const topic = 'e2e-examples.meetup-rsvp-complex-type';
    const now = Date.now();
    // 10 RSVPs, each of a group with 2 topics: unnesting group.group_topics gives 2 rows each.
    const messages = Array.from({ length: 10 }, (_, i) => ({
      value: JSON.stringify({
        rsvp_id: 5000 + i,
        guests: i % 3,
        mtime: now - 60_000 + i * 1_000,
        group: { group_city: 'Lisbon', group_country: 'pt', group_id: 77, group_name: 'data engineers', group_lon: -9.14, group_urlname: 'data-eng', group_state: 'LX', group_lat: 38.72, group_topics: [{ urlkey: 'olap', topic_name: 'OLAP' }, { urlkey: 'streams', topic_name: 'Streams' }] },
      }),
    }));
    // Before the table for the sample check, and after it: the example consumes from the latest offset.
    await produce(topic, messages);
    const { stderr } = await provisionExample('meetupRsvpComplexType', 'meetupRsvpComplexType_realtime_table_config.json', 'meetupRsvpComplexType_schema.json', topic);
    await produce(topic, messages);
    expect(stderr).toMatch(/flattened: .*group\.group_topics\.urlkey/);

    expect(await countOf('meetupRsvpComplexType', 20)).toBe(20);
    const topics = await query('SELECT "group.group_topics.urlkey", COUNT(*) FROM meetupRsvpComplexType GROUP BY "group.group_topics.urlkey" ORDER BY "group.group_topics.urlkey"');
    expect(topics).toEqual([['olap', 10], ['streams', 10]]);
    const [[city, lat]] = (await query('SELECT "group.group_city", "group.group_lat" FROM meetupRsvpComplexType LIMIT 1')) as [[string, number]];
    expect([city, lat]).toEqual(['Lisbon', 38.72]);
  }, 300_000);

  it("airlineStats (ingestion transforms, a TIMESTAMP index): the store's own sample messages, ts filled from DaysSinceEpoch", async () => {
    const topic = 'e2e-examples.airline-stats';
    const lines = readFileSync(join(examples, 'airlineStats', 'rawdata', 'airlineStats_data.json'), 'utf8').split('\n').filter((line) => line.trim() !== '').slice(0, 200);
    await produce(topic, lines.map((value) => ({ value })));
    await provisionExample('airlineStats', 'airlineStats_realtime_table_config.json', 'airlineStats_schema.json', topic);

    expect(await countOf('airlineStats', 200)).toBe(200);
    // The transform's output: ts is the day's start in epoch milliseconds.
    const rows = (await query('SELECT DaysSinceEpoch, ts FROM airlineStats LIMIT 50')) as Array<[number, number | string]>;
    expect(rows.length).toBe(50);
    for (const [days, ts] of rows) expect(typeof ts === 'number' ? ts : Date.parse(`${ts.replace(' ', 'T')}Z`)).toBe(days * 86_400_000);
  }, 300_000);
});

/** Polls `read` until it answers `expected` (or the deadline), and returns the last answer. */
async function until(read: () => Promise<unknown[][]>, expected: unknown[][]): Promise<unknown[][]> {
  let answer: unknown[][] = [];
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    answer = await read().catch(() => []);
    if (JSON.stringify(answer) === JSON.stringify(expected)) return answer;
    await sleep(1_000);
  }
  return answer;
}
