import { describe, expect, it } from 'vitest';
import { type DpgwError } from '../../src/errors/dpgw-error.js';
import { parseConfigText } from '../../src/settings/config-file.js';
import { resolveWithConfig } from '../../src/settings/resolve-settings.js';
import { requireUrl, requireValue, requireWord, timeoutMs } from '../../src/settings/setting-values.js';

const config = parseConfigText('profiles:\n  default:\n    gateway: gateway.example\n    timeout: "0"\n', '/cfg/config.yaml');

function failure(run: () => unknown): DpgwError {
  try {
    run();
  } catch (error) {
    return error as DpgwError;
  }
  throw new Error('expected an error');
}

describe('validated setting values name where the bad value was given', () => {
  it('a URL from the profile, with file:line:column', () => {
    const settings = resolveWithConfig({ flags: {}, env: {} }, config);
    const error = failure(() => requireUrl(settings, 'gateway'));
    expect(error.exitCode).toBe(2);
    expect(error.toLine()).toBe('/cfg/config.yaml:3:14: "gateway.example" is not a URL — give an http:// or https:// URL');
  });

  it('a URL from a flag or the environment, and credentials in a URL', () => {
    expect(failure(() => requireUrl(resolveWithConfig({ flags: { gateway: 'ftp://x' }, env: {} }, config), 'gateway')).where).toBe('--gateway');
    expect(failure(() => requireUrl(resolveWithConfig({ flags: {}, env: { DPGW_GATEWAY: 'http://u:p@gw' } }, config), 'gateway')).message).toContain('credentials inside the URL');
    expect(requireUrl(resolveWithConfig({ flags: { gateway: 'http://gw:8080/' }, env: {} }, config), 'gateway')).toBe('http://gw:8080');
  });

  it('a missing value says how to set it', () => {
    const error = failure(() => requireValue(resolveWithConfig({ flags: {}, env: {} }, config), 'realm'));
    expect(error.hint).toBe('set it with --realm, or DPGW_REALM, or `dpgw config set realm …`');
  });

  it('timeouts and path words', () => {
    expect(failure(() => timeoutMs(resolveWithConfig({ flags: {}, env: {} }, config))).where).toBe('/cfg/config.yaml:4:14');
    expect(timeoutMs(resolveWithConfig({ flags: { timeout: '2.5' }, env: {} }, config))).toBe(2_500);
    expect(failure(() => requireWord(resolveWithConfig({ flags: { olapSegment: 'a/b' }, env: {} }, config), 'olapSegment')).where).toBe('--olap-segment');
    expect(requireWord(resolveWithConfig({ flags: {}, env: { DPGW_STREAM_TYPE: 'kafka' } }, config), 'streamType')).toBe('kafka');
  });
});
