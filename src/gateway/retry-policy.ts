/**
 * When to send a request again: only when the request cannot have been carried out twice
 * by it, on answers that say "try later" or on connections that failed before an answer;
 * the wait grows exponentially with full jitter and honours Retry-After, and the whole
 * affair is bounded both in attempts and in elapsed time.
 *
 * - Idempotent methods (GET, PUT, DELETE, …): on 429, 502, 503, 504, a broken connection
 *   and a timeout.
 * - POST (not idempotent): only where the server says it did nothing — 429 (throttled)
 *   and 503 (unavailable) — or never got the request: no connection was made (refused,
 *   no route, no name), or a kept-alive connection the server had already closed was
 *   reset (as Node's documentation advises for `reusedSocket`). Never after a timeout
 *   or a reset of a new connection: the POST may have been carried out. A 409 is an
 *   answer ("exists"), never retried.
 * - A server that answered before and now cannot be reached is in an outage: the
 *   attempts go on, bounded by `outageMs` instead of `limit`, so a run rides out a
 *   restart of the gateway instead of failing every data set in a few seconds.
 */

export interface RetryOptions {
  /** Retries after the first attempt. */
  limit: number;
  /** First backoff step; later ones double. */
  baseDelayMs: number;
  /** No single wait is longer than this, Retry-After included. */
  maxDelayMs: number;
  /** No retry starts later than this after the first attempt. */
  maxElapsedMs: number;
  /** During an outage (no connection to a server that answered before), retries go on until this long after the first attempt. */
  outageMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { limit: 5, baseDelayMs: 200, maxDelayMs: 10_000, maxElapsedMs: 60_000, outageMs: 30_000 };

export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
export const RETRIABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
/** Statuses by which a server says it did not carry the request out: safe to send any method again. */
export const NOT_CARRIED_OUT_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/** No connection was made: nothing was sent, whatever the method. */
export const NOT_CONNECTED_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);
/** Failures where no answer arrived and the connection, not the server's logic, broke. */
export const RETRIABLE_ERROR_CODES: ReadonlySet<string> = new Set([...NOT_CONNECTED_CODES, 'ECONNRESET', 'EPIPE', 'ENOTCONN', 'ETIMEDOUT']);

export type AttemptOutcome =
  | { status: number; retryAfter?: string }
  | {
      errorCode: string;
      answeredBefore?: boolean;
      /** Sent on a kept-alive connection that broke before any answer: the server had closed it (it restarted, or timed the connection out) and read nothing. */
      reusedConnection?: boolean;
    };

/** How a kept-alive connection the server has closed fails a request written to it. */
const CLOSED_CONNECTION_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE']);

/**
 * The wait before the next attempt, or undefined to give up.
 * @param attempt 1 for the first retry
 */
export function nextRetryDelay(
  method: string,
  outcome: AttemptOutcome,
  attempt: number,
  elapsedMs: number,
  options: RetryOptions,
  random: () => number = Math.random,
): number | undefined {
  const idempotent = IDEMPOTENT_METHODS.has(method.toUpperCase());
  const retriable =
    'status' in outcome
      ? (idempotent ? RETRIABLE_STATUSES : NOT_CARRIED_OUT_STATUSES).has(outcome.status)
      : (idempotent ? RETRIABLE_ERROR_CODES : NOT_CONNECTED_CODES).has(outcome.errorCode) || (outcome.reusedConnection === true && CLOSED_CONNECTION_CODES.has(outcome.errorCode));
  if (!retriable) return undefined;
  const outage = 'errorCode' in outcome && outcome.answeredBefore === true && NOT_CONNECTED_CODES.has(outcome.errorCode);
  if (!outage && attempt > options.limit) return undefined;

  let delay: number;
  const told = 'status' in outcome ? parseRetryAfter(outcome.retryAfter) : undefined;
  if (told !== undefined) {
    delay = told;
  } else {
    const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
    // Full jitter: spreads retries of many clients (provision runs in parallel).
    delay = Math.round(ceiling / 2 + (random() * ceiling) / 2);
  }
  if (delay > options.maxDelayMs) return undefined;
  if (elapsedMs + delay > (outage ? options.outageMs : options.maxElapsedMs)) return undefined;
  return delay;
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
