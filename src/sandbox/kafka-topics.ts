/**
 * Backed mode: topics created on a real Kafka (SASL_PLAINTEXT, SCRAM-SHA-512)
 * when a data set is enabled. kafkajs is loaded only here, in this mode.
 */
import { FEED_PARTITIONS } from './stream/feed-messages.js';

export interface KafkaBacking {
  brokers: string[];
  username: string;
  password: string;
}

export interface TopicCreator {
  create(topic: string): Promise<void>;
  close(): Promise<void>;
}

export async function kafkaTopicCreator(backing: KafkaBacking): Promise<TopicCreator> {
  const { Kafka, logLevel } = (await import('kafkajs')).default;
  const kafka = new Kafka({ clientId: 'dpgw-sandbox', brokers: backing.brokers, sasl: { mechanism: 'scram-sha-512', username: backing.username, password: backing.password }, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  return {
    create: async (topic) => {
      // false when it exists already: enabling is idempotent, so is this.
      await admin.createTopics({ topics: [{ topic, numPartitions: FEED_PARTITIONS, replicationFactor: 1 }], waitForLeaders: true });
    },
    close: () => admin.disconnect(),
  };
}
