/**
 * The effective settings and where each came from: flag > environment >
 * profile > default. `dpgw config` prints this; every command reads from it.
 */
import { DpgwError } from '../errors/dpgw-error.js';
import { registerSecret } from '../secrets/redaction.js';
import { configDirectory, DEFAULT_PROFILE, type ConfigValues } from './config-location.js';
import { loadConfigValues } from './config-values.js';
import { checkProfileName } from './profile-name.js';
import { unknownProfileHint } from './unknown-profile.js';
import { flagAttribute, flagName, SETTING_DEFINITIONS, type SettingKey } from './setting-definitions.js';

export type SettingSource =
  | { kind: 'flag'; name: string }
  | { kind: 'env'; name: string }
  | { kind: 'profile'; profile: string; location: string }
  | { kind: 'manifest'; location: string }
  | { kind: 'default' }
  | { kind: 'unset' };

export interface ResolvedSetting {
  key: SettingKey;
  value: string | undefined;
  source: SettingSource;
}

export interface Settings {
  profile: string;
  profileSource: SettingSource;
  config: ConfigValues;
  values: Record<SettingKey, ResolvedSetting>;
}

export interface SettingsInput {
  /** Parsed commander options (attribute names: gateway, authUrl, …, profile). */
  flags: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  /** A provision manifest's settings (by profile key), between the environment and the profile. */
  manifest?: { profile?: { value: string; location: string }; settings: Map<string, { value: string; location: string }> };
  /** A profile named but not in config.yaml is taken as one with no values yet (`dpgw login` at a terminal sets it up), not refused. */
  newProfile?: boolean;
}

export async function resolveSettings(input: SettingsInput): Promise<Settings> {
  const config = await loadConfigValues(configDirectory(input.env));
  return resolveWithConfig(input, config);
}

export function resolveWithConfig({ flags, env, manifest, newProfile }: SettingsInput, config: ConfigValues): Settings {
  const { profile, source: profileSource } = chooseProfile(flags, env, config, manifest?.profile, newProfile);
  const profileValues = config.profiles.get(profile);

  const values = {} as Record<SettingKey, ResolvedSetting>;
  for (const definition of SETTING_DEFINITIONS) {
    const fromFlag = definition.flag ? flags[flagAttribute(definition.flag)] : undefined;
    const fromEnv = definition.env ? nonEmpty(env[definition.env]) : undefined;
    const fromManifest = definition.profileKey ? manifest?.settings.get(definition.profileKey) : undefined;
    const fromProfile = definition.profileKey ? profileValues?.get(definition.profileKey) : undefined;
    let resolved: ResolvedSetting;
    if (typeof fromFlag === 'string' && fromFlag !== '') {
      resolved = { key: definition.key, value: fromFlag, source: { kind: 'flag', name: flagName(definition.flag!) } };
    } else if (fromFlag === false && definition.negatedValue !== undefined) {
      resolved = { key: definition.key, value: definition.negatedValue, source: { kind: 'flag', name: flagName(definition.flag!).replace(/^--/, '--no-') } };
    } else if (fromEnv !== undefined) {
      resolved = { key: definition.key, value: fromEnv, source: { kind: 'env', name: definition.env! } };
      if (definition.envIsSecret || definition.display === 'secret') registerSecret(fromEnv);
    } else if (fromManifest !== undefined) {
      resolved = { key: definition.key, value: fromManifest.value, source: manifestSource(fromManifest) };
    } else if (fromProfile !== undefined) {
      resolved = { key: definition.key, value: fromProfile.value, source: { kind: 'profile', profile, location: fromProfile.location } };
    } else if (definition.default !== undefined) {
      resolved = { key: definition.key, value: definition.default, source: { kind: 'default' } };
    } else {
      resolved = { key: definition.key, value: undefined, source: { kind: 'unset' } };
    }
    values[definition.key] = resolved;
  }
  return { profile, profileSource, config, values };
}

function chooseProfile(flags: Record<string, unknown>, env: NodeJS.ProcessEnv, config: ConfigValues, fromManifest?: { value: string; location: string }, newProfile = false): { profile: string; source: SettingSource } {
  let chosen: { profile: string; source: SettingSource };
  if (typeof flags.profile === 'string' && flags.profile !== '') chosen = { profile: flags.profile, source: { kind: 'flag', name: '--profile' } };
  else if (nonEmpty(env.DPGW_PROFILE)) chosen = { profile: env.DPGW_PROFILE!, source: { kind: 'env', name: 'DPGW_PROFILE' } };
  else if (fromManifest) chosen = { profile: fromManifest.value, source: manifestSource(fromManifest) };
  else if (config.currentProfile) chosen = { profile: config.currentProfile.value, source: { kind: 'profile', profile: config.currentProfile.value, location: config.currentProfile.location } };
  else return { profile: DEFAULT_PROFILE, source: { kind: 'default' } };
  if (chosen.source.kind !== 'profile') checkProfileName(chosen.profile, whereGiven(chosen.source));

  if (!config.profiles.has(chosen.profile) && !newProfile) {
    throw new DpgwError('PROFILE_NOT_FOUND', `unknown profile "${chosen.profile}" (from ${describeSource(chosen.source)})`, { where: config.path, hint: unknownProfileHint(chosen.profile, config, env) });
  }
  return chosen;
}

export function describeSource(source: SettingSource): string {
  switch (source.kind) {
    case 'flag':
      return `flag ${source.name}`;
    case 'env':
      return `env ${source.name}`;
    case 'profile':
      return `profile "${source.profile}" ${source.location}`;
    case 'manifest':
      return `manifest ${source.location}`;
    case 'default':
      return 'default';
    case 'unset':
      return 'not set';
  }
}

/** Where a setting was given, for error messages: `--gateway`, `DPGW_GATEWAY`, or file:line:column. */
export function whereSet(setting: ResolvedSetting): string {
  switch (setting.source.kind) {
    case 'flag':
    case 'env':
      return setting.source.name;
    case 'profile':
    case 'manifest':
      return setting.source.location;
    default:
      return setting.key;
  }
}

/** Where a source of a value was given, for an error line: the flag, the variable, or file:line:column. */
function whereGiven(source: SettingSource): string {
  return source.kind === 'flag' || source.kind === 'env' ? source.name : source.kind === 'profile' || source.kind === 'manifest' ? source.location : 'profile';
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** A manifest's position is read when shown: finding it costs a second parse of the manifest. */
function manifestSource(from: { location: string }): SettingSource {
  return {
    kind: 'manifest',
    get location() {
      return from.location;
    },
  };
}
