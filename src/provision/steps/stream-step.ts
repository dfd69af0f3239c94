/**
 * The stream pre-flight before a table is sent: would the store's servers consume its
 * topic? `dpgw table create` and both provision modes use it. Brokers out of reach under
 * `--stream-check auto` skip it with a reason; the consumption check then proves the stream.
 */
import { SKIP_STREAM_CHECK_FLAG, type StreamPreflight, type TopicFacts } from '../../stream/stream-preflight.js';
import { plural } from '../../text/plural.js';
import type { StepRecord } from './step-record.js';

/** A TCP probe of the brokers at most, nothing sent: whether the run would check, or skip and why. */
export async function planStream(preflight: StreamPreflight | undefined): Promise<StepRecord> {
  if (!preflight) return { step: 'stream', action: 'skipped', reason: `not checked (${SKIP_STREAM_CHECK_FLAG})` };
  const why = await preflight.skippedBecause();
  if (why !== undefined) return { step: 'stream', action: 'skipped', reason: `would be skipped: ${why} (--stream-check auto); the consumption check would prove the stream` };
  return { step: 'stream', action: 'check', reason: `sign in to ${preflight.describe()} and find the topic before the table is sent` };
}

export interface StreamChecked {
  record: StepRecord;
  /** Known when the check passed: the consume step waits for every partition. */
  facts?: TopicFacts;
  /** Why the check was skipped (brokers out of reach under auto), for the one warning line. */
  skippedBecause?: string;
}

/** Signs in to the brokers and finds the topic; refusals fail the step (they are real errors). */
export async function applyStream(preflight: StreamPreflight | undefined, topic: string, tableName: string): Promise<StreamChecked> {
  if (!preflight) return { record: { step: 'stream', action: 'skipped', status: 'skipped', reason: `not checked (${SKIP_STREAM_CHECK_FLAG}): nothing tells whether the store can consume topic ${topic}` } };
  const outcome = await preflight.check(topic, tableName);
  if (outcome.kind === 'skipped') {
    return { skippedBecause: outcome.why, record: { step: 'stream', action: 'skipped', status: 'skipped', reason: `not checked: ${outcome.why}; the consumption check proves the stream` } };
  }
  const { partitions } = outcome.facts;
  return {
    facts: outcome.facts,
    record: { step: 'stream', action: 'check', status: 'passed', reason: `topic ${topic}: ${plural(partitions, 'partition')}, read as ${preflight.describe()}`, facts: { partitions } },
  };
}
