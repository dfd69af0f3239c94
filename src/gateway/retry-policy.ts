/**
 * When to send a request again. Only idempotent methods are retried, only on
 * answers that say "try later" or on connections that failed before an answer;
 * the wait grows exponentially with full jitter and honours Retry-After, and the
 * whole affair is bounded both in attempts and in elapsed time.
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
}

export const DEFAULT_RETRY: RetryOptions = { limit: 3, baseDelayMs: 200, maxDelayMs: 10_000, maxElapsedMs: 60_000 };

export const RETRIABLE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
export const RETRIABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
/** Failures where no answer arrived and the connection, not the server's logic, broke. */
export const RETRIABLE_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENOTCONN',
]);

export type AttemptOutcome = { status: number; retryAfter?: string } | { errorCode: string };

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
  if (!RETRIABLE_METHODS.has(method.toUpperCase())) return undefined;
  if (attempt > options.limit) return undefined;
  const retriable = 'status' in outcome ? RETRIABLE_STATUSES.has(outcome.status) : RETRIABLE_ERROR_CODES.has(outcome.errorCode);
  if (!retriable) return undefined;

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
  if (elapsedMs + delay > options.maxElapsedMs) return undefined;
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
