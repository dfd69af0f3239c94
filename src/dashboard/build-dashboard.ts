/**
 * Contract step 9 in the dashboard tool, as the signed-in dashboard user: the data set
 * `SELECT * FROM default.<table> LIMIT <rows>` (virtual, on the named database
 * connection), a map chart (deck.gl scatterplot, longitude `lon`, latitude `lat`, the
 * viewport fitted to the rows) saved to a dashboard — each found by name or created,
 * so a re-run changes nothing — and proof that the chart renders: its data endpoint
 * answers rows with `lon` and `lat` in range. What this run created is removed again
 * when a later step fails, so a chart never points at a missing data set.
 */
import { serverText } from '../text/terminal-text.js';
import { QUERY_ENGINE_SCHEMA } from '../contract/constants.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { GatewayError } from '../gateway/gateway-error.js';
import { sqlIdentifier } from '../query-engine/statement-client.js';
import { rison, type SupersetClient } from './superset-client.js';

/** The longitude and latitude columns of the contract's map chart. */
export const MAP_COLUMNS = { lon: 'lon', lat: 'lat' } as const;
const VIZ_TYPE = 'deck_scatter';

export interface DashboardRequest {
  table: string;
  rows: number;
  databaseName: string;
  dashboardTitle: string;
  chartName: string;
  /** What to do when the dashboard user sees no such table (the command names the profiles of other users); the general rule when absent. */
  notListedHint?: string;
}

export type Change = 'created' | 'unchanged' | 'updated';

export interface DashboardResult {
  database: { id: number; name: string };
  dataSet: { id: number; name: string; sql: string; change: Change };
  dashboard: { id: number; title: string; url: string; change: Change };
  chart: { id: number; name: string; url: string; change: Change };
  rendered: { rows: number; lonRange: [number, number]; latRange: [number, number] };
  changed: boolean;
}

interface Identified {
  id: number;
}

export async function buildDashboard(client: SupersetClient, request: DashboardRequest): Promise<DashboardResult> {
  const sql = `SELECT * FROM ${sqlIdentifier(QUERY_ENGINE_SCHEMA)}.${sqlIdentifier(request.table)} LIMIT ${request.rows}`;
  const database = await findDatabase(client, request.databaseName);
  await requireTableListed(client, database, request.table, request.notListedHint ?? `${ACCESS_HINT}; or check --table`);
  const created: Array<() => Promise<unknown>> = [];
  try {
    const dataSet = await ensureDataSet(client, database.id, `${request.table}_latest_${request.rows}`, sql, created);
    // The rows, through the dashboard tool as this user: proves the SQL runs for them, and fits the map.
    const points = await mapPoints(client, dataSet.id, request.rows, request.table);
    const dashboard = await ensureDashboard(client, request.dashboardTitle, created);
    const chart = await ensureChart(client, request.chartName, dataSet.id, dashboard.id, request.rows, viewportOf(points), created);
    const rendered = await renderedRows(client, chart.id);
    return {
      database,
      dataSet: { ...dataSet, sql },
      dashboard: { ...dashboard, title: request.dashboardTitle, url: `${client.baseUrl}/superset/dashboard/${dashboard.id}/` },
      chart: { ...chart, name: request.chartName, url: `${client.baseUrl}/explore/?slice_id=${chart.id}` },
      rendered,
      changed: [dataSet, dashboard, chart].some((c) => c.change !== 'unchanged'),
    };
  } catch (error) {
    // Newest first: the chart, then the dashboard, then the data set.
    for (const undo of created.reverse()) await undo().catch(() => undefined);
    throw error;
  }
}

async function findDatabase(client: SupersetClient, name: string): Promise<{ id: number; name: string }> {
  const [found] = await client.list<Identified & { database_name: string }>('database', [{ col: 'database_name', opr: 'eq', value: name }]);
  if (!found) {
    throw new DpgwError('DASHBOARD_DATABASE_NOT_FOUND', `the dashboard tool has no database connection named "${name}" that this user can see`, {
      where: '--dashboard-database',
      hint: 'name the connection to the query engine (an admin creates it; Alpha users cannot), or ask for access to it',
    });
  }
  return { id: found.id, name };
}

/**
 * The dashboard tool lists the schema's tables as this user sees them in the query
 * engine (its connection impersonates the user): a user outside the enablement's groups
 * sees none (contract step 8), so nothing is created for them.
 */
async function requireTableListed(client: SupersetClient, database: { id: number; name: string }, table: string, hint: string): Promise<void> {
  const listed = await client.get<{ result?: Array<{ value: string }> }>(`/api/v1/database/${database.id}/tables/?q=${encodeURIComponent(rison({ schema_name: QUERY_ENGINE_SCHEMA, force: true }))}`);
  const tables = (listed.result ?? []).map((t) => t.value);
  if (tables.includes(table)) return;
  throw new DpgwError('DASHBOARD_TABLE_NOT_VISIBLE', `the query engine shows dashboard user ${client.username} no table ${table} in schema ${QUERY_ENGINE_SCHEMA} of connection "${database.name}"${tables.length ? ` (it sees ${serverText(tables.join(', '))})` : ' (it sees no table there)'}; nothing was created`, {
    hint,
  });
}

async function ensureDataSet(client: SupersetClient, databaseId: number, name: string, sql: string, created: Array<() => Promise<unknown>>) {
  const found = (await client.list<Identified & { sql?: string | null; database?: { id: number } }>('dataset', [{ col: 'table_name', opr: 'eq', value: name }])).find(
    (d) => d.database?.id === databaseId,
  );
  if (found) {
    if ((found.sql ?? '').trim() === sql) return { id: found.id, name, change: 'unchanged' as Change };
    await client.send('PUT', `/api/v1/dataset/${found.id}`, { sql });
    return { id: found.id, name, change: 'updated' as Change };
  }
  const answer = await withEngineMessage(() => client.send<Identified>('POST', '/api/v1/dataset/', { database: databaseId, schema: QUERY_ENGINE_SCHEMA, table_name: name, sql }), client, databaseId, sql);
  created.push(() => client.send('DELETE', `/api/v1/dataset/${answer.id}`));
  return { id: answer.id, name, change: 'created' as Change };
}

/**
 * Superset answers a data set whose SQL the query engine refuses with a bare 500
 * "Fatal error". Ask SQL Lab for the engine's own words, so the user reads
 * "Access Denied: …" rather than that.
 */
async function withEngineMessage<T>(call: () => Promise<T>, client: SupersetClient, databaseId: number, sql: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof DpgwError) || !/Fatal error/i.test(error.message)) throw error;
    const engine = await client
      .send<{ errors?: Array<{ message?: string }> }>('POST', '/api/v1/sqllab/execute/', { database_id: databaseId, schema: QUERY_ENGINE_SCHEMA, sql, runAsync: false, json: true })
      .then(() => undefined)
      .catch((sqlLab: unknown) => (sqlLab instanceof GatewayError ? sqlLab.bodyMessage : undefined));
    throw new DpgwError('DASHBOARD_DATA_SET_REFUSED', `the dashboard tool could not save \`${sql}\` as a data set${engine ? `: ${engine}` : ''}`, {
      hint: engine && /Access Denied/i.test(engine) ? ACCESS_HINT : 'run the SQL in SQL Lab to see why',
      cause: error,
    });
  }
}

type Point = { lon: number; lat: number };

async function mapPoints(client: SupersetClient, dataSetId: number, rows: number, table: string): Promise<Point[]> {
  try {
    const answer = await client.send<{ result?: Array<{ data?: Array<Record<string, unknown>> }> }>('POST', '/api/v1/chart/data', queryContext(dataSetId, rows));
    return pointsOf(answer.result?.[0]?.data ?? []);
  } catch (error) {
    // Superset's own words for a data set without the map's columns: said before any chart exists.
    const missing = error instanceof GatewayError ? /Columns missing in dataset: (\[[^\]]*\])/.exec(error.bodyMessage)?.[1] : undefined;
    if (missing) {
      throw new DpgwError('DASHBOARD_MAP_COLUMNS_MISSING', `table ${table} has no ${MAP_COLUMNS.lon}/${MAP_COLUMNS.lat} columns for a map (missing: ${missing}); nothing was created`, {
        hint: `a map chart needs longitude in ${MAP_COLUMNS.lon} and latitude in ${MAP_COLUMNS.lat}: map a table whose schema has them`,
        cause: error,
      });
    }
    const denied = error instanceof DpgwError ? /Access Denied: [^"]*/.exec(error.message)?.[0] : undefined;
    if (!denied) throw error;
    throw new DpgwError('DASHBOARD_ACCESS_DENIED', `the query engine refused dashboard user ${client.username} the data set's rows: ${denied}`, { hint: ACCESS_HINT, cause: error });
  }
}

const ACCESS_HINT = 'the dashboard user runs the SQL as itself in the query engine: it must be in one of the enablement groups';

function pointsOf(data: Array<Record<string, unknown>>): Point[] {
  return data.flatMap((row) => {
    const lon = Number(row[MAP_COLUMNS.lon]);
    const lat = Number(row[MAP_COLUMNS.lat]);
    return Number.isFinite(lon) && Number.isFinite(lat) ? [{ lon, lat }] : [];
  });
}

/** The map's centre and zoom for the points' extent (web-mercator zoom: 360° at zoom 0). */
export function viewportOf(points: Point[]): { longitude: number; latitude: number; zoom: number; bearing: number; pitch: number } {
  if (points.length === 0) return { longitude: 0, latitude: 0, zoom: 1, bearing: 0, pitch: 0 };
  const lons = points.map((p) => p.lon);
  const lats = points.map((p) => p.lat);
  const [west, east, south, north] = [Math.min(...lons), Math.max(...lons), Math.min(...lats), Math.max(...lats)];
  const span = Math.max(east - west, (north - south) * 2, 0.01);
  const zoom = Math.max(0, Math.min(16, Math.log2(360 / span)));
  return { longitude: (west + east) / 2, latitude: (south + north) / 2, zoom: Math.round(zoom * 100) / 100, bearing: 0, pitch: 0 };
}

/** The saved query of the chart: the two map columns of the data set's rows. Without it the chart's data endpoint refuses the chart. */
function queryContext(dataSetId: number, rows: number, formData?: Record<string, unknown>): Record<string, unknown> {
  return {
    datasource: { id: dataSetId, type: 'table' },
    force: false,
    queries: [{ columns: [MAP_COLUMNS.lon, MAP_COLUMNS.lat], metrics: [], filters: [], extras: {}, orderby: [], row_limit: rows }],
    ...(formData ? { form_data: formData } : {}),
    result_format: 'json',
    result_type: 'full',
  };
}

async function ensureDashboard(client: SupersetClient, title: string, created: Array<() => Promise<unknown>>) {
  // Titles are not unique in the dashboard tool: the oldest of that title is the one.
  const found = (await client.list<Identified>('dashboard', [{ col: 'dashboard_title', opr: 'eq', value: title }])).sort((a, b) => a.id - b.id)[0];
  if (found) return { id: found.id, change: 'unchanged' as Change };
  const answer = await client.send<Identified>('POST', '/api/v1/dashboard/', { dashboard_title: title, published: true });
  created.push(() => client.send('DELETE', `/api/v1/dashboard/${answer.id}`));
  return { id: answer.id, change: 'created' as Change };
}

async function ensureChart(client: SupersetClient, name: string, dataSetId: number, dashboardId: number, rows: number, viewport: ReturnType<typeof viewportOf>, created: Array<() => Promise<unknown>>) {
  const found = (await client.list<Identified & { datasource_id?: number; dashboards?: Array<{ id: number }> }>('chart', [{ col: 'slice_name', opr: 'eq', value: name }]))
    .filter((c) => c.datasource_id === dataSetId)
    .sort((a, b) => a.id - b.id)[0];
  if (found) {
    const dashboards = (found.dashboards ?? []).map((d) => d.id);
    if (dashboards.includes(dashboardId)) return { id: found.id, change: 'unchanged' as Change };
    await client.send('PUT', `/api/v1/chart/${found.id}`, { dashboards: [...dashboards, dashboardId] });
    return { id: found.id, change: 'updated' as Change };
  }
  const params = {
    datasource: `${dataSetId}__table`,
    viz_type: VIZ_TYPE,
    spatial: { type: 'latlong', lonCol: MAP_COLUMNS.lon, latCol: MAP_COLUMNS.lat },
    row_limit: rows,
    point_radius_fixed: { type: 'fix', value: 1000 },
    point_unit: 'square_m',
    min_radius: 1,
    max_radius: 250,
    multiplier: 10,
    color_picker: { r: 0, g: 122, b: 135, a: 1 },
    viewport,
    autozoom: true,
    adhoc_filters: [],
  };
  const answer = await client.send<Identified>('POST', '/api/v1/chart/', {
    slice_name: name,
    viz_type: VIZ_TYPE,
    datasource_id: dataSetId,
    datasource_type: 'table',
    params: JSON.stringify(params),
    query_context: JSON.stringify(queryContext(dataSetId, rows, params)),
    dashboards: [dashboardId],
  });
  created.push(() => client.send('DELETE', `/api/v1/chart/${answer.id}`));
  return { id: answer.id, change: 'created' as Change };
}

/** The chart renders when its own data endpoint answers rows whose lon and lat are coordinates. */
async function renderedRows(client: SupersetClient, chartId: number): Promise<DashboardResult['rendered']> {
  const answer = await client.get<{ result?: Array<{ data?: Array<Record<string, unknown>> }> }>(`/api/v1/chart/${chartId}/data/`);
  const points = pointsOf(answer.result?.[0]?.data ?? []);
  if (points.length === 0) throw new DpgwError('DASHBOARD_CHART_INVALID', `chart ${chartId} renders no points: its data endpoint answered no rows with ${MAP_COLUMNS.lon} and ${MAP_COLUMNS.lat}`, { hint: 'check that the table has rows (`dpgw verify --dataset …`)' });
  const outside = points.find((p) => Math.abs(p.lon) > 180 || Math.abs(p.lat) > 90);
  if (outside) throw new DpgwError('DASHBOARD_CHART_INVALID', `chart ${chartId} has a point outside the map: lon ${outside.lon}, lat ${outside.lat}`, { hint: 'check which columns hold longitude and latitude' });
  const range = (values: number[]): [number, number] => [Math.min(...values), Math.max(...values)];
  return { rows: points.length, lonRange: range(points.map((p) => p.lon)), latRange: range(points.map((p) => p.lat)) };
}
