/** `dpgw dashboard`: its flags; the handler is dashboard.handler.ts. */
import { defineCommand, type CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';
import { askedHelp } from '../shared/asked-help.js';

const dashboardOptions = (command: CommandFor<'dashboard'>, kit: OptionKit) =>
  kit
    .scopedSettings(command, 'dashboard')
    .addOption(kit.name('--dataset <name>', 'the data set whose table is mapped (asked for at a terminal)', 'data set'))
    .addOption(kit.name('--table <name>', 'the table (default: the data set name)', 'table'))
    .option('--dashboard <title>', 'dashboard to save the chart to, found by title or created (default: the data set name)')
    .option('--chart <name>', 'chart name (default: "<table> positions")')
    .addOption(kit.option('--rows <n>', 'rows of the data set: SELECT * FROM default.<table> LIMIT <n>').argParser(kit.wholeNumber(1, 100_000, 'row count')).default(100));
export type DashboardCommand = ReturnType<typeof dashboardOptions>;

export const dashboard = defineCommand({
  usage: 'dashboard',
  description: 'save the table as a data set in the dashboard tool, map it (lon, lat) on a dashboard and prove the chart renders (contract step 9)',
  // As a reader, not as the profile that provisions: the dashboard user runs the SQL as itself (`dpgw sandbox --write-profile` writes sandbox-analyst).
  example: 'dpgw dashboard --dataset track --dashboard "Tracks" --profile sandbox-analyst',
  moreHelp: askedHelp('--dataset (the enabled data sets)'),
  options: dashboardOptions,
  handler: () => import('./dashboard.handler.js').then((module) => module.dashboard),
});
