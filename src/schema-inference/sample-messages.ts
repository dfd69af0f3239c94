/**
 * Feeds a SchemaInference from where the messages are: files and stdin (streamed), or
 * a topic on the message stream (read-only). Shared by `dpgw schema infer` and a
 * manifest's `schema: { infer: … }`.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { DpgwError } from '../errors/dpgw-error.js';
import { readTopic, type ReadTopicOptions } from '../stream/read-topic.js';
import { SchemaInference } from './infer-schema.js';
import { InputTooLarge, parseMessage, readMessages, type Skipped } from './read-messages.js';
import { plural } from '../text/plural.js';

export { DEFAULT_TOPIC_SAMPLE } from './sample-size.js';

export interface Sampled {
  inference: SchemaInference;
  skipped: Skipped[];
  /** What was read, for the schema's header: "300 messages of track.jsonl". */
  described: string;
}

/** Files by path, `-` for stdin; at most `sample` messages over all of them. `also`: shown each message too (`schema infer --check`'s MessageFit). */
export async function sampleFiles(sources: string[], stdin: Readable, sample: number, also?: MessageObserver): Promise<Sampled> {
  const inference = new SchemaInference();
  const skipped: Skipped[] = [];
  for (const source of sources) {
    const name = source === '-' ? 'stdin' : source;
    const input: Readable = source === '-' ? stdin : createReadStream(source);
    try {
      for await (const { message, where, decimals } of readMessages(name, input, (skip) => skipped.push(skip))) {
        inference.observe(message, where, decimals);
        also?.observe(message, where);
        if (inference.messages >= sample) break;
      }
    } catch (error) {
      if (error instanceof InputTooLarge) throw new DpgwError('FILE_TOO_LARGE', error.message, { where: name });
      const code = (error as NodeJS.ErrnoException).code;
      if (code) throw new DpgwError(code === 'ENOENT' ? 'FILE_NOT_FOUND' : 'FILE_UNREADABLE', `cannot read ${name}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : (error as Error).message}`, { where: name, hint: 'check the path' });
      throw error;
    } finally {
      if (source !== '-') input.destroy();
    }
    if (inference.messages >= sample) break;
  }
  const names = sources.map((s) => (s === '-' ? 'stdin' : s));
  if (inference.messages === 0) {
    throw new DpgwError('NO_USABLE_MESSAGES', `no JSON object messages in ${names.join(', ')}${skipped.length ? ` (${plural(skipped.length, 'line')} skipped)` : ''}`, {
      hint: 'give one JSON object a line (JSON Lines), or a JSON array of objects',
    });
  }
  return { inference, skipped, described: `${plural(inference.messages, 'message')} of ${names.map((n) => n.replace(/^.*\//, '')).join(', ')}` };
}

/** Whatever looks at a topic's messages one at a time: a SchemaInference, a MessageFit. */
export interface MessageObserver {
  /** `decimals`: the fields whose number was written with a fraction or exponent (read-messages.ts); an observer may ignore it. */
  observe(message: Record<string, unknown>, where: string, decimals?: ReadonlySet<string>): void;
  readonly messages: number;
}

/** The first `limit` JSON object messages of a topic into `observer`, from the earliest offset; nothing is committed. What is not one is skipped. */
export async function observeTopic(options: ReadTopicOptions, observer: MessageObserver): Promise<Skipped[]> {
  const skipped: Skipped[] = [];
  const onSkip = (skip: Skipped) => skipped.push(skip);
  for await (const { value, where } of readTopic(options)) {
    if (value === null) onSkip({ where, reason: 'no value (a tombstone)' });
    // Confluent's schema-registry framing: a zero byte and a 4-byte schema id before the payload.
    else if (value.length >= 5 && value[0] === 0) onSkip({ where, reason: `schema-registry framing (schema id ${value.readUInt32BE(1)}): dpgw reads plain JSON messages` });
    else {
      const parsed = parseMessage(value.toString('utf8'), where, onSkip);
      if (parsed) observer.observe(parsed.message, where, parsed.decimals);
    }
  }
  return skipped;
}

/** The first `limit` messages of a topic, from the earliest offset; nothing is committed. */
export async function sampleTopic(options: ReadTopicOptions, also?: MessageObserver): Promise<Sampled> {
  const inference = new SchemaInference();
  const both: MessageObserver = also ? { observe: (message, where, decimals) => (inference.observe(message, where, decimals), also.observe(message, where)), get messages() { return inference.messages; } } : inference;
  const skipped = await observeTopic(options, both);
  if (inference.messages === 0) {
    throw new DpgwError('NO_USABLE_MESSAGES', `no JSON object messages among the first ${plural(skipped.length, 'message')} of topic ${options.topic}`, {
      where: skipped[0]?.where,
      hint: 'the table decodes JSON objects; check what the producers write to the topic',
    });
  }
  return { inference, skipped, described: topicSampleText(options.topic, inference.messages, skipped.length, options.limit) };
}

/**
 * The one way a sample of a topic is told, by `init`, `schema infer --dataset`, a manifest's inferred schema and the
 * sample check alike: the JSON object messages read (those skipped are not counted), and whether they were all the
 * topic held (fewer records than the limit were there to read).
 */
export function topicSampleText(topic: string, messages: number, skipped: number, limit: number): string {
  return `${plural(messages, 'message')} of topic ${topic}${messages + skipped < limit ? ' (all it held)' : ''}`;
}
