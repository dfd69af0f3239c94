/**
 * What each setting's value must look like, in one place: the typed reads of
 * setting-values.ts (for flags, the environment, profiles and manifests) and
 * `dpgw config set` (before it writes) ask here, so a value `config set` accepts is
 * one every command accepts, and the reverse.
 */
import { isVersion } from '../contract/platform-version.js';
import { isSecretReference, notAReference } from '../secrets/secret-reference.js';
import { GRANTS } from '../auth/grants.js';
import { STREAM_CHECK_MODES } from '../stream/stream-check-mode.js';
import { holdsControlCharacter } from '../text/terminal-text.js';
import { definitionOf, type SettingKey } from './setting-definitions.js';

/** The settings that hold an http(s) URL. */
export const URL_SETTING_KEYS = ['gateway', 'authUrl', 'queryEngine', 'policyUri', 'policyBatchedUri', 'dashboardUrl'] as const satisfies readonly SettingKey[];
export type UrlSettingKey = (typeof URL_SETTING_KEYS)[number];
/** The settings that are one word, used inside URL paths or stream keys. */
export const WORD_SETTING_KEYS = ['streamType', 'olapSegment', 'policyEngine', 'queryCatalog'] as const satisfies readonly SettingKey[];
export type WordSettingKey = (typeof WORD_SETTING_KEYS)[number];
const URL_KEYS: ReadonlySet<SettingKey> = new Set(URL_SETTING_KEYS);
const WORD_KEYS: ReadonlySet<SettingKey> = new Set(WORD_SETTING_KEYS);
/** host:port, host names or IPv4, or [IPv6]:port. */
const BROKER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/;
export const MAX_TIMEOUT_SECONDS = 3600;

/** A table's retention, as the setting and as the filled template's retentionTimeValue. */
export function isRetentionDays(days: unknown): boolean {
  return typeof days === 'number' && Number.isInteger(days) && days > 0;
}

/** The settings whose values have a shape of their own (the others take any text without a control character). */
const VALUE_PROBLEMS: Partial<Record<SettingKey, (value: string) => string | undefined>> = {
  timeout: (value) => {
    const seconds = Number(value);
    return value.trim() !== '' && Number.isFinite(seconds) && seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS
      ? undefined
      : `timeout "${value}" is not a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS} (0 would mean no request could ever finish)`;
  },
  retentionDays: (value) => (/^\d+$/.test(value.trim()) && isRetentionDays(Number(value)) ? undefined : `retentionDays "${value}" is not a whole number of days from 1`),
  grant: (value) => ((GRANTS as readonly string[]).includes(value) ? undefined : `grant "${value}" is not password, client-credentials or device`),
  streamCheck: (value) => ((STREAM_CHECK_MODES as readonly string[]).includes(value) ? undefined : `stream check "${value}" is not ${STREAM_CHECK_MODES.join(', ').replace(/, (\w+)$/, ' or $1')}`),
  clientAuth: (value) => (value === 'post' || value === 'basic' ? undefined : `client authentication "${value}" is not post or basic`),
  platformVersion: (value) => (isVersion(value) ? undefined : `platform version "${value}" is not a version such as 1.15.164`),
  brokerList: (value) => brokerListProblem(value),
  // A bearer token is one run of token68 characters (RFC 6750); a space would split the header.
  token: (value) => (/\s/.test(value) ? 'the token holds a space; a bearer token has none (copy it again, without what surrounds it)' : undefined),
};

/** Why the value does not fit the setting, or undefined when it does. The message never repeats a secret. */
export function settingValueProblem(key: SettingKey, value: string): string | undefined {
  // No setting holds a line break: written into a JAAS line, a properties file or a header, one forges the lines after it.
  if (holdsControlCharacter(value)) return `${key === 'token' ? 'the token' : key} holds a line break or another control character, which no value of it may hold`;
  if (definitionOf(key).display === 'reference') return isSecretReference(value) ? undefined : notAReference(key);
  if (URL_KEYS.has(key)) return urlProblem(value);
  if (WORD_KEYS.has(key)) return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value) ? undefined : `${key} "${value}" must be a single word of letters, digits, '.', '-' or '_'`;
  return VALUE_PROBLEMS[key]?.(value);
}

function urlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${value}" is not an http(s) URL`;
  // WHATWG URL parsing turns `\` into `/` and drops spaces at the ends: the URL sent would not be the one given, and a
  // properties file reads a trailing `\` as "continued on the next line".
  if (/[\s\\]/.test(value)) return `"${value}" holds a space or a backslash, which a URL does not (percent-encode it: %20, %5C)`;
  if (url.username || url.password) return 'credentials inside the URL are not accepted: remove user:password@ and use `dpgw login`';
  return undefined;
}

function brokerListProblem(value: string): string | undefined {
  const brokers = value
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean);
  const bad = brokers.find((broker) => !BROKER.test(broker) || Number(BROKER.exec(broker)![2]) > 65535);
  if (brokers.length === 0 || bad !== undefined) return `broker "${bad ?? value}" is not host:port`;
  return undefined;
}
