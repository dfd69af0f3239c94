import { homedir } from 'node:os';
import { join } from 'node:path';

/** dpgw's cache folder (tokens, Tab-completion names): $XDG_CACHE_HOME/dpgw, else ~/.cache/dpgw. */
export function cacheDirectory(env: NodeJS.ProcessEnv): string {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'dpgw');
  return join(env.HOME || homedir(), '.cache', 'dpgw');
}
