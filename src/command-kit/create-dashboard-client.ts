import { SupersetClient } from '../dashboard/superset-client.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { plainHttpWarning } from '../net/plain-http.js';
import { certificateAuthorities } from '../net/trust-and-proxy.js';
import type { Reporter } from '../output/reporter.js';
import { resolveSecretReference } from '../secrets/secret-reference.js';
import { whereSet, type Settings } from '../settings/resolve-settings.js';
import { missingSettings } from '../settings/setting-definitions.js';
import { requireUrl, requireValue, timeoutMs } from '../settings/setting-values.js';
import type { Io } from '../output/io.js';
import { VERSION } from './version.js';

/** The dashboard tool's client for a profile's settings: its URL, user and password (a reference, DPGW_DASHBOARD_PASSWORD, or a prompt). */
export async function createDashboardClient(settings: Settings, reporter: Reporter, io: Io, prompt?: (message: string) => Promise<string>): Promise<SupersetClient> {
  // Every setting the dashboard tool needs, named at once when several are missing (the password too, with no one to ask).
  const unset = (['dashboardUrl', 'dashboardUser'] as const).filter((key) => settings.values[key].value === undefined);
  if (unset.length > 0) throw missingSettings(!prompt && settings.values.dashboardPassword.value === undefined ? [...unset, 'dashboardPassword'] : unset);
  const url = requireUrl(settings, 'dashboardUrl');
  const username = requireValue(settings, 'dashboardUser');
  const setting = settings.values.dashboardPassword;
  let password: string;
  if (setting.value === undefined) {
    if (!prompt) throw new DpgwError('SETTING_MISSING', `no dashboard password is set for ${username}`, { where: 'dashboardPassword', hint: 'set DPGW_DASHBOARD_PASSWORD, or --dashboard-password <reference> (env:, file:, exec:)' });
    password = await prompt(`Password of ${username} at ${url}:`);
  } else {
    password = setting.source.kind === 'env' ? setting.value : await resolveSecretReference(setting.value, { where: whereSet(setting), env: io.env, label: 'dashboard password', prompt });
  }
  const trace = reporter.options.verbose ? (line: string) => reporter.trace(line) : undefined;
  const unencrypted = plainHttpWarning(url, 'the dashboard tool', 'the dashboard password and its session');
  if (unencrypted) reporter.warn(unencrypted);
  return new SupersetClient({
    baseUrl: url,
    username,
    password,
    timeoutMs: timeoutMs(settings),
    certificateAuthorities: certificateAuthorities(settings.values.caFile.value, whereSet(settings.values.caFile), io.env),
    trace,
    userAgent: `dpgw/${VERSION}`,
  });
}
