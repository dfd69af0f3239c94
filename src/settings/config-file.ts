/**
 * config.yaml: profiles of settings. Read with positions so every complaint names
 * file:line:column; written back through the YAML document so a user's comments
 * and order survive `dpgw config set`.
 *
 *   currentProfile: dev
 *   profiles:
 *     dev:
 *       gateway: https://gateway.dev.example
 */
import { mkdir, realpath, stat } from 'node:fs/promises';
import { MB, readRegularFile } from '../files/read-regular-file.js';
import { dirname, join } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { DpgwError } from '../errors/dpgw-error.js';
import { unknownNameHint } from '../text/closest-match.js';
import { PROFILE_KEYS } from './setting-definitions.js';
import { CONFIG_FILE_NAME, type ConfigValues, type ProfileValue } from './config-location.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { cannotWrite } from '../files/file-problem.js';

export { CONFIG_FILE_NAME, DEFAULT_PROFILE, configDirectory } from './config-location.js';

export type { ProfileValue, ConfigValues } from './config-location.js';

export interface ConfigFile extends ConfigValues {
  /** The parsed document, for edits that keep comments. */
  document: Document;
}

export async function loadConfigFile(directory: string): Promise<ConfigFile> {
  const path = join(directory, CONFIG_FILE_NAME);
  let text: string;
  try {
    await refuseWritableByOthers(path);
    text = readRegularFile(path, { what: 'config file', maxBytes: 4 * MB, unreadableCode: 'CONFIG_UNREADABLE', hint: 'check its permissions, or point DPGW_CONFIG_DIR elsewhere' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { path, exists: false, profiles: new Map(), document: parseDocument('') };
    }
    throw error instanceof DpgwError ? error : new DpgwError('CONFIG_UNREADABLE', `cannot read the config file: ${(error as Error).message}`, { where: path, hint: 'check its permissions, or point DPGW_CONFIG_DIR elsewhere' });
  }
  return parseConfigText(text, path);
}

/**
 * config.yaml can name `exec:` references, which dpgw runs: a file (or a folder) that
 * another user can write would let that user run commands as this one. Refused, as ssh
 * refuses such a config. (A folder with the sticky bit, like /tmp, lets nobody replace it.)
 */
async function refuseWritableByOthers(path: string): Promise<void> {
  const target = await realpath(path);
  const file = await stat(target);
  const folder = await stat(dirname(target));
  const me = process.getuid?.();
  const problem =
    me !== undefined && file.uid !== me && file.uid !== 0
      ? `belongs to another user (uid ${file.uid})`
      : (file.mode & 0o022) !== 0
        ? `can be changed by others (mode ${(file.mode & 0o777).toString(8)})`
        : (folder.mode & 0o022) !== 0 && (folder.mode & 0o1000) === 0
          ? `is in a folder others can write to (${dirname(target)}, mode ${(folder.mode & 0o777).toString(8)})`
          : undefined;
  if (problem === undefined) return;
  throw new DpgwError('CONFIG_UNSAFE', `the config file ${problem}, and it can name commands dpgw runs (exec: references): dpgw does not use it`, {
    where: path,
    hint: (file.mode & 0o022) !== 0 ? `chmod 600 ${target}` : `move it to a folder only you can write to (chmod go-w ${dirname(target)}), or point DPGW_CONFIG_DIR elsewhere`,
  });
}

export function parseConfigText(text: string, path: string): ConfigFile {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (node: Node | null | undefined, fallbackOffset = 0): string => {
    const offset = node?.range?.[0] ?? fallbackOffset;
    const { line, col } = lineCounter.linePos(offset);
    return `${path}:${line}:${col}`;
  };
  const firstError = document.errors[0];
  if (firstError) {
    const { line, col } = lineCounter.linePos(firstError.pos[0]);
    const summary = firstError.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new DpgwError('CONFIG_INVALID', `YAML syntax error: ${summary}`, { where: `${path}:${line}:${col}`, hint: 'fix the file, or run `dpgw config set` to rewrite a value' });
  }

  const config: ConfigFile = { path, exists: true, profiles: new Map(), document };
  const root = document.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) return config;
  if (!isMap(root)) throw new DpgwError('CONFIG_INVALID', 'the config file must be a mapping with currentProfile and profiles', { where: at(root), hint: 'see README "Settings" for the format' });

  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key === 'currentProfile') {
      if (!isScalar(pair.value) || typeof pair.value.value !== 'string') {
        throw new DpgwError('CONFIG_INVALID', 'currentProfile must be a profile name', { where: at(pair.value as Node, pair.key ? (pair.key as Node).range?.[0] : 0) });
      }
      config.currentProfile = { value: pair.value.value, location: at(pair.value) };
    } else if (key === 'profiles') {
      readProfiles(pair.value as Node | null, config, at);
    } else {
      throw unknownKey(key, ['currentProfile', 'profiles'], at(pair.key as Node), 'at the top level');
    }
  }
  return config;
}

function readProfiles(node: Node | null, config: ConfigFile, at: (node: Node | null | undefined) => string): void {
  if (node === null || (isScalar(node) && node.value === null)) return;
  if (!isMap(node)) throw new DpgwError('CONFIG_INVALID', 'profiles must be a mapping from profile name to settings', { where: at(node) });
  for (const profilePair of node.items) {
    const name = isScalar(profilePair.key) ? String(profilePair.key.value) : '';
    const settings = new Map<string, ProfileValue>();
    config.profiles.set(name, settings);
    const body = profilePair.value as Node | null;
    if (body === null || (isScalar(body) && body.value === null)) continue;
    if (!isMap(body)) throw new DpgwError('CONFIG_INVALID', `profile "${name}" must be a mapping of settings`, { where: at(body) });
    for (const pair of body.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!PROFILE_KEYS.includes(key)) throw unknownKey(key, PROFILE_KEYS, at(pair.key as Node), `in profile "${name}"`);
      const value = pair.value as Node | null;
      if (!isScalar(value) || value.value === null || typeof value.value === 'object') {
        throw new DpgwError('CONFIG_INVALID', `setting "${key}" in profile "${name}" must be a single value`, { where: at(value ?? (pair.key as Node)) });
      }
      // The source text, not the parsed number: `platformVersion: 1.10` must stay "1.10".
      const raw = typeof value.source === 'string' && value.type === 'PLAIN' ? value.source : String(value.value);
      settings.set(key, { value: raw, location: at(value) });
    }
  }
}

function unknownKey(key: string, known: readonly string[], where: string, context: string): DpgwError {
  return new DpgwError('CONFIG_INVALID', `unknown key "${key}" ${context}`, { where, hint: unknownNameHint(key, known) });
}

/** Set (value) or remove (undefined) a profile key; optionally make the profile current. */
export function editProfile(config: ConfigFile, profile: string, key: string, value: string | undefined): void {
  if (value === undefined) {
    config.document.deleteIn(['profiles', profile, key]);
  } else {
    ensureMap(config.document, ['profiles']);
    ensureMap(config.document, ['profiles', profile]);
    config.document.setIn(['profiles', profile, key], value);
  }
}

export function setCurrentProfile(config: ConfigFile, profile: string): void {
  if (config.document.contents === null || !isMap(config.document.contents)) config.document.contents = config.document.createNode({}) as never;
  config.document.set('currentProfile', profile);
}

function ensureMap(document: Document, path: string[]): void {
  if (document.contents === null || !isMap(document.contents)) document.contents = document.createNode({}) as never;
  const existing = document.getIn(path, true);
  if (!isMap(existing)) document.setIn(path, document.createNode({}));
}

/** Atomic write: a crash never leaves a half-written config; 0600 because it may name secret sources. */
export async function saveConfigFile(config: ConfigFile): Promise<void> {
  await mkdir(dirname(config.path), { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    throw cannotWrite(config.path, error);
  });
  // A config.yaml linked from a dotfiles repository is not written through (it could be a link someone else placed):
  // DPGW_CONFIG_DIR names the real folder instead.
  await writeFileAtomic(config.path, config.document.toString(), 0o600, { linkHint: "remove the link, or point DPGW_CONFIG_DIR at the folder of the file it leads to" });
}
