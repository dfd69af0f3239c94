/**
 * The latest offset of each partition of a topic (the offset the next message will get), read
 * from the brokers with one ListOffsets request: nothing is read or committed, no consumer
 * group is joined. `dpgw table status` compares it with the offset the store has reached,
 * which Pinot 0.11 does not report itself (docs/tables.md, "table status").
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { StreamConnection } from './stream-connection.js';
import { boundBrokerFrames } from './broker-frames.js';
import { DeadlineReached, ignoreLateConnectionErrors, streamError, unknownTopic } from './stream-errors.js';

const CLIENT_ID = 'dpgw-table-status';
/** What closing may add after the deadline, for a connection still being made. */
const CLOSE_GRACE_MS = 200;

/** Partition → latest offset; a DpgwError (as the stream pre-flight's) when the brokers refuse or do not answer in time. */
export async function topicEndOffsets(connection: StreamConnection, topic: string, timeoutMs: number): Promise<Map<number, bigint>> {
  return (await topicOffsetRange(connection, topic, timeoutMs)).latest;
}

/**
 * Each partition's earliest offset (the oldest message the topic still holds: retention moves
 * it) and latest, from one Metadata and two ListOffsets requests; `table status` tells from the
 * earliest whether the store's next offset was lost to retention.
 */
export async function topicOffsetRange(connection: StreamConnection, topic: string, timeoutMs: number): Promise<{ earliest: Map<number, bigint>; latest: Map<number, bigint> }> {
  const kafka = await import('@platformatic/kafka');
  // A Consumer for its Metadata and ListOffsets calls; its group is never joined.
  const consumer = new kafka.Consumer({
    clientId: CLIENT_ID,
    groupId: CLIENT_ID,
    bootstrapBrokers: connection.brokers,
    ...(connection.username !== undefined ? { sasl: { mechanism: 'SCRAM-SHA-512' as const, username: connection.username, password: connection.password ?? '' } } : {}),
    connectTimeout: Math.min(timeoutMs, 10_000),
    timeout: timeoutMs,
    retries: 0,
    autocreateTopics: false,
  });
  ignoreLateConnectionErrors(consumer);
  const frames = boundBrokerFrames(consumer);
  const deadline = Date.now() + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineReached('listing offsets')), timeoutMs);
  });
  try {
    const metadata = await Promise.race([consumer.metadata({ topics: [topic] }), late, frames.refused]);
    if (!metadata.topics.get(topic)) throw unknownTopic(topic, connection.brokers.join(','));
    const [earliest, latest] = await Promise.race([
      Promise.all([consumer.listOffsets({ topics: [topic], timestamp: kafka.ListOffsetTimestamps.EARLIEST }), consumer.listOffsets({ topics: [topic], timestamp: kafka.ListOffsetTimestamps.LATEST })]),
      late,
      frames.refused,
    ]);
    const byPartition = (offsets: readonly bigint[] | undefined) => new Map((offsets ?? []).map((offset, partition) => [partition, offset]));
    return { earliest: byPartition(earliest.get(topic)), latest: byPartition(latest.get(topic)) };
  } catch (error) {
    throw streamError(error, connection, topic, timeoutMs);
  } finally {
    clearTimeout(timer);
    // Closing waits for connections still being made: it may not stretch the read past its deadline.
    const closed = new Promise<void>((resolve) => consumer.close(true, () => resolve()));
    await Promise.race([closed, sleep(Math.max(0, deadline - Date.now()) + CLOSE_GRACE_MS, undefined, { ref: false })]);
  }
}
