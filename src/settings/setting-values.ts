/** Typed, validated reads of settings for the commands that need them; each error names where the value came from. */
import { DpgwError } from '../errors/dpgw-error.js';
import { missingSetting, missingSettings, type SettingKey } from './setting-definitions.js';
import { whereSet, type Settings } from './resolve-settings.js';
import { settingValueProblem, type UrlSettingKey, type WordSettingKey } from './setting-checks.js';

export type { UrlSettingKey } from './setting-checks.js';

/** A required http(s) URL, without a trailing slash. */
export function requireUrl(settings: Settings, key: UrlSettingKey): string {
  const setting = settings.values[key];
  if (setting.value === undefined) throw missingSetting(key);
  checked(settings, key, 'give an http:// or https:// URL');
  return setting.value.replace(/\/+$/, '');
}

/** Throws the setting's problem (setting-checks.ts), naming where the value was set. */
function checked(settings: Settings, key: SettingKey, hint?: string): string {
  const setting = settings.values[key];
  const problem = settingValueProblem(key, setting.value ?? '');
  if (problem !== undefined) throw new DpgwError('SETTING_INVALID', problem, { where: whereSet(setting), hint });
  return setting.value ?? '';
}

/** An optional http(s) URL: undefined when not set, checked like requireUrl when set. */
export function optionalUrl(settings: Settings, key: UrlSettingKey): string | undefined {
  return settings.values[key].value === undefined ? undefined : requireUrl(settings, key);
}

export function requireValue(settings: Settings, key: SettingKey): string {
  const value = settings.values[key].value;
  if (value === undefined) throw missingSetting(key);
  return value;
}

/** The request timeout in milliseconds. */
export function timeoutMs(settings: Settings): number {
  return Math.round(Number(checked(settings, 'timeout', 'for example --timeout 30')) * 1000);
}

/** A word used inside URL paths or stream keys: letters, digits, dot, dash, underscore. */
export function requireWord(settings: Settings, key: WordSettingKey): string {
  return checked(settings, key);
}

/** A setting checked by setting-checks.ts when it is set. */
export function checkedWhenSet(settings: Settings, key: SettingKey, hint?: string): string | undefined {
  return settings.values[key].value === undefined ? undefined : checked(settings, key, hint);
}

/** Every one of `keys` is set, or one error naming all that are not (missingSettings), before any of them is read. */
export function requireSettings(settings: Settings, keys: readonly SettingKey[], hint?: string): void {
  const unset = keys.filter((key) => settings.values[key].value === undefined);
  if (unset.length > 0) throw missingSettings(unset, hint);
}
