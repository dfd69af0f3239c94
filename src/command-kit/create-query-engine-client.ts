import { sessionTokenSupplier } from '../auth/session.js';
import { plainHttpWarning } from '../net/plain-http.js';
import { certificateAuthorities } from '../net/trust-and-proxy.js';
import type { Reporter } from '../output/reporter.js';
import { StatementClient } from '../query-engine/statement-client.js';
import { whereSet, type Settings } from '../settings/resolve-settings.js';
import { requireUrl, requireWord, timeoutMs } from '../settings/setting-values.js';
import { sessionOptionsOf } from '../settings/core-options.js';
import type { Io } from '../output/io.js';
import { VERSION } from './version.js';

/** The query engine's statement client for a profile's settings: the session's token, the CA file, the timeout. */
export function createQueryEngineClient(settings: Settings, reporter: Reporter, io: Io): StatementClient {
  const trace = reporter.options.verbose ? (line: string) => reporter.trace(line) : undefined;
  const baseUrl = requireUrl(settings, 'queryEngine');
  const unencrypted = plainHttpWarning(baseUrl, 'the query engine', 'the bearer token and the rows');
  if (unencrypted) reporter.warn(unencrypted);
  return new StatementClient({
    baseUrl,
    catalog: requireWord(settings, 'queryCatalog'),
    timeoutMs: timeoutMs(settings),
    tokenSupplier: sessionTokenSupplier({ session: sessionOptionsOf(settings, io.env), env: io.env, warn: (message) => reporter.warn(message), trace }),
    certificateAuthorities: certificateAuthorities(settings.values.caFile.value, whereSet(settings.values.caFile), io.env),
    trace,
    userAgent: `dpgw/${VERSION}`,
  });
}
