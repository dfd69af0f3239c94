// The browser of the end-to-end tier: Debian's `chromium` package, driven headless by
// puppeteer-core (test/e2e/device-sign-in-browser.test.ts). Installed with apt-get only when
// /usr/bin/chromium is missing; a machine where that cannot be done fails with the reason.
// Debian's build rather than a browser downloaded by a test library: only the package
// registries are reachable here, and a distribution's browser is the one a person has.
//
//   node scripts/platform/chromium.mjs    # installs it when missing; prints its path and version
import { existsSync } from 'node:fs';
import { runToEnd } from './component-process.mjs';

export const CHROMIUM = process.env.DPGW_CHROMIUM ?? '/usr/bin/chromium';

/** The path of a working Chromium, installed from Debian's packages when missing. */
export async function chromiumExecutable() {
  if (!existsSync(CHROMIUM)) {
    if (process.env.DPGW_CHROMIUM) throw new Error(`DPGW_CHROMIUM names ${CHROMIUM}, which does not exist`);
    if (typeof process.getuid === 'function' && process.getuid() !== 0) {
      throw new Error(`${CHROMIUM} is missing and installing it needs root: run \`apt-get update && apt-get install -y chromium\` as root, or set DPGW_CHROMIUM to a Chromium or Chrome`);
    }
    // The package lists first: a fresh machine has none, and an old list may name a removed version.
    const update = await runToEnd('apt-get', ['update']);
    if (update.status !== 0) throw new Error(`apt-get update failed (exit ${update.status}), so Chromium cannot be installed: ${lastLines(update.stderr)}`);
    const install = await runToEnd('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (install.status !== 0) throw new Error(`apt-get install chromium failed (exit ${install.status}): ${lastLines(install.stderr || install.stdout)}`);
    if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is still missing`);
  }
  const version = await runToEnd(CHROMIUM, ['--headless', '--no-sandbox', '--version']);
  if (version.status !== 0) throw new Error(`${CHROMIUM} --version failed (exit ${version.status}): ${lastLines(version.stderr)}`);
  return { executable: CHROMIUM, version: version.stdout.trim() };
}

function lastLines(text) {
  return text.trim().split('\n').slice(-5).join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { executable, version } = await chromiumExecutable();
  console.log(`${executable}: ${version}`);
}
