/**
 * Where config.yaml lives and what settings read from it, without the YAML library:
 * every command resolves its settings, and most runs in CI have no config file at all,
 * so the `yaml` library (114 KB of bundle) is loaded only when there is one to read
 * (resolve-settings.ts; docs/benchmarks.md, "Catalog listing"). The file's values are read by
 * config-values.ts, which imports config-file.ts only when there is a file: config-file.ts
 * imports the names here, so this module imports nothing of it.
 */
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
