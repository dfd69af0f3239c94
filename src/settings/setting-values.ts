/** Typed, validated reads of settings for the commands that need them; each error names where the value came from. */
import { DpgwError } from '../errors/dpgw-error.js';
import { definitionOf, flagName, type SettingKey } from './setting-definitions.js';
import { whereSet, type Settings } from './resolve-settings.js';

export type UrlSettingKey = 'gateway' | 'authUrl' | 'queryEngine' | 'policyUri' | 'policyBatchedUri' | 'dashboardUrl';

/** A required http(s) URL, without a trailing slash. */
export function requireUrl(settings: Settings, key: UrlSettingKey): string {
  const setting = settings.values[key];
  if (setting.value === undefined) throw missing(key);
  let url: URL;
  try {
    url = new URL(setting.value);
  } catch {
    throw new DpgwError('usage', `"${setting.value}" is not a URL`, { where: whereSet(setting), hint: 'give an http:// or https:// URL' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DpgwError('usage', `"${setting.value}" is not an http(s) URL`, { where: whereSet(setting), hint: 'give an http:// or https:// URL' });
  }
  if (url.username || url.password) {
    throw new DpgwError('usage', 'credentials inside the URL are not accepted', { where: whereSet(setting), hint: 'remove user:password@ from the URL and use `dpgw login`' });
  }
  return setting.value.replace(/\/+$/, '');
}

/** An optional http(s) URL: undefined when not set, checked like requireUrl when set. */
export function optionalUrl(settings: Settings, key: UrlSettingKey): string | undefined {
  return settings.values[key].value === undefined ? undefined : requireUrl(settings, key);
}

export function requireValue(settings: Settings, key: SettingKey): string {
  const value = settings.values[key].value;
  if (value === undefined) throw missing(key);
  return value;
}

/** The request timeout in milliseconds. */
export function timeoutMs(settings: Settings): number {
  const setting = settings.values.timeout;
  const seconds = Number(setting.value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new DpgwError('usage', `timeout "${setting.value}" is not a number of seconds between 0 and 3600`, { where: whereSet(setting), hint: 'for example --timeout 30' });
  }
  return Math.round(seconds * 1000);
}

/** A word used inside URL paths or stream keys: letters, digits, dot, dash, underscore. */
export function requireWord(settings: Settings, key: 'streamType' | 'olapSegment' | 'policyEngine' | 'queryCatalog'): string {
  const setting = settings.values[key];
  const value = setting.value ?? '';
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value)) {
    throw new DpgwError('usage', `${key} "${value}" must be a single word of letters, digits, '.', '-' or '_'`, { where: whereSet(setting) });
  }
  return value;
}

function missing(key: SettingKey): DpgwError {
  const definition = definitionOf(key);
  const ways = [definition.flag ? flagName(definition.flag) : undefined, definition.env, definition.profileKey ? `\`dpgw config set ${definition.profileKey} …\`` : undefined].filter(Boolean);
  return new DpgwError('usage', `no ${definition.description} is set`, { where: key, hint: `set it with ${ways.join(', or ')}` });
}
