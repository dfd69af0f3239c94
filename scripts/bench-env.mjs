// The environment of a dpgw process a bench:* script measures: nothing of the developer's
// (a private home, config and cache under `work`), and the peak-RSS reporter preloaded
// (scripts/report-rss.cjs writes to `rssFile`), plus the settings the bench gives.
import { spawn } from 'node:child_process';
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
    // Where scripts/cpu-profile.cjs writes, when BENCH_NODE_OPTIONS preloads it.
    ...(process.env.DPGW_CPU_PROFILE_DIR ? { DPGW_CPU_PROFILE_DIR: process.env.DPGW_CPU_PROFILE_DIR } : {}),
    NODE_OPTIONS: [`--require=${JSON.stringify(join(root, 'scripts/report-rss.cjs'))}`, nodeOptions].join(' ').trim(),
  };
}

/** The settings of the admin who provisions on a sandbox, as a pipeline sets them. */
export function sandboxAdminSettings(sandbox) {
  const admin = sandbox.users.find((u) => u.username === 'admin');
  return {
    DPGW_GATEWAY: sandbox.gatewayUrl,
    DPGW_AUTH_URL: sandbox.authUrl,
    DPGW_REALM: sandbox.realm,
    DPGW_CLIENT_ID: sandbox.clientId,
    DPGW_CLIENT_SECRET: sandbox.clientSecret,
    DPGW_USERNAME: admin.username,
    DPGW_PASSWORD: admin.password,
    DPGW_BROKER_LIST: sandbox.stream.brokerList,
    DPGW_REGISTRY_URL: sandbox.stream.registryUrl,
    DPGW_STREAM_USER: sandbox.stream.user,
    DPGW_STREAM_PASSWORD: sandbox.stream.password,
  };
}

/**
 * Runs the binary as a user's shell does (its #! line carries dpgw's V8 flags), collecting its output.
 * `checkout`: another built checkout of dpgw to run instead (a side-by-side with a baseline).
 */
export function runBinary(args, env, checkout = root) {
  return new Promise((resolve) => {
    const child = spawn(join(checkout, 'bin/dpgw'), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
