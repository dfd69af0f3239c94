/** Plain HTTP is fine on this machine (a sandbox, a tunnel); anywhere else a secret crosses the network readable. */
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i;

/** The warning for a URL that sends `what` unencrypted off this machine, or undefined. */
export function plainHttpWarning(url: string, service: string, what: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' || LOOPBACK.test(parsed.hostname)) return undefined;
  return `${service} ${parsed.origin} is plain HTTP: ${what} cross the network unencrypted; use https://`;
}
