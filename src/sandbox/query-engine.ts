/**
 * The sandbox's SQL query engine: Trino's client protocol (POST /v1/statement,
 * then the `nextUri` pages) for the statements `dpgw verify` and a person at a
 * SQL tool use: SHOW SCHEMAS, SHOW TABLES, SELECT … FROM <table> [LIMIT n] and
 * SELECT … FROM information_schema.{schemata,tables}. Answers, error names and
 * messages follow what Trino 476 answered in the end-to-end tier (docs/e2e.md):
 * 401 text with `WWW-Authenticate: Bearer realm="Trino"`, PERMISSION_DENIED
 * "Access Denied: Cannot select from columns [...] in table or view c.s.t",
 * TABLE_NOT_FOUND "line 1:15: Table 'c.s.t' does not exist", lower-cased columns.
 * Access is decided by the sandbox's policy engine (query-access-policy.ts); its
 * OPA-compatible decision endpoints are served here too.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { QUERY_ENGINE_SCHEMA } from '../contract/constants.js';
import type { AnalyticsSchema } from '../contract/types.js';
import { LoopbackService, readBody, sendJson } from './http-kit.js';
import type { OlapStore } from './olap-store.js';
import { INFORMATION_SCHEMA, type QueryAccessPolicy } from './query-access-policy.js';
import { maskRequestHeaders, type RequestLog } from './request-log.js';

/** Where the sandbox answers as the policy engine: the same paths as dpgw's OPA policy. */
export const SANDBOX_POLICY_PATHS = { allow: '/v1/data/dpgw/query_access/allow', batch: '/v1/data/dpgw/query_access/batch' } as const;

export interface QueryEngineOptions {
  port: number;
  issuer: string;
  jwksUri: string;
  policy: QueryAccessPolicy;
  store: OlapStore;
  log: RequestLog;
  /** Rows each table holds (generated from its schema). */
  rowsPerTable: number;
}

interface Column {
  name: string;
  type: string;
}

interface EngineError {
  message: string;
  errorCode: number;
  errorName: string;
  errorType: 'USER_ERROR' | 'INTERNAL_ERROR';
}

type Outcome = { columns: Column[]; rows: unknown[][] } | { error: EngineError };

const ERROR_CODES: Record<string, number> = { SYNTAX_ERROR: 1, NOT_SUPPORTED: 13, PERMISSION_DENIED: 4, TABLE_NOT_FOUND: 46, SCHEMA_NOT_FOUND: 47, CATALOG_NOT_FOUND: 44, MISSING_CATALOG_NAME: 56, MISSING_SCHEMA_NAME: 57, COLUMN_NOT_FOUND: 47 };
const IDENTIFIER = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*)`;
const TRINO_TYPES: Record<string, string> = { STRING: 'varchar', INT: 'integer', LONG: 'bigint', FLOAT: 'real', DOUBLE: 'double', BIG_DECIMAL: 'decimal', BOOLEAN: 'boolean', TIMESTAMP: 'timestamp(3)', JSON: 'json', BYTES: 'varbinary' };

function engineError(errorName: string, message: string): { error: EngineError } {
  return { error: { message, errorCode: ERROR_CODES[errorName] ?? 0, errorName, errorType: 'USER_ERROR' } };
}

/** An identifier as the engine resolves it: quoted keeps its case, unquoted is lower-cased. */
function identifier(text: string): string {
  return text.startsWith('"') ? text.slice(1, -1).replace(/""/g, '"') : text.toLowerCase();
}

export class QueryEngineEmulator extends LoopbackService {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;
  /** Finished statements waiting for their page to be read. */
  private readonly pending = new Map<string, { user: string; outcome: Outcome }>();
  private queries = 0;

  constructor(private readonly options: QueryEngineOptions) {
    super(options.port);
    this.jwks = createRemoteJWKSet(new URL(options.jwksUri));
  }

  protected async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://sandbox');
    let text = '';
    try {
      text = await readBody(request);
    } catch {
      this.sendText(response, 413, 'Request body too large');
      return;
    }
    const entry = this.options.log.add({ server: 'query-engine', method, path: url.pathname, query: {}, headers: maskRequestHeaders(request.headers), body: text === '' ? undefined : text });
    let status: number;
    try {
      status = await this.route(method, url.pathname, request, text, response);
    } catch (error) {
      // A bad request never stops the sandbox.
      status = response.headersSent ? response.statusCode : this.sendText(response, 500, `sandbox query engine: ${(error as Error).message}`);
    }
    this.options.log.complete(entry, status, Math.round(performance.now() - started));
  }

  private async route(method: string, path: string, request: IncomingMessage, text: string, response: ServerResponse): Promise<number> {
    if (method === 'GET' && path === '/v1/info') {
      sendJson(response, 200, { nodeVersion: { version: 'dpgw-sandbox' }, environment: 'sandbox', coordinator: true, starting: false, uptime: '0s' });
      return 200;
    }
    if (method === 'POST' && (path === SANDBOX_POLICY_PATHS.allow || path === SANDBOX_POLICY_PATHS.batch)) {
      let input: unknown;
      try {
        input = (JSON.parse(text) as { input?: unknown }).input;
      } catch {
        sendJson(response, 400, { code: 'invalid_parameter', message: 'body is not valid JSON' });
        return 400;
      }
      const policy = this.options.policy;
      sendJson(response, 200, { result: path === SANDBOX_POLICY_PATHS.allow ? policy.allow(input as never) : policy.batch(input as never) });
      return 200;
    }
    if (!path.startsWith('/v1/statement')) return this.sendText(response, 404, 'Not Found');

    const caller = await this.authenticate(request.headers.authorization);
    if ('reason' in caller) {
      response.setHeader('www-authenticate', 'Bearer realm="Trino", token_type="JWT"');
      return this.sendText(response, 401, caller.reason);
    }
    const { user } = caller;
    if (method === 'POST' && path === '/v1/statement') {
      if (text.trim() === '') return this.sendText(response, 400, 'SQL statement is empty');
      const id = `${new Date().toISOString().replace(/\D/g, '').slice(0, 8)}_${String(++this.queries).padStart(5, '0')}_sandbox`;
      const catalog = header(request, 'x-trino-catalog');
      const schema = header(request, 'x-trino-schema');
      this.pending.set(id, { user, outcome: this.execute(text, { catalog, schema, groups: caller.groups }) });
      sendJson(response, 200, { id, infoUri: `${this.baseUrl}/ui/query.html?${id}`, nextUri: `${this.baseUrl}/v1/statement/queued/${id}/y${randomBytes(8).toString('hex')}/1`, stats: stats('QUEUED'), warnings: [] });
      return 200;
    }
    const page = /^\/v1\/statement\/queued\/([^/]+)\/[^/]+\/\d+$/.exec(path);
    if (page && (method === 'GET' || method === 'DELETE')) {
      const id = page[1]!;
      const query = this.pending.get(id);
      if (!query || query.user !== user) return this.sendText(response, 404, `Query not found: ${id}`);
      this.pending.delete(id);
      if (method === 'DELETE') {
        response.writeHead(204).end();
        return 204;
      }
      const base = { id, infoUri: `${this.baseUrl}/ui/query.html?${id}` };
      if ('error' in query.outcome) {
        sendJson(response, 200, { ...base, stats: stats('FAILED'), error: query.outcome.error, warnings: [] });
      } else {
        const { columns, rows } = query.outcome;
        const typed = columns.map((c) => ({ name: c.name, type: c.type, typeSignature: { rawType: c.type.replace(/\(.*$/, ''), arguments: [] } }));
        sendJson(response, 200, { ...base, columns: typed, ...(rows.length ? { data: rows } : {}), stats: stats('FINISHED'), warnings: [] });
      }
      return 200;
    }
    return this.sendText(response, 404, 'Not Found');
  }

  /** The caller and its groups, from the token (the sandbox's group provider is the identity provider). */
  private async authenticate(authorization: string | undefined): Promise<{ user: string; groups: string[] } | { reason: string }> {
    if (!authorization?.startsWith('Bearer ')) return { reason: 'Unauthorized' };
    try {
      const { payload } = await jwtVerify(authorization.slice(7).trim(), this.jwks, { issuer: this.options.issuer, algorithms: ['RS256'] });
      return {
        user: typeof payload.preferred_username === 'string' ? payload.preferred_username : String(payload.sub),
        groups: Array.isArray(payload.groups) ? payload.groups.filter((g): g is string => typeof g === 'string') : [],
      };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ERR_JWT_EXPIRED') return { reason: `JWT expired at ${new Date(Number((error as { payload?: { exp?: number } }).payload?.exp ?? 0) * 1000).toISOString()}` };
      return { reason: `Invalid JWT: ${(error as Error).message}` };
    }
  }

  private sendText(response: ServerResponse, status: number, text: string): number {
    response.writeHead(status, { 'content-type': 'text/plain;charset=utf-8' });
    response.end(text);
    return status;
  }

  /** Runs one statement for a user with these groups. */
  execute(sql: string, session: { catalog?: string; schema?: string; groups: string[] }): Outcome {
    const statement = sql.trim().replace(/;\s*$/, '').replace(/\s+/g, ' ');
    const policy = this.options.policy;
    const catalogOf = (name: string | undefined): Outcome | string => {
      const catalog = name ?? session.catalog;
      if (catalog === undefined) return engineError('MISSING_CATALOG_NAME', 'line 1:1: Catalog must be specified when session catalog is not set');
      if (catalog !== policy.analyticsCatalog) return engineError('CATALOG_NOT_FOUND', `line 1:1: Catalog '${catalog}' not found`);
      return catalog;
    };

    let match = new RegExp(`^SHOW SCHEMAS(?: FROM (${IDENTIFIER}))?$`, 'i').exec(statement);
    if (match) {
      const catalog = catalogOf(match[1] === undefined ? undefined : identifier(match[1]));
      if (typeof catalog !== 'string') return catalog;
      const schemas = [QUERY_ENGINE_SCHEMA, INFORMATION_SCHEMA].filter((schemaName) => policy.schemaListed({ catalogName: catalog, schemaName }, session.groups));
      return { columns: [{ name: 'Schema', type: 'varchar(6)' }], rows: schemas.map((s) => [s]) };
    }
    match = new RegExp(`^SHOW TABLES(?: FROM (${IDENTIFIER})(?:\\.(${IDENTIFIER}))?)?$`, 'i').exec(statement);
    if (match) {
      const [first, second] = [match[1], match[2]].map((part) => (part === undefined ? undefined : identifier(part)));
      const catalog = catalogOf(second === undefined ? undefined : first);
      if (typeof catalog !== 'string') return catalog;
      const schema = second ?? first ?? session.schema;
      if (schema === undefined) return engineError('MISSING_SCHEMA_NAME', 'line 1:1: Schema must be specified when session schema is not set');
      if (schema !== QUERY_ENGINE_SCHEMA && schema !== INFORMATION_SCHEMA) return engineError('SCHEMA_NOT_FOUND', `line 1:1: Schema '${schema}' does not exist`);
      return { columns: [{ name: 'Table', type: 'varchar' }], rows: this.listedTables(catalog, schema, session.groups).map((t) => [t]) };
    }
    match = new RegExp(`^SELECT (.+?) FROM ((?:${IDENTIFIER}\\.){0,2}${IDENTIFIER})(?: WHERE (.+?))?(?: LIMIT (\\d+))?$`, 'i').exec(statement);
    if (match) return this.select(statement, match, session);
    if (/^\s*SELEC?T?\b/i.test(statement) || !/^(SHOW|SELECT|WITH|DESCRIBE|EXPLAIN)\b/i.test(statement)) {
      const word = statement.split(' ')[0] ?? '';
      return engineError('SYNTAX_ERROR', `line 1:1: mismatched input '${word}'. Expecting: 'SELECT', 'SHOW', <query>`);
    }
    return engineError('NOT_SUPPORTED', 'the dpgw sandbox runs only SHOW SCHEMAS, SHOW TABLES and SELECT … FROM one table [WHERE …] [LIMIT n]');
  }

  private select(statement: string, match: RegExpExecArray, session: { catalog?: string; schema?: string; groups: string[] }): Outcome {
    const policy = this.options.policy;
    const reference = match[2]!;
    const parts = reference.match(new RegExp(IDENTIFIER, 'g'))!.map(identifier);
    const [catalogName, schemaName, tableName] = parts.length === 3 ? parts : parts.length === 2 ? [session.catalog, parts[0], parts[1]] : [session.catalog, session.schema, parts[0]];
    const at = `line 1:${statement.indexOf(reference) + 1}`;
    if (catalogName === undefined) return engineError('MISSING_CATALOG_NAME', `${at}: Catalog must be specified when session catalog is not set`);
    if (catalogName !== policy.analyticsCatalog) return engineError('CATALOG_NOT_FOUND', `${at}: Catalog '${catalogName}' not found`);
    if (schemaName === undefined) return engineError('MISSING_SCHEMA_NAME', `${at}: Schema must be specified when session schema is not set`);
    const qualified = `${catalogName}.${schemaName}.${tableName}`;
    const table = { catalogName, schemaName, tableName };

    let columns: Column[];
    let rows: unknown[][];
    if (schemaName === INFORMATION_SCHEMA && (tableName === 'tables' || tableName === 'schemata')) {
      ({ columns, rows } = this.informationSchema(catalogName, tableName, session.groups));
    } else {
      const generated = schemaName === QUERY_ENGINE_SCHEMA ? this.tableRows(tableName!) : undefined;
      if (!generated) return engineError('TABLE_NOT_FOUND', `${at}: Table '${qualified}' does not exist`);
      if (!policy.canRead(table, session.groups)) {
        return engineError('PERMISSION_DENIED', `Access Denied: Cannot select from columns [${generated.columns.map((c) => c.name).join(', ')}] in table or view ${qualified}`);
      }
      ({ columns, rows } = generated);
    }

    const where = match[3];
    if (where !== undefined) {
      const condition = /^(\w+) = '((?:[^']|'')*)'$/.exec(where);
      if (!condition) return engineError('NOT_SUPPORTED', "the dpgw sandbox supports WHERE <column> = '<text>' only");
      const index = columns.findIndex((c) => c.name === condition[1]!.toLowerCase());
      if (index < 0) return engineError('COLUMN_NOT_FOUND', `line 1:1: Column '${condition[1]}' cannot be resolved`);
      rows = rows.filter((row) => String(row[index]) === condition[2]!.replace(/''/g, "'"));
    }
    const selection = match[1]!.trim();
    if (/^count\(\*\)$/i.test(selection)) return { columns: [{ name: '_col0', type: 'bigint' }], rows: [[rows.length]] };
    if (selection !== '*') {
      const names = selection.split(',').map((n) => identifier(n.trim()));
      const indices = names.map((n) => columns.findIndex((c) => c.name === n));
      const unknown = names.find((_, i) => indices[i]! < 0);
      if (unknown !== undefined) return engineError('COLUMN_NOT_FOUND', `line 1:8: Column '${unknown}' cannot be resolved`);
      columns = indices.map((i) => columns[i]!);
      rows = rows.map((row) => indices.map((i) => row[i]));
    }
    const limit = match[4] === undefined ? rows.length : Number(match[4]);
    return { columns, rows: rows.slice(0, limit) };
  }

  /** The tables of a schema that these groups see listed. */
  private listedTables(catalog: string, schema: string, groups: string[]): string[] {
    const tables = schema === INFORMATION_SCHEMA ? ['columns', 'schemata', 'tables', 'views'] : [...this.options.store.tables.keys()].map((t) => t.toLowerCase()).sort();
    return tables.filter((tableName) => this.options.policy.tableListed({ catalogName: catalog, schemaName: schema, tableName }, groups));
  }

  private informationSchema(catalog: string, table: 'tables' | 'schemata', groups: string[]): { columns: Column[]; rows: unknown[][] } {
    const policy = this.options.policy;
    const schemas = [QUERY_ENGINE_SCHEMA, INFORMATION_SCHEMA].filter((schemaName) => policy.schemaListed({ catalogName: catalog, schemaName }, groups));
    if (table === 'schemata') return { columns: [{ name: 'catalog_name', type: 'varchar' }, { name: 'schema_name', type: 'varchar' }], rows: schemas.map((s) => [catalog, s]) };
    const rows = schemas.flatMap((schema) => this.listedTables(catalog, schema, groups).map((t) => [catalog, schema, t, 'BASE TABLE']));
    return { columns: ['table_catalog', 'table_schema', 'table_name', 'table_type'].map((name) => ({ name, type: 'varchar' })), rows };
  }

  /** A stored table's rows, generated from its schema; undefined when there is no such table. */
  private tableRows(tableName: string): { columns: Column[]; rows: unknown[][] } | undefined {
    const entry = [...this.options.store.tables.entries()].find(([name]) => name.toLowerCase() === tableName);
    if (!entry) return undefined;
    const schema: AnalyticsSchema | undefined = this.options.store.schemas.get(entry[1].definition.segmentsConfig.schemaName);
    const specs = schema ? [...(schema.dimensionFieldSpecs ?? []), ...(schema.metricFieldSpecs ?? []), ...(schema.dateTimeFieldSpecs ?? [])] : [];
    // The engine lists a Pinot table's columns by name.
    const fields = specs.map((s) => ({ name: s.name.toLowerCase(), dataType: s.dataType, time: (schema?.dateTimeFieldSpecs ?? []).includes(s as never) })).sort((a, b) => a.name.localeCompare(b.name));
    const now = Date.now();
    const rows = Array.from({ length: this.options.rowsPerTable }, (_, i) => fields.map((f) => sampleValue(f.name, f.dataType, i, f.time, now)));
    return { columns: fields.map((f) => ({ name: f.name, type: TRINO_TYPES[f.dataType] ?? 'varchar' })), rows };
  }
}

function sampleValue(name: string, dataType: string, i: number, time: boolean, now: number): unknown {
  if (time) return now - i * 1000;
  switch (dataType) {
    case 'INT':
    case 'LONG':
      return 100 + (i % 12);
    case 'FLOAT':
    case 'DOUBLE':
    case 'BIG_DECIMAL':
      if (name === 'lon') return Math.round((-179 + ((i * 7.31) % 358)) * 1e5) / 1e5;
      if (name === 'lat') return Math.round((-89 + ((i * 3.17) % 178)) * 1e5) / 1e5;
      return Math.round((500 + ((i * 37) % 11000)) * 10) / 10;
    case 'BOOLEAN':
      return i % 2 === 0;
    case 'JSON':
      return JSON.stringify({ row: i });
    default:
      return `${name}-${i % 10}`;
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function stats(state: string): Record<string, unknown> {
  return { state, queued: state === 'QUEUED', scheduled: state !== 'QUEUED', nodes: state === 'QUEUED' ? 0 : 1 };
}
