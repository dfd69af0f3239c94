/** The claims of a JWT, read without verifying it: for showing who is signed in, never for trusting it. */
export interface AccessClaims {
  preferred_username?: string;
  sub?: string;
  groups?: string[];
  iss?: string;
  aud?: string | string[];
  exp?: number;
  scope?: string;
}

export function readClaims(token: string): AccessClaims | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as AccessClaims;
    return typeof claims === 'object' && claims !== null ? claims : undefined;
  } catch {
    return undefined;
  }
}
