/**
 * The sandbox's message stream: the reader contract (also run against the real Kafka
 * of the end-to-end tier), and what only the sandbox's broker can show — how many
 * round trips the stream pre-flight costs, and a refused exchange in its log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamBroker } from '../../src/sandbox/stream/stream-broker.js';
import { StreamPreflight } from '../../src/stream/stream-preflight.js';
import { describeStreamContract } from '../stream/reader-contract.js';

const USER = 'dpgw-stream';
const PASSWORD = 'sandbox "stream" pass\\word';
let broker: StreamBroker;

beforeAll(async () => {
  broker = new StreamBroker({ users: { [USER]: PASSWORD } });
  await broker.start();
});
afterAll(() => broker.stop());

describeStreamContract('the sandbox broker', () => ({
  brokers: [broker.address],
  username: USER,
  password: PASSWORD,
  createTopic: async (name, partitions, messages) => {
    broker.createTopic(name, partitions);
    broker.produce(name, messages);
  },
}));

describe('the sandbox broker, seen from inside', () => {
  it('the pre-flight of a run costs one sign-in, then one Metadata request per data set', async () => {
    for (const name of ['a.one', 'b.two', 'c.three']) broker.createTopic(name, 3);
    const before = { ...broker.requestCounts };
    const preflight = new StreamPreflight({ brokers: [broker.address], username: USER, password: PASSWORD }, { timeoutMs: 5_000 });
    try {
      await preflight.signIn();
      const signedIn = { ...broker.requestCounts };
      for (const [topic, table] of [['a.one', 'a'], ['b.two', 'b'], ['c.three', 'c']] as const) await preflight.topic(topic, table);
      const delta = (from: Record<string, number>, to: Record<string, number>) => Object.fromEntries(Object.entries(to).map(([api, n]) => [api, n - (from[api] ?? 0)]).filter(([, n]) => n !== 0));
      expect(delta(before, signedIn)).toEqual({ ApiVersions: 1, SaslHandshake: 1, SaslAuthenticate: 2, Metadata: 1 });
      expect(delta(signedIn, broker.requestCounts)).toEqual({ Metadata: 3 });
    } finally {
      await preflight.close();
    }
  });

  it('a wrong password is refused as Kafka refuses it, and the broker keeps no secret in its log', async () => {
    const preflight = new StreamPreflight({ brokers: [broker.address], username: USER, password: 'wrong' }, { timeoutMs: 5_000 });
    const refusalsBefore = broker.refusals.length;
    try {
      await expect(preflight.signIn()).rejects.toThrow(/the brokers refused stream user dpgw-stream/);
    } finally {
      await preflight.close();
    }
    expect(broker.refusals.slice(refusalsBefore)).toEqual(['wrong password']);
    const unknown = new StreamPreflight({ brokers: [broker.address], username: 'nobody', password: PASSWORD }, { timeoutMs: 5_000 });
    try {
      await expect(unknown.signIn()).rejects.toThrow(/the brokers refused stream user nobody/);
    } finally {
      await unknown.close();
    }
  });
});

describe('compressed batches', () => {
  it('carry their codec in the attributes and a records section smaller than the plain one', async () => {
    const { encodeRecordBatch } = await import('../../src/sandbox/stream/record-batch.js');
    const { lz4Compress } = await import('@platformatic/wasm-utils');
    const records = Array.from({ length: 50 }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(JSON.stringify({ origin: 'RADAR-NORTH', dataMode: 'REAL', i })), timestamp: 1_795_478_400_000n + BigInt(i) }));
    const plain = encodeRecordBatch(0n, records);
    const compressed = encodeRecordBatch(0n, records, { codec: 'lz4', compress: (b) => Buffer.from(lz4Compress(b)) });
    // baseOffset (8) + batchLength (4) + partitionLeaderEpoch (4) + magic (1) + crc (4): the attributes.
    expect([plain.readInt16BE(21), compressed.readInt16BE(21)]).toEqual([0, 3]);
    expect(compressed.length).toBeLessThan(plain.length / 2);
  });
});
