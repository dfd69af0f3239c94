/**
 * The reader's and the stream pre-flight's behaviour against a message stream, as one
 * list of tests run twice: against the sandbox's broker (test/sandbox/stream-broker.test.ts)
 * and against the real Kafka of the end-to-end tier (test/e2e/stream-reader.test.ts). The
 * sandbox's stream is faithful where these pass on both.
 */
import { describe, expect, it } from 'vitest';
import { DpgwError } from '../../src/errors/dpgw-error.js';
import { EmptyTopic, readTopic, type TopicRecord } from '../../src/stream/read-topic.js';
import { StreamPreflight } from '../../src/stream/stream-preflight.js';

export interface StreamUnderTest {
  brokers: string[];
  username: string;
  password: string;
  /** Creates a topic and puts these messages on it (keyed, so they spread over the partitions). */
  createTopic(name: string, partitions: number, messages: Array<{ key: string; value: string }>): Promise<void>;
}

async function readAll(stream: StreamUnderTest, topic: string, overrides: { password?: string; limit?: number } = {}): Promise<TopicRecord[]> {
  const records: TopicRecord[] = [];
  for await (const record of readTopic({ brokers: stream.brokers, username: stream.username, password: overrides.password ?? stream.password, topic, limit: overrides.limit ?? 10_000, timeoutMs: 20_000 })) records.push(record);
  return records;
}

async function failure(work: Promise<unknown>): Promise<DpgwError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DpgwError);
  return error as DpgwError;
}

const message = (i: number) => ({ key: `T${1000 + (i % 7)}`, value: JSON.stringify({ id: `m-${i}`, alt: 500.25 + i, time: 1_795_478_400_000 + i * 1000 }) });

export function describeStreamContract(name: string, stream: () => StreamUnderTest): void {
  describe(`the topic reader and the stream pre-flight against ${name}`, () => {
    const unique = () => `dpgw.contract.${Math.random().toString(36).slice(2, 10)}`;

    it('reads every message of a 3-partition topic from the earliest offset, each once, with where it sits', async () => {
      const topic = unique();
      await stream().createTopic(topic, 3, Array.from({ length: 60 }, (_, i) => message(i)));
      const records = await readAll(stream(), topic);
      expect(records.map((r) => JSON.parse(r.value!.toString()).id).sort()).toEqual(Array.from({ length: 60 }, (_, i) => `m-${i}`).sort());
      expect(new Set(records.map((r) => r.where))).toHaveProperty('size', 60);
      // Keyed messages spread over the partitions; each record says which one and its offset.
      for (const record of records) expect(record.where).toMatch(new RegExp(`^${topic.replace(/\./g, '\\.')}/[0-2]@\\d+$`));
      expect(new Set(records.map((r) => r.where.split('@')[0])).size).toBeGreaterThan(1);
      expect((await readAll(stream(), topic, { limit: 25 })).length).toBe(25);
    });

    it('a wrong stream password is refused (SASL SCRAM-SHA-512): exit 4, no password in the message', async () => {
      const topic = unique();
      await stream().createTopic(topic, 1, [message(1)]);
      const refused = await failure(readAll(stream(), topic, { password: 'not-the-password' }));
      expect([refused.kind, refused.exitCode]).toEqual(['auth', 4]);
      expect(refused.message).toBe(`the brokers refused stream user ${stream().username} (SASL SCRAM-SHA-512)`);
      expect(refused.toLine()).not.toContain('not-the-password');
    });

    it('an unknown topic and an empty one are each one line', async () => {
      const missing = await failure(readAll(stream(), unique()));
      expect(missing.message).toMatch(/^topic dpgw\.contract\.\w+ does not exist on the brokers$/);
      const empty = unique();
      await stream().createTopic(empty, 2, []);
      const nothing = await readAll(stream(), empty).catch((e: unknown) => e);
      expect(nothing).toBeInstanceOf(EmptyTopic);
      expect((nothing as EmptyTopic).message).toBe(`topic ${empty} holds no messages yet (2 partitions, all empty)`);
    });

    it('the pre-flight signs in once and finds each topic with its partitions; refusals say the table would never consume', async () => {
      const [three, one] = [unique(), unique()];
      await stream().createTopic(three, 3, [message(1)]);
      await stream().createTopic(one, 1, []);
      const { brokers, username, password } = stream();
      const preflight = new StreamPreflight({ brokers, username, password }, { timeoutMs: 20_000 });
      try {
        await preflight.signIn();
        expect(await preflight.topic(three, 'track')).toEqual({ topic: three, partitions: 3 });
        expect(await preflight.topic(one, 'vessel')).toEqual({ topic: one, partitions: 1 });
        const missing = await failure(preflight.topic(`${one}.nope`, 'weather'));
        expect([missing.exitCode, missing.message]).toEqual([1, `table weather would never consume: topic ${one}.nope does not exist on the brokers`]);
        expect(missing.hint).toContain('the table was not sent');
        expect(missing.hint).toContain('--stream-check off');
      } finally {
        await preflight.close();
      }
      const wrong = new StreamPreflight({ brokers, username, password: 'not-the-password' }, { timeoutMs: 20_000 });
      try {
        const refused = await failure(wrong.topic(three, 'track'));
        expect([refused.exitCode, refused.message]).toEqual([4, `table track would never consume: the brokers refused stream user ${username} (SASL SCRAM-SHA-512)`]);
        expect(refused.toLine()).not.toContain('not-the-password');
        // A second data set of the run gets the same refusal, naming its own table.
        expect((await failure(wrong.topic(one, 'vessel'))).message).toBe(`table vessel would never consume: the brokers refused stream user ${username} (SASL SCRAM-SHA-512)`);
      } finally {
        await wrong.close();
      }
    });
  });
}
