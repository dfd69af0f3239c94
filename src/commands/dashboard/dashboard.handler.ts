/** `dpgw dashboard`: contract step 9 in the dashboard tool, as the dashboard user of the settings. */
import type { HandlerOf } from '../../command-kit/command-definition.js';
import { Questions } from '../shared/questions.js';
import { storeTableMissing } from '../shared/store-table-missing.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { DATA_SET_FLAG, dataSetFlag } from '../shared/data-set-question.js';
import type { DashboardCommand } from './dashboard.flags.js';
import { buildDashboard } from '../../dashboard/build-dashboard.js';
import { requireName } from '../../names/platform-names.js';
import { ExitCode } from '../../errors/exit-code.js';
import { hiddenPrompt } from '../shared/prompts.js';
import { whereSet, type Settings } from '../../settings/resolve-settings.js';

export const dashboard: HandlerOf<DashboardCommand> = async (context) => {
  const { options, reporter, io } = context;
  const questions = new Questions(context);
  questions.require([{ flag: DATA_SET_FLAG, given: options.dataset }]);
  // No --enablement here: the table is named after the data set, whichever enablement holds it.
  const { dataSet } = await dataSetFlag(questions, context, options, false);
  questions.done();
  // --table is checked as a table name when given; the data set's name only when it stands in.
  const table = options.table ?? requireName('table', dataSet, '--dataset');
  const rows = options.rows;
  const settings = await context.settings();
  const prompt = context.canPrompt ? (message: string) => hiddenPrompt(context, message) : undefined;
  const { createDashboardClient } = await import('../../command-kit/create-dashboard-client.js');
  const client = await createDashboardClient(settings, reporter, io, prompt);
  try {
    const result = await buildDashboard(client, {
      table,
      rows,
      databaseName: settings.values.dashboardDatabase.value!,
      dashboardTitle: options.dashboard ?? dataSet,
      chartName: options.chart ?? `${table} positions`,
      notListedHint: notListedHint(settings, dataSet, table),
    }).catch(async (error: unknown) => {
      // Not listed: a table the store does not hold is the cause to name, not the user's groups.
      if (error instanceof DpgwError && error.errorCode === 'DASHBOARD_TABLE_NOT_VISIBLE') throw (await storeTableMissing(context, table, dataSet)) ?? error;
      throw error;
    });
    const what = (change: string) => (change === 'unchanged' ? 'found' : change);
    reporter.success(
      result.changed
        ? `${what(result.dataSet.change)} data set ${result.dataSet.name}, ${what(result.dashboard.change)} dashboard "${result.dashboard.title}", ${what(result.chart.change)} chart "${result.chart.name}"; it renders ${result.rendered.rows} points`
        : `nothing to change: dashboard "${result.dashboard.title}" has chart "${result.chart.name}" on data set ${result.dataSet.name}; it renders ${result.rendered.rows} points`,
    );
    return {
      data: { table, user: settings.values.dashboardUser.value, ...result },
      human: (style) => [`${style.bold('dashboard')} ${result.dashboard.url}`, `${style.bold('chart')}     ${result.chart.url}`],
      exitCode: ExitCode.Ok,
    };
  } finally {
    client.close();
  }
};

/**
 * The dashboard user sees no such table: either it is not in the enablement's groups (a
 * sandbox profile signs in as admin, who provisions but is no reader) or the table is
 * not there yet. Says which user it was and where it was set, and names the profiles that
 * sign in as someone else: the way out is another user, not another table.
 */
function notListedHint(settings: Settings, dataSet: string, table: string): string {
  const user = settings.values.dashboardUser;
  const others = [...settings.config.profiles]
    .filter(([name, values]) => name !== settings.profile && values.get('dashboardUser') !== undefined && values.get('dashboardUser')!.value !== user.value)
    .slice(0, 3)
    .map(([name, values]) => `\`--profile ${name}\` (${values.get('dashboardUser')!.value})`);
  return [
    `dashboard user ${user.value} (${whereSet(user)}) runs the SQL as itself: sign in as a member of the enablement's groups (\`dpgw catalog show ${dataSet}\` names them)${others.length ? `, e.g. ${others.join(' or ')}` : ', with --dashboard-user'}`,
    `a table not created yet is not listed either (\`dpgw table get ${table}\`)`,
  ].join('; ');
}
