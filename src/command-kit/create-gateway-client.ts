import { sessionTokenSupplier } from '../auth/session.js';
import { GatewayClient } from '../gateway/gateway-client.js';
import { plainHttpWarning } from '../net/plain-http.js';
import { certificateAuthorities } from '../net/trust-and-proxy.js';
import type { Reporter } from '../output/reporter.js';
import { whereSet, type Settings } from '../settings/resolve-settings.js';
import { requireUrl, requireWord, timeoutMs } from '../settings/setting-values.js';
import { sessionOptionsOf } from '../settings/core-options.js';
import type { Io } from '../output/io.js';
import { VERSION } from './version.js';

/** The gateway client a command uses, configured from the effective settings; tokens from the session. */
export function createGatewayClient(settings: Settings, reporter: Reporter, io: Io, prompt?: (message: string) => Promise<string>): GatewayClient {
  const trace = reporter.options.verbose ? (line: string) => reporter.trace(line) : undefined;
  const baseUrl = requireUrl(settings, 'gateway');
  const unencrypted = plainHttpWarning(baseUrl, 'the gateway', 'the bearer token and the stream password');
  if (unencrypted) reporter.warn(unencrypted);
  return new GatewayClient({
    baseUrl,
    timeoutMs: timeoutMs(settings),
    olapSegment: requireWord(settings, 'olapSegment'),
    tokenSupplier: sessionTokenSupplier({ session: sessionOptionsOf(settings, io.env), env: io.env, warn: (message) => reporter.warn(message), info: (message) => reporter.info(message), trace, prompt }),
    certificateAuthorities: certificateAuthorities(settings.values.caFile.value, whereSet(settings.values.caFile), io.env),
    trace,
    userAgent: `dpgw/${VERSION}`,
  });
}
