/** accessTokenExpiry (issue #30): the access token's expiry on this machine's clock, and the provider's clock skew when it is beyond 30 s. */
import { describe, expect, it } from 'vitest';
import { accessTokenExpiry, CLOCK_SKEW_TOLERANCE_MS } from '../../src/auth/identity-client.js';

const token = (claims: Record<string, number>) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;
const SENT = Date.parse('2025-03-01T12:00:00.250Z');

describe('accessTokenExpiry', () => {
  it('agreeing clocks: the earlier of exp and expires_in from sending, no skew', () => {
    const iat = Math.floor(SENT / 1000);
    expect(accessTokenExpiry({ access_token: token({ iat, exp: iat + 300 }), expires_in: 300 }, SENT, SENT + 100)).toEqual({ expiresAt: (iat + 300) * 1000 });
    // 20 s off is within the tolerance: exp counts as it is.
    expect(accessTokenExpiry({ access_token: token({ iat: iat - 20, exp: iat + 280 }), expires_in: 300 }, SENT, SENT + 100)).toEqual({ expiresAt: (iat + 280) * 1000 });
  });

  it('a slow answer is no skew: iat anywhere between sending and receipt', () => {
    const iat = Math.floor((SENT + 45_000) / 1000);
    expect(accessTokenExpiry({ access_token: token({ iat, exp: iat + 300 }), expires_in: 300 }, SENT, SENT + 90_000).clockSkewMs).toBeUndefined();
  });

  it('a provider behind: exp translated to this machine\'s clock, capped by expires_in, the skew to the second', () => {
    const iat = Math.floor((SENT - 303_000) / 1000);
    const result = accessTokenExpiry({ access_token: token({ iat, exp: iat + 300 }), expires_in: 300 }, SENT, SENT + 200);
    expect(result.clockSkewMs).toBe(-303_000);
    expect(result.expiresAt).toBeGreaterThan(SENT + 298_000);
    expect(result.expiresAt).toBeLessThanOrEqual(SENT + 300_000);
    // A token shorter than expires_in says: its own lifetime counts.
    const short = accessTokenExpiry({ access_token: token({ iat, exp: iat + 60 }), expires_in: 300 }, SENT, SENT + 200);
    expect(short.expiresAt).toBeLessThanOrEqual(SENT + 60_000);
    expect(short.expiresAt).toBeGreaterThan(SENT + 58_000);
  });

  it('a provider ahead: expires_in counts, the skew is positive', () => {
    const iat = Math.floor((SENT + 3_600_000) / 1000);
    const result = accessTokenExpiry({ access_token: token({ iat, exp: iat + 300 }), expires_in: 300 }, SENT, SENT + 200);
    expect(result.clockSkewMs).toBe(3_600_000);
    expect(result.expiresAt).toBeLessThanOrEqual(SENT + 300_000);
    expect(result.expiresAt).toBeGreaterThan(SENT + 298_000);
  });

  it('no iat and an exp already past: expires_in is trusted, the skew unknown', () => {
    const exp = Math.floor((SENT - 60_000) / 1000);
    expect(accessTokenExpiry({ access_token: token({ exp }), expires_in: 300 }, SENT, SENT + 200)).toEqual({ expiresAt: SENT + 300_000, clockSkewMs: 'unknown' });
  });

  it('an opaque token: expires_in from sending', () => {
    expect(accessTokenExpiry({ access_token: 'opaque', expires_in: 120 }, SENT, SENT + 200)).toEqual({ expiresAt: SENT + 120_000 });
    expect(CLOCK_SKEW_TOLERANCE_MS).toBe(30_000);
  });
});
