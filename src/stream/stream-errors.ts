/**
 * The message-stream client's errors (@platformatic/kafka) as one line a user can act
 * on — never its stack, never a secret — for reading a topic and for the stream
 * pre-flight alike.
 */
import { DpgwError } from '../errors/dpgw-error.js';
import type { StreamConnection } from './stream-connection.js';

/** A deadline of dpgw's own (--timeout) passed during `what`. */
export class DeadlineReached extends Error {
  constructor(readonly what: string) {
    super(what);
  }
}

export function unknownTopic(topic: string, brokers: string): DpgwError {
  return new DpgwError('failure', `topic ${topic} does not exist on the brokers`, { where: brokers, hint: "check the data set's topic label (dpgw enable waits for it), or name the topic with --topic" });
}

interface ClientError {
  code?: string;
  message?: string;
  errors?: unknown[];
  cause?: unknown;
}

/** The client's error, and the errors inside it. */
function* nested(error: unknown): Generator<ClientError> {
  if (error === null || typeof error !== 'object') return;
  const value = error as ClientError;
  yield value;
  for (const inner of value.errors ?? []) yield* nested(inner);
  yield* nested(value.cause);
}

export function streamError(error: unknown, connection: Pick<StreamConnection, 'brokers' | 'username'>, topic: string, timeoutMs: number): DpgwError {
  if (error instanceof DpgwError) return error;
  const brokers = connection.brokers.join(',');
  // The --timeout bound, whichever step it stopped (connecting included): exit 5, as any network time-out.
  if (error instanceof DeadlineReached) {
    return new DpgwError('network', `reading topic ${topic} took longer than ${timeoutMs / 1000} s (${error.what})`, { where: brokers, hint: 'check the broker list, or give it more time with --timeout <seconds>' });
  }
  const all = [...nested(error)];
  if (all.some((e) => e.code === 'PLT_KFK_AUTHENTICATION')) {
    return new DpgwError('auth', `the brokers refused stream user ${connection.username ?? '(none)'} (SASL SCRAM-SHA-512)`, { where: brokers, hint: 'check --stream-user and the stream password (--stream-password or DPGW_STREAM_PASSWORD)' });
  }
  if (all.some((e) => e.code === 'PLT_KFK_USER' && /unknown topic/i.test(e.message ?? ''))) return unknownTopic(topic, brokers);
  if (all.some((e) => e.code === 'PLT_KFK_NETWORK' || e.code === 'PLT_KFK_TIMEOUT')) {
    const detail = (all.map((e) => e.message).find((m) => m && /connection to|timeout|closed/i.test(m)) ?? 'no connection').replace(/\.$/, '');
    return new DpgwError('network', `cannot read from the brokers: ${detail}`, {
      where: brokers,
      hint: connection.username === undefined ? 'check --broker-list; a broker that asks for SASL needs --stream-user and the stream password' : 'check --broker-list and that the brokers are reachable from here',
    });
  }
  const message = all.map((e) => e.message).filter(Boolean).join(': ') || String(error);
  return new DpgwError('failure', `reading topic ${topic} failed: ${message}`, { where: brokers });
}
