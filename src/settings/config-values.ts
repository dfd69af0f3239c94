/**
 * The config file's values, reading config.yaml with the `yaml` library only when there is
 * one (config-location.ts says why). Apart from config-location.ts, which config-file.ts
 * imports, so that the two do not import each other.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CONFIG_FILE_NAME, type ConfigValues } from './config-location.js';

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
