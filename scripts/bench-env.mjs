// The environment of a dpgw process a bench:* script measures: nothing of the developer's
// (a private home, config and cache under `work`), and the peak-RSS reporter preloaded
// (scripts/report-rss.cjs writes to `rssFile`), plus the settings the bench gives.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export function measuredEnv(work, rssFile, settings, nodeOptions = '') {
  return {
    PATH: process.env.PATH,
    HOME: work,
    DPGW_CONFIG_DIR: join(work, 'config'),
    XDG_CACHE_HOME: join(work, 'cache'),
    ...settings,
    DPGW_BENCH_RSS_FILE: rssFile,
    NODE_OPTIONS: [`--require=${JSON.stringify(join(root, 'scripts/report-rss.cjs'))}`, nodeOptions].join(' ').trim(),
  };
}
