/** `dpgw config`: the effective settings with their sources, and profile edits. */
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { ConfigShowCommand, ConfigSetCommand, ConfigUnsetCommand, ConfigUseCommand, ConfigProfilesCommand, ConfigPathCommand } from './config.flags.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { MASK } from '../../secrets/redaction.js';
import { isSecretReference } from '../../secrets/secret-reference.js';
import { settingValueProblem } from '../../settings/setting-checks.js';
import { join } from 'node:path';
import { CONFIG_FILE_NAME, configDirectory, DEFAULT_PROFILE, editProfile, loadConfigFile, saveConfigFile, setCurrentProfile } from '../../settings/config-file.js';
import { describeSource } from '../../settings/resolve-settings.js';
import { checkProfileName } from '../../settings/profile-name.js';
import { PROFILE_KEYS, SETTING_DEFINITIONS, type SettingKey } from '../../settings/setting-definitions.js';
import { unknownNameHint } from '../../text/closest-match.js';
import { unknownProfileHint } from '../../settings/unknown-profile.js';
import { Questions } from '../shared/questions.js';
import { askProfile } from '../shared/profile-question.js';

export const show: HandlerOf<ConfigShowCommand> = async (context) => {
  const settings = await context.settings();
  const rows = SETTING_DEFINITIONS.map((definition) => {
    const resolved = settings.values[definition.key];
    // A value from the environment for clientSecret is the secret itself; a reference (env:, file:, exec:) is not
    // secret, and anything else where a reference belongs is taken for the secret (a hand-edited config.yaml).
    const secret = definition.display === 'secret' || (definition.envIsSecret === true && resolved.source.kind === 'env') || (definition.display === 'reference' && resolved.value !== undefined && !isSecretReference(resolved.value));
    const value = resolved.value === undefined ? null : secret ? MASK : resolved.value;
    return { key: definition.key, value, source: describeSource(resolved.source) };
  });
  const data = {
    configFile: settings.config.path,
    configFileExists: settings.config.exists,
    profile: settings.profile,
    profileSource: describeSource(settings.profileSource),
    settings: Object.fromEntries(rows.map((row) => [row.key, { value: row.value, source: row.source }])),
  };
  return {
    data,
    human: (style) => {
      const width = Math.max(...rows.map((row) => row.key.length));
      const valueWidth = Math.min(48, Math.max(...rows.map((row) => String(row.value ?? '-').length)));
      const lines = [
        `${style.bold('profile')} ${settings.profile} ${style.dim(`(${describeSource(settings.profileSource)})`)}`,
        `${style.bold('config')}  ${settings.config.path}${settings.config.exists ? '' : style.dim(' (not created yet)')}`,
        '',
        ...rows.map((row) => `${row.key.padEnd(width)}  ${String(row.value ?? style.dim('-')).padEnd(valueWidth)}  ${style.dim(row.source)}`),
      ];
      return lines;
    },
  };
};

function checkKey(key: string): void {
  if (PROFILE_KEYS.includes(key)) return;
  throw new DpgwError('SETTING_UNKNOWN', `unknown setting "${key}"`, { where: 'config key', hint: unknownNameHint(key, PROFILE_KEYS, 'settings') });
}

/** The profile an edit applies to: --profile, else DPGW_PROFILE, else the file's current one, else `default`. */
function targetProfile(options: { profile?: string }, env: NodeJS.ProcessEnv, current: string | undefined): string {
  if (options.profile) {
    checkProfileName(options.profile, '--profile');
    return options.profile;
  }
  if (env.DPGW_PROFILE) {
    checkProfileName(env.DPGW_PROFILE, 'DPGW_PROFILE');
    return env.DPGW_PROFILE;
  }
  return current ?? DEFAULT_PROFILE;
}

export const set: HandlerOf<ConfigSetCommand> = async (context) => {
  const [key, value] = context.args;
  checkKey(key);
  const problem = settingValueProblem(key as SettingKey, value);
  if (problem !== undefined) throw new DpgwError('SETTING_INVALID', problem, { where: `config set ${key}`, hint: 'nothing was written' });
  const config = await loadConfigFile(configDirectory(context.io.env));
  const profile = targetProfile(context.options, context.io.env, config.currentProfile?.value);
  const previous = config.profiles.get(profile)?.get(key)?.value;
  editProfile(config, profile, key, value);
  if (!config.currentProfile && config.profiles.size === 0) setCurrentProfile(config, profile);
  await saveConfigFile(config);
  context.reporter.success(`${key} set in profile "${profile}" (${config.path})`);
  return { data: { profile, key, value, previous: previous ?? null, configFile: config.path }, human: () => [] };
};

export const unset: HandlerOf<ConfigUnsetCommand> = async (context) => {
  const [key] = context.args;
  checkKey(key);
  const config = await loadConfigFile(configDirectory(context.io.env));
  const profile = targetProfile(context.options, context.io.env, config.currentProfile?.value);
  const previous = config.profiles.get(profile)?.get(key)?.value;
  if (previous === undefined) {
    context.reporter.info(`${key} was not set in profile "${profile}"; nothing changed`);
  } else {
    editProfile(config, profile, key, undefined);
    await saveConfigFile(config);
    context.reporter.success(`${key} removed from profile "${profile}"`);
  }
  return { data: { profile, key, previous: previous ?? null, changed: previous !== undefined }, human: () => [] };
};

export const use: HandlerOf<ConfigUseCommand> = async (context) => {
  const questions = new Questions(context);
  questions.require([{ flag: '<profile>', given: context.args[0] }]);
  const config = await loadConfigFile(configDirectory(context.io.env));
  const profile = await questions.operand('<profile>', context.args[0], () => askProfile(context, config));
  questions.done();
  checkProfileName(profile, 'config use');
  if (!config.profiles.has(profile)) {
    throw new DpgwError('PROFILE_NOT_FOUND', `unknown profile "${profile}"`, { where: config.path, hint: unknownProfileHint(profile, config, context.io.env) });
  }
  setCurrentProfile(config, profile);
  await saveConfigFile(config);
  context.reporter.success(`profile "${profile}" is now current`);
  return { data: { currentProfile: profile }, human: () => [] };
};

export const profiles: HandlerOf<ConfigProfilesCommand> = async (context) => {
  const config = await loadConfigFile(configDirectory(context.io.env));
  const current = config.currentProfile?.value ?? DEFAULT_PROFILE;
  const list = [...config.profiles.keys()].map((name) => ({ name, current: name === current, keys: [...(config.profiles.get(name)?.keys() ?? [])] }));
  return {
    data: { configFile: config.path, profiles: list },
    human: (style) => (list.length === 0 ? [style.dim('no profiles yet: `dpgw config set gateway <url>` creates one')] : list.map((p) => `${p.current ? '*' : ' '} ${p.name}`)),
  };
};

export const path: HandlerOf<ConfigPathCommand> = async (context) => {
  const file = join(configDirectory(context.io.env), CONFIG_FILE_NAME);
  return { data: { configFile: file }, human: () => [file] };
};

