/**
 * Reads the messages of one topic on the message stream, read-only: from each
 * partition's earliest offset up to the end it had when reading began, with plain
 * Fetch requests and no consumer group, so nothing is committed and no group appears
 * on the brokers. The client (@platformatic/kafka) is imported here, on first use, so
 * only the commands that read a topic pay for loading it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DpgwError } from '../errors/dpgw-error.js';
import type * as KafkaModule from '@platformatic/kafka';
import type { Consumer, RecordsBatch } from '@platformatic/kafka';
import type { StreamConnection } from './stream-connection.js';
import { plural } from '../text/plural.js';
import { boundBrokerFrames, FETCH_MAX_BYTES } from './broker-frames.js';
import { DeadlineReached, ignoreLateConnectionErrors, streamError, unknownTopic } from './stream-errors.js';

export interface ReadTopicOptions extends StreamConnection {
  topic: string;
  /** Stop after this many records. */
  limit: number;
  /**
   * `earliest` (the default): from the start of each partition; `latest`: the last records
   * of each partition (the limit spread over them), what the producers send now.
   */
  from?: 'earliest' | 'latest';
  /** The whole read, connecting included. */
  timeoutMs: number;
  /** Told about each step, for --verbose. */
  trace?: (line: string) => void;
}

export interface TopicRecord {
  value: Buffer | null;
  /** topic/partition@offset, as a user finds the record again. */
  where: string;
}

/** How long one Fetch may wait at the broker for data, so the deadline is checked often. */
const FETCH_WAIT_MS = 500;
const PARTITION_MAX_BYTES = 1024 * 1024;
const CLIENT_ID = 'dpgw-schema-infer';

interface PartitionCursor {
  partition: number;
  leader: number;
  next: bigint;
  /** The end offset when reading began: records produced later are not waited for. */
  end: bigint;
}

export async function* readTopic(options: ReadTopicOptions): AsyncGenerator<TopicRecord> {
  const { topic, limit, trace } = options;
  const deadline = Date.now() + options.timeoutMs;
  const kafka = await import('@platformatic/kafka');
  const brokers = options.brokers.join(',');
  const consumer = readOnlyConsumer(kafka, options);
  ignoreLateConnectionErrors(consumer);
  const frames = boundBrokerFrames(consumer);
  const beforeDeadline = <T>(what: string, work: Promise<T>): Promise<T> => {
    const left = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineReached(what)), Math.max(0, left));
    });
    return Promise.race([work, late, frames.refused]).finally(() => clearTimeout(timer));
  };
  const asStreamError = (error: unknown): never => {
    throw streamError(error, options, topic, options.timeoutMs);
  };

  try {
    trace?.(`stream: metadata of ${topic} from ${brokers}${options.username !== undefined ? ` as ${options.username} (SASL SCRAM-SHA-512)` : ' (no SASL)'}`);
    const metadata = await beforeDeadline('connecting', consumer.metadata({ topics: [topic] })).catch(asStreamError);
    const topicMetadata = metadata.topics.get(topic);
    if (!topicMetadata) throw unknownTopic(topic, brokers);
    const [earliest, latest] = await beforeDeadline(
      'listing offsets',
      Promise.all([
        consumer.listOffsets({ topics: [topic], timestamp: kafka.ListOffsetTimestamps.EARLIEST }),
        consumer.listOffsets({ topics: [topic], timestamp: kafka.ListOffsetTimestamps.LATEST }),
      ]),
    ).catch(asStreamError);
    const cursors = startingCursors(options, topicMetadata.partitions, { earliest: earliest.get(topic) ?? [], latest: latest.get(topic) ?? [] });
    const held = cursors.reduce((sum, c) => sum + (c.end - c.next), 0n);
    trace?.(`stream: ${topic} has ${plural(cursors.length, 'partition')} holding ${plural(held, 'record')}`);
    if (held === 0n) {
      throw new EmptyTopic('TOPIC_EMPTY', `topic ${topic} holds no messages yet (${plural(cursors.length, 'partition')}, all empty)`, {
        where: brokers,
        hint: 'produce some messages first, or infer from a file: dpgw schema infer messages.jsonl',
      });
    }

    let yielded = 0;
    while (yielded < limit) {
      const open = cursors.filter((c) => c.next < c.end);
      if (open.length === 0) return;
      if (Date.now() >= deadline) throw new DeadlineReached('reading');
      const answers = await beforeDeadline('reading', fetchFromLeaders(consumer, topicMetadata.id, open)).catch((error: unknown) => {
        if (error instanceof DeadlineReached) throw error;
        return asStreamError(error);
      });
      for (const { partitions, response } of answers) {
        for (const answered of response.responses.flatMap((t) => t.partitions)) {
          const cursor = partitions.find((c) => c.partition === answered.partitionIndex);
          if (!cursor) continue;
          if (answered.errorCode !== 0) throw new DpgwError('STREAM_READ_FAILED', `the broker answered error ${answered.errorCode} reading ${topic}/${cursor.partition}`, { where: brokers, hint: 'try again; if it persists, ask the platform team about the topic' });
          for (const record of recordsAnswered(answered, cursor, topic, kafka.IS_CONTROL)) {
            yield record;
            if (++yielded >= limit) return;
          }
        }
      }
    }
  } catch (error) {
    throw streamError(error, options, topic, options.timeoutMs);
  } finally {
    // Closing waits for connections still being made: it may not stretch the read past its deadline.
    const closed = new Promise<void>((resolve) => consumer.close(true, () => resolve()));
    await Promise.race([closed, sleep(Math.max(0, deadline - Date.now()) + CLOSE_GRACE_MS, undefined, { ref: false })]);
  }
}

/** A Consumer for its Metadata, ListOffsets and Fetch calls; its group is never joined. */
function readOnlyConsumer(kafka: typeof KafkaModule, options: ReadTopicOptions): Consumer {
  return new kafka.Consumer({
    clientId: CLIENT_ID,
    groupId: CLIENT_ID,
    bootstrapBrokers: options.brokers,
    ...(options.username !== undefined ? { sasl: { mechanism: 'SCRAM-SHA-512' as const, username: options.username, password: options.password ?? '' } } : {}),
    connectTimeout: Math.min(options.timeoutMs, 10_000),
    timeout: Math.min(options.timeoutMs, 30_000),
    retries: 1,
    retryDelay: 250,
    autocreateTopics: false,
  });
}

/**
 * Where each partition's read starts and ends: from its earliest offset, or (`latest`) its share of the limit before
 * its end. A partition holding less than its share gives the rest to the others, so a `latest` sample holds as many
 * messages as an `earliest` one (the limit, or all the topic holds): an even split read 197 of a 200-message topic.
 */
function startingCursors(options: ReadTopicOptions, partitions: ReadonlyArray<{ leader: number }>, offsets: { earliest: readonly bigint[]; latest: readonly bigint[] }): PartitionCursor[] {
  const bounds = partitions.map((p, partition) => ({ partition, leader: p.leader, start: offsets.earliest[partition] ?? 0n, end: offsets.latest[partition] ?? 0n }));
  if (options.from !== 'latest') return bounds.map(({ partition, leader, start, end }) => ({ partition, leader, next: start, end }));
  const shares = new Map<number, bigint>();
  let left = BigInt(options.limit);
  // The smallest partitions first: what each cannot take passes to the larger ones after it.
  const smallestFirst = [...bounds].sort((a, b) => (a.end - a.start < b.end - b.start ? -1 : a.end - a.start > b.end - b.start ? 1 : 0));
  smallestFirst.forEach(({ partition, start, end }, at) => {
    const partitionsLeft = BigInt(smallestFirst.length - at);
    const share = (left + partitionsLeft - 1n) / partitionsLeft;
    const taken = end - start < share ? end - start : share;
    shares.set(partition, taken);
    left -= taken;
  });
  return bounds.map(({ partition, leader, end }) => ({ partition, leader, next: end - shares.get(partition)!, end }));
}

/** One Fetch to each leader, for its open partitions, side by side. */
function fetchFromLeaders(consumer: Consumer, topicId: string, open: PartitionCursor[]) {
  const byLeader = new Map<number, PartitionCursor[]>();
  for (const cursor of open) byLeader.set(cursor.leader, [...(byLeader.get(cursor.leader) ?? []), cursor]);
  return Promise.all(
    [...byLeader].map(async ([node, partitions]) => ({
      partitions,
      response: await consumer.fetch({
        node,
        maxWaitTime: FETCH_WAIT_MS,
        minBytes: 1,
        maxBytes: Math.min(PARTITION_MAX_BYTES * partitions.length, FETCH_MAX_BYTES),
        topics: [{ topicId, partitions: partitions.map((c) => ({ partition: c.partition, fetchOffset: c.next, currentLeaderEpoch: -1, lastFetchedEpoch: -1, partitionMaxBytes: PARTITION_MAX_BYTES })) }],
      }),
    })),
  );
}

/** A partition's answer to a Fetch, as one record at a time between its cursor's next and end offsets; the cursor moves past what was answered. */
function* recordsAnswered(answered: AnsweredPartition, cursor: PartitionCursor, topic: string, isControl: number): Generator<TopicRecord> {
  let progressed = false;
  for (const batch of answered.records ?? []) {
    const lastInBatch = batch.firstOffset + BigInt(batch.lastOffsetDelta);
    // Control batches (transaction markers) hold no messages.
    if ((batch.attributes & isControl) === 0) {
      for (const record of batch.records) {
        const offset = batch.firstOffset + BigInt(record.offsetDelta);
        if (offset < cursor.next || offset >= cursor.end) continue;
        yield { value: record.value, where: `${topic}/${cursor.partition}@${offset}` };
      }
    }
    if (lastInBatch + 1n > cursor.next) {
      cursor.next = lastInBatch + 1n;
      progressed = true;
    }
  }
  // No batch although records were expected: they were deleted (retention) or compacted away.
  if (!progressed && (answered.records ?? []).length === 0 && answered.highWatermark <= cursor.next) cursor.end = cursor.next;
}

/** What dpgw reads of a partition's answer to a Fetch. */
interface AnsweredPartition {
  partitionIndex: number;
  errorCode: number;
  highWatermark: bigint;
  records?: RecordsBatch[];
}

/** What closing may add after the deadline, for a connection that is answering. */
const CLOSE_GRACE_MS = 200;

/** The topic exists and holds nothing to read. */
export class EmptyTopic extends DpgwError {}
