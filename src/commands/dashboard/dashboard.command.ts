/** `dpgw dashboard`: its definition (flags: dashboard.flags.ts); the handler is dashboard.handler.ts. */
import { defineCommand } from '../../command-kit/command-definition.js';
import { askedHelp } from '../shared/asked-help.js';
import { dashboardOptions } from './dashboard.flags.js';

export const dashboard = defineCommand({
  usage: 'dashboard',
  description: 'save the table as a data set in the dashboard tool, map it (lon, lat) on a dashboard and prove the chart renders (contract step 9)',
  // As a reader, not as the profile that provisions: the dashboard user runs the SQL as itself (`dpgw sandbox --write-profile` writes sandbox-analyst).
  example: 'dpgw dashboard --dataset track --dashboard "Tracks" --profile sandbox-analyst',
  moreHelp: askedHelp('--dataset (the enabled data sets)'),
  options: dashboardOptions,
  handler: () => import('./dashboard.handler.js').then((module) => module.dashboard),
});
