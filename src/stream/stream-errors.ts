/**
 * The message-stream client's errors (@platformatic/kafka) as one line a user can act
 * on — never its stack, never a secret — for reading a topic and for the stream
 * pre-flight alike.
 */
import { DpgwError } from '../errors/dpgw-error.js';
import { BrokerFrameRefused } from './broker-frames.js';
import type { StreamConnection } from './stream-connection.js';

/** A deadline of dpgw's own (--timeout) passed during `what`. */
export class DeadlineReached extends Error {
  constructor(readonly what: string) {
    super(what);
  }
}

/**
 * Keeps a connection's late 'error' event from ending the process. The client
 * (@platformatic/kafka 1.35) emits 'error' on a connection when its SASL handshake fails;
 * when the broker closed the socket first, the close already took the listeners that
 * would hear it, and an 'error' with no listener is thrown from the socket's close
 * handler — an uncaught exception after dpgw had said its one line (issue #30). The
 * failure itself still reaches dpgw through the request that was waiting for it.
 */
export function ignoreLateConnectionErrors(client: { connections: { on(event: 'connecting', listener: (payload: { connection: { on(event: 'error', listener: () => void): unknown } }) => void): unknown } }): void {
  client.connections.on('connecting', ({ connection }) => connection.on('error', () => undefined));
}

export function unknownTopic(topic: string, brokers: string): DpgwError {
  return new DpgwError('TOPIC_NOT_FOUND', `topic ${topic} does not exist on the brokers`, { where: brokers, hint: "check the topic's name: the data set's topic label (dpgw enable waits for it), or the one given with --topic" });
}

interface ClientError {
  code?: string;
  name?: string;
  message?: string;
  errors?: unknown[];
  cause?: unknown;
  apiId?: string;
}

/**
 * The client's word for a failed SASL handshake, whatever failed it: the connection
 * closing or an answer it could not parse as much as a broker without the mechanism.
 */
const HANDSHAKE_FAILED = 'Cannot find a suitable SASL mechanism.';

/**
 * An answer the client could not parse — a peer that is not a Kafka broker, or one that
 * broke off mid-answer: the parser's own TypeError or RangeError, its buffer's "Out of bounds", or an
 * answer to a request that was never sent.
 */
function isGarbage(error: ClientError): boolean {
  return (error.code === undefined && (error.name === 'TypeError' || error.name === 'RangeError')) || error.code === 'OUT_OF_BOUNDS' || error.code === 'PLT_KFK_UNEXPECTED_CORRELATION_ID';
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
    return new DpgwError('STREAM_UNREACHABLE', `reading topic ${topic} took longer than ${timeoutMs / 1000} s (${error.what})`, { where: brokers, hint: 'check the broker list, or give it more time with --timeout <seconds>' });
  }
  const all = [...nested(error)];
  // dpgw's own refusal of an answer's size (src/stream/broker-frames.ts), whatever the client made of the closed connection.
  const oversized = all.find((e): e is BrokerFrameRefused => e instanceof BrokerFrameRefused);
  if (oversized) {
    return new DpgwError('STREAM_UNREACHABLE', `cannot read from the brokers: ${oversized.message}`, {
      where: brokers,
      hint: "is it a Kafka broker's port? Each address of --broker-list must be a broker's plain listener (SASL_PLAINTEXT, PLAINTEXT without a stream user), not a TLS port or an HTTP server",
    });
  }
  // Brokers that broke the exchange (closed, reset, answered garbage) are unreachable (exit 5), even when the
  // client calls it an authentication error: only a broker's own answer refuses the stream user.
  const garbage = all.find(isGarbage);
  if (garbage) {
    return new DpgwError('STREAM_UNREACHABLE', `cannot read from the brokers: their answer is not the Kafka protocol (${garbage.message ?? garbage.name})`, {
      where: brokers,
      hint: 'check --broker-list: each address must be a Kafka broker, on its SASL_PLAINTEXT port when a stream user is set',
    });
  }
  const refused = all.some((e) => e.code === 'PLT_KFK_AUTHENTICATION' && e.message !== HANDSHAKE_FAILED);
  const noMechanism = all.some((e) => e.apiId === 'UNSUPPORTED_SASL_MECHANISM' || e.apiId === 'ILLEGAL_SASL_STATE');
  if (noMechanism && !refused) {
    return new DpgwError('STREAM_SASL_UNSUPPORTED', `the brokers do not offer SASL SCRAM-SHA-512 for stream user ${connection.username ?? '(none)'}`, { where: brokers, hint: 'check --broker-list: the address must be the brokers\' SASL_PLAINTEXT listener with SCRAM-SHA-512' });
  }
  if (refused) {
    return new DpgwError('STREAM_USER_REFUSED', `the brokers refused stream user ${connection.username ?? '(none)'} (SASL SCRAM-SHA-512)`, { where: brokers, hint: 'check --stream-user and the stream password (--stream-password or DPGW_STREAM_PASSWORD)' });
  }
  if (all.some((e) => e.code === 'PLT_KFK_USER' && /unknown topic/i.test(e.message ?? ''))) return unknownTopic(topic, brokers);
  if (all.some((e) => e.code === 'PLT_KFK_NETWORK' || e.code === 'PLT_KFK_TIMEOUT' || e.message === HANDSHAKE_FAILED)) {
    const detail = (all.map((e) => e.message).find((m) => m && /connection to|timeout|closed/i.test(m)) ?? 'no connection').replace(/\.$/, '');
    return new DpgwError('STREAM_UNREACHABLE', `cannot read from the brokers: ${detail}`, {
      where: brokers,
      hint: connection.username === undefined ? 'check --broker-list; a broker that asks for SASL needs --stream-user and the stream password' : 'check --broker-list and that the brokers are reachable from here',
    });
  }
  const message = all.map((e) => e.message).filter(Boolean).join(': ') || String(error);
  return new DpgwError('STREAM_READ_FAILED', `reading topic ${topic} failed: ${message}`, { where: brokers });
}
