/**
 * Where config.yaml lives and what settings read from it, without the YAML library:
 * every command resolves its settings, and most runs in CI have no config file at all,
 * so the `yaml` library (114 KB of bundle) is loaded only when there is one to read
 * (resolve-settings.ts; docs/benchmarks.md, "Catalog listing").
 */
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const CONFIG_FILE_NAME = 'config.yaml';
export const DEFAULT_PROFILE = 'default';

export interface ProfileValue {
  value: string;
  /** file:line:column of the value. */
  location: string;
}

/** config.yaml's profiles, as settings read them (config-file.ts's ConfigFile adds the document, for edits). */
export interface ConfigValues {
  path: string;
  exists: boolean;
  currentProfile?: ProfileValue;
  profiles: Map<string, Map<string, ProfileValue>>;
}

/** DPGW_CONFIG_DIR, else $XDG_CONFIG_HOME/dpgw, else ~/.config/dpgw. */
export function configDirectory(env: NodeJS.ProcessEnv): string {
  if (env.DPGW_CONFIG_DIR) return env.DPGW_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'dpgw');
  return join(env.HOME || homedir(), '.config', 'dpgw');
}

/**
 * The config file's values: none when no file is there (what config-file.ts's loadConfigFile
 * answers then), else the file read by it. Anything but "no such file" — a folder in the
 * way, a permission — is left to loadConfigFile, which reports it as before.
 */
export async function loadConfigValues(directory: string): Promise<ConfigValues> {
  const path = join(directory, CONFIG_FILE_NAME);
  try {
    await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path, exists: false, profiles: new Map() };
  }
  const { loadConfigFile } = await import('./config-file.js');
  return loadConfigFile(directory);
}
