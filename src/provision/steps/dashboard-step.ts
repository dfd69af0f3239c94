/**
 * provision's optional last step per data set: a data set, a chart and a dashboard of the
 * table in the dashboard tool, as a profile the manifest names (or the run's own settings).
 */
import { buildDashboard } from '../../dashboard/build-dashboard.js';
import type { SupersetClient } from '../../dashboard/superset-client.js';
import type { StepRecord } from './step-record.js';

export interface DashboardSpec {
  tableName: string;
  rows: number;
  title: string;
  chart: string;
  /** The profile it is built as; undefined: the run's own settings. */
  profile?: string;
}

export function planDashboard(spec: DashboardSpec): StepRecord {
  return {
    step: 'dashboard',
    action: 'create',
    reason: `in the dashboard tool${spec.profile ? ` as ${spec.profile}` : ''}: data set SELECT * FROM default.${spec.tableName} LIMIT ${spec.rows}, chart "${spec.chart}" on dashboard "${spec.title}"`,
  };
}

export async function applyDashboard(client: SupersetClient, databaseName: string, spec: DashboardSpec): Promise<StepRecord> {
  const built = await buildDashboard(client, { table: spec.tableName, rows: spec.rows, dashboardTitle: spec.title, chartName: spec.chart, databaseName });
  const created = [built.dataSet, built.dashboard, built.chart].some((part) => part.change === 'created');
  return {
    step: 'dashboard',
    action: created ? 'create' : built.changed ? 'update' : 'none',
    status: built.changed ? 'changed' : 'unchanged',
    reason: `${built.dashboard.url} (chart ${built.chart.id}, ${built.rendered.rows} points)`,
    facts: { url: built.dashboard.url },
  };
}
