import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, nextRetryDelay, parseRetryAfter } from '../../src/gateway/retry-policy.js';

const options = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 5_000, maxElapsedMs: 10_000 };

describe('nextRetryDelay', () => {
  it('sends a POST again only where it cannot have been carried out: 429, 503, or no connection made', () => {
    expect(nextRetryDelay('GET', { status: 503 }, 1, 0, options)).toBeGreaterThan(0);
    expect(nextRetryDelay('PUT', { status: 503 }, 1, 0, options)).toBeGreaterThan(0);
    for (const status of [429, 503]) expect(nextRetryDelay('POST', { status }, 1, 0, options)).toBeGreaterThan(0);
    for (const status of [409, 500, 502, 504]) expect(nextRetryDelay('POST', { status }, 1, 0, options)).toBeUndefined();
    expect(nextRetryDelay('POST', { errorCode: 'ECONNREFUSED' }, 1, 0, options)).toBeGreaterThan(0);
    for (const errorCode of ['ECONNRESET', 'ETIMEDOUT', 'EPIPE']) expect(nextRetryDelay('POST', { errorCode }, 1, 0, options)).toBeUndefined();
    // A kept-alive connection the server had closed: the request was never read.
    expect(nextRetryDelay('POST', { errorCode: 'ECONNRESET', reusedConnection: true }, 1, 0, options)).toBeGreaterThan(0);
    expect(nextRetryDelay('POST', { errorCode: 'ETIMEDOUT', reusedConnection: true }, 1, 0, options)).toBeUndefined();
    expect(nextRetryDelay('PATCH', { errorCode: 'ECONNRESET' }, 1, 0, options)).toBeUndefined();
  });

  it('retries idempotent methods on 429, 502, 503, 504, broken connections and timeouts, nothing else', () => {
    for (const status of [429, 502, 503, 504]) expect(nextRetryDelay('GET', { status }, 1, 0, options)).toBeDefined();
    for (const status of [400, 401, 403, 404, 409, 500, 501]) expect(nextRetryDelay('GET', { status }, 1, 0, options)).toBeUndefined();
    for (const errorCode of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']) expect(nextRetryDelay('GET', { errorCode }, 1, 0, options)).toBeDefined();
    expect(nextRetryDelay('GET', { errorCode: 'ENOTFOUND' }, 1, 0, options)).toBeUndefined();
  });

  it('rides out an outage of a server that answered before: past the attempt limit, up to outageMs', () => {
    const outage = { errorCode: 'ECONNREFUSED', answeredBefore: true };
    expect(nextRetryDelay('POST', outage, options.limit + 5, 5_000, { ...options, outageMs: 30_000 }, () => 1)).toBe(options.maxDelayMs);
    expect(nextRetryDelay('POST', outage, options.limit + 5, 29_000, { ...options, outageMs: 30_000 }, () => 1)).toBeUndefined();
    expect(nextRetryDelay('POST', { errorCode: 'ECONNREFUSED' }, options.limit + 1, 0, options)).toBeUndefined();
  });

  it('doubles the backoff ceiling with jitter between half and the whole of it', () => {
    for (const [attempt, ceiling] of [
      [1, 100],
      [2, 200],
      [3, 400],
    ] as const) {
      expect(nextRetryDelay('GET', { status: 503 }, attempt, 0, options, () => 0)).toBe(ceiling / 2);
      expect(nextRetryDelay('GET', { status: 503 }, attempt, 0, options, () => 1)).toBe(ceiling);
    }
    expect(nextRetryDelay('GET', { status: 503 }, 3, 0, { ...options, limit: 10, maxDelayMs: 300 }, () => 1)).toBe(300);
  });

  it('stops after the limit and when the time budget would be exceeded', () => {
    expect(nextRetryDelay('GET', { status: 503 }, options.limit + 1, 0, options)).toBeUndefined();
    expect(nextRetryDelay('GET', { status: 503 }, 1, 9_990, options, () => 1)).toBeUndefined();
  });

  it('waits as long as Retry-After says, unless that is longer than the longest wait', () => {
    expect(nextRetryDelay('GET', { status: 429, retryAfter: '2' }, 1, 0, options)).toBe(2_000);
    expect(nextRetryDelay('GET', { status: 503, retryAfter: '60' }, 1, 0, options)).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
