import { GatewayClient } from '../gateway/gateway-client.js';
import type { TokenSupplier } from '../gateway/http-transport.js';
import type { Reporter } from '../output/reporter.js';
import type { Settings } from '../settings/resolve-settings.js';
import { requireUrl, requireWord, timeoutMs } from '../settings/setting-values.js';
import { VERSION } from './version.js';

/** The gateway client a command uses, configured from the effective settings. */
export function createGatewayClient(settings: Settings, reporter: Reporter): GatewayClient {
  return new GatewayClient({
    baseUrl: requireUrl(settings, 'gateway'),
    timeoutMs: timeoutMs(settings),
    olapSegment: requireWord(settings, 'olapSegment'),
    tokenSupplier: environmentTokenSupplier(settings),
    trace: reporter.options.verbose ? (line) => reporter.trace(line) : undefined,
    userAgent: `dpgw/${VERSION}`,
  });
}

/** DPGW_TOKEN, a raw bearer for pipelines; the login cache joins here with `dpgw login`. */
function environmentTokenSupplier(settings: Settings): TokenSupplier {
  const token = settings.values.token.value;
  return async () => token;
}
