/**
 * The reader contract (test/stream/reader-contract.ts) against the real Kafka of the
 * end-to-end tier: the same tests the sandbox's broker passes
 * (test/sandbox/stream-broker.test.ts), so the sandbox's stream is held to Kafka's.
 */
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, inject } from 'vitest';
import { describeStreamContract } from '../stream/reader-contract.js';

const kafka = inject('kafka');
const { Kafka, logLevel } = kafkajs;
const client = new Kafka({ clientId: 'dpgw-e2e-contract', brokers: [kafka.brokerList], sasl: { mechanism: 'scram-sha-512', username: kafka.streamUser, password: kafka.streamPassword }, logLevel: logLevel.NOTHING });
const admin = client.admin();
const producer = client.producer();

beforeAll(async () => {
  await Promise.all([admin.connect(), producer.connect()]);
});
afterAll(async () => {
  await Promise.all([admin.disconnect(), producer.disconnect()]);
});

describeStreamContract(`Kafka ${kafka.version}`, () => ({
  brokers: [kafka.brokerList],
  username: kafka.streamUser,
  password: kafka.streamPassword,
  createTopic: async (name, partitions, messages) => {
    await admin.createTopics({ topics: [{ topic: name, numPartitions: partitions, replicationFactor: 1 }], waitForLeaders: true });
    if (messages.length > 0) await producer.send({ topic: name, messages });
  },
}));
