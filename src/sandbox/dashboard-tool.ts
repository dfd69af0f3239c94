/**
 * The sandbox's dashboard tool: the few Superset 6.1 REST endpoints `dpgw dashboard`
 * uses, answering as the real one did in the end-to-end tier (docs/dashboard.md):
 * a JWT from /api/v1/security/login, a CSRF token bound to the `session` cookie for
 * every POST/PUT/DELETE, list endpoints filtered by Rison `q`, a data set whose SQL the
 * engine refuses answered with 500 "Fatal error", and chart data computed by running the
 * data set's SQL in the sandbox's query engine as the signed-in user — whose groups
 * (the identity provider's) decide, as impersonation makes them decide on a platform.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackService, readBody, sendJson } from './http-kit.js';
import type { QueryEngineEmulator } from './query-engine.js';
import { maskBody, maskRequestHeaders, type RequestLog } from './request-log.js';

export interface DashboardToolOptions {
  port: number;
  users: Array<{ username: string; password: string; groups: string[] }>;
  engine: QueryEngineEmulator;
  catalog: string;
  /** The database connection's name (an admin made it on a platform). */
  databaseName: string;
  log: RequestLog;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface DataSet {
  id: number;
  table_name: string;
  schema: string;
  sql: string;
}
interface Dashboard {
  id: number;
  dashboard_title: string;
  published: boolean;
}
interface Chart {
  id: number;
  slice_name: string;
  viz_type: string;
  datasource_id: number;
  params: string;
  query_context?: string;
  dashboards: number[];
}

const DATABASE_ID = 1;
const fatal = (): Answer => ({ status: 500, body: { message: 'Fatal error' } });
const notFound = (): Answer => ({ status: 404, body: { message: 'Not found' } });

export class DashboardToolEmulator extends LoopbackService {
  private readonly tokens = new Map<string, string>();
  /** session cookie → CSRF token. */
  private readonly sessions = new Map<string, string>();
  readonly dataSets = new Map<number, DataSet>();
  readonly dashboards = new Map<number, Dashboard>();
  readonly charts = new Map<number, Chart>();
  private nextId = { dataSet: 1, dashboard: 1, chart: 1 };

  constructor(private readonly options: DashboardToolOptions) {
    super(options.port);
  }

  protected async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://sandbox');
    let body: unknown;
    let answer: Answer;
    try {
      const text = await readBody(request);
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const entry = this.options.log.add({ server: 'dashboard-tool', method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers: maskRequestHeaders(request.headers), body: maskBody(body) });
    try {
      answer = this.route(method, url, request, body);
    } catch (error) {
      answer = { status: 500, body: { message: `sandbox dashboard tool: ${(error as Error).message}` } };
    }
    sendJson(response, answer.status, answer.body, answer.headers);
    this.options.log.complete(entry, answer.status, Math.round(performance.now() - started));
  }

  private route(method: string, url: URL, request: IncomingMessage, body: unknown): Answer {
    const path = url.pathname.replace(/\/+$/, '');
    if (method === 'GET' && path === '/health') return { status: 200, body: 'OK' };
    if (method === 'POST' && path === '/api/v1/security/login') {
      const { username, password } = (body ?? {}) as { username?: string; password?: string };
      const user = this.options.users.find((u) => u.username === username && u.password === password);
      if (!user) return { status: 401, body: { message: 'Not authorized' } };
      const token = randomBytes(24).toString('base64url');
      this.tokens.set(token, user.username);
      return { status: 200, body: { access_token: token } };
    }
    const bearer = request.headers.authorization?.startsWith('Bearer ') ? request.headers.authorization.slice(7) : undefined;
    const username = bearer ? this.tokens.get(bearer) : undefined;
    if (!username) return { status: 401, body: { msg: bearer ? 'Signature verification failed' : 'Missing Authorization Header' } };
    const groups = this.options.users.find((u) => u.username === username)!.groups;

    if (method === 'GET' && path === '/api/v1/security/csrf_token') {
      const cookie = randomBytes(18).toString('base64url');
      const csrf = randomBytes(18).toString('base64url');
      this.sessions.set(cookie, csrf);
      return { status: 200, body: { result: csrf }, headers: { 'set-cookie': `session=${cookie}; HttpOnly; Path=/; SameSite=Lax` } };
    }
    if (method !== 'GET') {
      const cookie = /(?:^|;\s*)session=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
      const csrf = request.headers['x-csrftoken'];
      if (!cookie || !csrf || this.sessions.get(cookie) !== csrf) {
        return { status: 400, body: { errors: [{ message: '400 Bad Request: The CSRF session token is missing.', error_type: 'GENERIC_BACKEND_ERROR', level: 'error' }] } };
      }
    }
    const filters = parseFilters(url.searchParams.get('q'));
    const run = (sql: string) => this.options.engine.execute(sql, { catalog: this.options.catalog, groups });

    if (method === 'GET' && path === '/api/v1/database') return listed([{ id: DATABASE_ID, database_name: this.options.databaseName, backend: 'trino' }], filters);
    if (method === 'GET' && path === `/api/v1/database/${DATABASE_ID}/tables`) {
      const schema = String(parseRison(url.searchParams.get('q') ?? '()')?.schema_name ?? 'default');
      const outcome = run(`SHOW TABLES FROM ${this.options.catalog}.${schema}`);
      const tables = 'rows' in outcome ? outcome.rows.map((r) => String(r[0])) : [];
      return { status: 200, body: { count: tables.length, result: tables.map((value) => ({ type: 'table', value, extra: null })) } };
    }

    let match = /^\/api\/v1\/(dataset|dashboard|chart)(?:\/(\d+))?$/.exec(path);
    if (match) {
      const [, kind, idText] = match;
      const id = idText === undefined ? undefined : Number(idText);
      if (kind === 'dataset') return this.dataSet(method, id, body, filters, run);
      if (kind === 'dashboard') return this.dashboard(method, id, body, filters);
      return this.chart(method, id, body, filters);
    }
    if (method === 'POST' && path === '/api/v1/chart/data') return this.chartData(body as QueryContext, run);
    match = /^\/api\/v1\/chart\/(\d+)\/data$/.exec(path);
    if (method === 'GET' && match) {
      const chart = this.charts.get(Number(match[1]));
      if (!chart) return notFound();
      if (!chart.query_context) return { status: 400, body: { message: 'Chart has no query context saved. Please save the chart again.' } };
      return this.chartData(JSON.parse(chart.query_context) as QueryContext, run);
    }
    return notFound();
  }

  private dataSet(method: string, id: number | undefined, body: unknown, filters: Filter[], run: (sql: string) => ReturnType<QueryEngineEmulator['execute']>): Answer {
    if (id === undefined && method === 'GET') {
      return listed(
        [...this.dataSets.values()].map((d) => ({ ...d, database: { id: DATABASE_ID, database_name: this.options.databaseName } })),
        filters,
      );
    }
    if (id === undefined && method === 'POST') {
      const request = body as Partial<DataSet> & { database?: number };
      if (request.database !== DATABASE_ID) return { status: 422, body: { message: { database: ['Database does not exist'] } } };
      if ([...this.dataSets.values()].some((d) => d.table_name === request.table_name && d.schema === request.schema)) {
        return { status: 422, body: { message: { table: [`Dataset ${request.schema}.${request.table_name} already exists`] } } };
      }
      // Saving a virtual data set reads its columns: the SQL runs as the user.
      const outcome = run(String(request.sql));
      if ('error' in outcome) return fatal();
      const dataSet: DataSet = { id: this.nextId.dataSet++, table_name: String(request.table_name), schema: String(request.schema), sql: String(request.sql) };
      this.dataSets.set(dataSet.id, dataSet);
      return { status: 201, body: { id: dataSet.id, data: { columns: outcome.columns.map((c) => ({ column_name: c.name, type: c.type.toUpperCase() })) }, result: { table_name: dataSet.table_name, sql: dataSet.sql } } };
    }
    const existing = id === undefined ? undefined : this.dataSets.get(id);
    if (!existing) return notFound();
    if (method === 'PUT') {
      existing.sql = String((body as { sql?: string }).sql ?? existing.sql);
      return { status: 200, body: { id: existing.id, result: { sql: existing.sql } } };
    }
    if (method === 'DELETE') {
      this.dataSets.delete(existing.id);
      return { status: 200, body: { message: 'OK' } };
    }
    return notFound();
  }

  private dashboard(method: string, id: number | undefined, body: unknown, filters: Filter[]): Answer {
    if (id === undefined && method === 'GET') return listed([...this.dashboards.values()], filters);
    if (id === undefined && method === 'POST') {
      const request = body as Partial<Dashboard>;
      const dashboard: Dashboard = { id: this.nextId.dashboard++, dashboard_title: String(request.dashboard_title), published: request.published === true };
      this.dashboards.set(dashboard.id, dashboard);
      return { status: 201, body: { id: dashboard.id, result: { dashboard_title: dashboard.dashboard_title, published: dashboard.published } } };
    }
    if (method === 'DELETE' && id !== undefined && this.dashboards.delete(id)) {
      for (const chart of this.charts.values()) chart.dashboards = chart.dashboards.filter((d) => d !== id);
      return { status: 200, body: { message: 'OK' } };
    }
    return notFound();
  }

  private chart(method: string, id: number | undefined, body: unknown, filters: Filter[]): Answer {
    const view = (c: Chart) => ({ ...c, dashboards: c.dashboards.map((d) => ({ id: d, dashboard_title: this.dashboards.get(d)?.dashboard_title })) });
    if (id === undefined && method === 'GET') return listed([...this.charts.values()].map(view), filters);
    if (id === undefined && method === 'POST') {
      const request = body as Partial<Chart>;
      if (!request.datasource_id || !this.dataSets.has(request.datasource_id)) return { status: 422, body: { message: { datasource_id: ['Datasource does not exist'] } } };
      const dashboards = request.dashboards ?? [];
      if (dashboards.some((d) => !this.dashboards.has(d))) return { status: 422, body: { message: { dashboards: ['Dashboards do not exist'] } } };
      const chart: Chart = { id: this.nextId.chart++, slice_name: String(request.slice_name), viz_type: String(request.viz_type), datasource_id: request.datasource_id, params: String(request.params ?? '{}'), query_context: request.query_context, dashboards };
      this.charts.set(chart.id, chart);
      return { status: 201, body: { id: chart.id, result: { slice_name: chart.slice_name, viz_type: chart.viz_type, dashboards } } };
    }
    const existing = id === undefined ? undefined : this.charts.get(id);
    if (!existing) return notFound();
    if (method === 'GET') return { status: 200, body: { id: existing.id, result: view(existing) } };
    if (method === 'PUT') {
      const request = body as Partial<Chart>;
      if (request.dashboards) existing.dashboards = request.dashboards;
      return { status: 200, body: { id: existing.id, result: { dashboards: existing.dashboards } } };
    }
    if (method === 'DELETE') {
      this.charts.delete(existing.id);
      return { status: 200, body: { message: 'OK' } };
    }
    return notFound();
  }

  /** Runs the data set's SQL as the user and keeps the query's columns (no GROUP BY, no metrics). */
  private chartData(context: QueryContext, run: (sql: string) => ReturnType<QueryEngineEmulator['execute']>): Answer {
    const dataSet = this.dataSets.get(Number(context?.datasource?.id));
    if (!dataSet) return { status: 404, body: { message: 'The dataset does not exist' } };
    const query = context.queries?.[0] ?? {};
    const outcome = run(dataSet.sql);
    if ('error' in outcome) {
      const e = outcome.error;
      return { status: 400, body: { message: `Error: TrinoUserError(type=${e.errorType}, name=${e.errorName}, message="${e.message}", query_id=sandbox)` } };
    }
    const names = outcome.columns.map((c) => c.name);
    // As Superset's QueryObject validation answers a column the data set lacks.
    const missing = (query.columns ?? []).filter((c) => !names.includes(c));
    if (missing.length > 0) return { status: 400, body: { message: `Columns missing in dataset: [${missing.map((c) => `'${c}'`).join(', ')}]` } };
    const columns = query.columns ?? names;
    const rows = outcome.rows.slice(0, query.row_limit ?? outcome.rows.length).map((row) => Object.fromEntries(columns.map((c) => [c, row[names.indexOf(c)]])));
    return { status: 200, body: { result: [{ status: 'success', colnames: columns, rowcount: rows.length, data: rows, query: `SELECT ${columns.join(', ')} FROM (${dataSet.sql}) AS virtual_table LIMIT ${query.row_limit ?? ''}` }] } };
  }
}

interface QueryContext {
  datasource?: { id?: number };
  queries?: Array<{ columns?: string[]; row_limit?: number }>;
}

interface Filter {
  col: string;
  opr: string;
  value: unknown;
}

function listed<T extends object>(records: T[], filters: Filter[]): Answer {
  const kept = records.filter((r) => filters.every((f) => f.opr !== 'eq' || (r as Record<string, unknown>)[f.col] === f.value));
  return { status: 200, body: { count: kept.length, ids: kept.map((r) => (r as { id: number }).id), result: kept } };
}

function parseFilters(q: string | null): Filter[] {
  const parsed = q ? parseRison(q) : undefined;
  return Array.isArray(parsed?.filters) ? (parsed.filters as Filter[]) : [];
}

/** Rison, as Superset's list endpoints read it (objects, lists, quoted and bare strings, numbers, !t !f !n). */
export function parseRison(text: string): Record<string, unknown> | undefined {
  let at = 0;
  const value = (): unknown => {
    const c = text[at];
    if (c === '(') {
      at++;
      const object: Record<string, unknown> = {};
      while (text[at] !== ')') {
        const key = String(value());
        at++; // ':'
        object[key] = value();
        if (text[at] === ',') at++;
        if (at >= text.length) throw new Error('unclosed (');
      }
      at++;
      return object;
    }
    if (c === '!' && text[at + 1] === '(') {
      at += 2;
      const list: unknown[] = [];
      while (text[at] !== ')') {
        list.push(value());
        if (text[at] === ',') at++;
        if (at >= text.length) throw new Error('unclosed !(');
      }
      at++;
      return list;
    }
    if (c === '!') {
      const literal = text[at + 1];
      at += 2;
      return literal === 't' ? true : literal === 'f' ? false : null;
    }
    if (c === "'") {
      let out = '';
      for (at++; text[at] !== "'"; at++) {
        if (at >= text.length) throw new Error("unclosed '");
        if (text[at] === '!') at++;
        out += text[at];
      }
      at++;
      return out;
    }
    const bare = /^[^:,()'!]+/.exec(text.slice(at))?.[0] ?? '';
    at += bare.length;
    return /^-?\d+(\.\d+)?$/.test(bare) ? Number(bare) : bare;
  };
  try {
    const parsed = value();
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
