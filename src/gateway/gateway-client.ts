/**
 * The typed gateway client: one method per endpoint of the contract, plus the
 * assumed catalog endpoints of docs/gateway-api.md. Any 2xx is success, with or
 * without a body; a 4xx/5xx throws GatewayError; a broken connection throws a
 * 'network' DpgwError.
 */
import { CATALOG_ALL, DEFAULT_OLAP_SEGMENT } from '../contract/constants.js';
import { paths } from '../contract/paths.js';
import type {
  AnalyticsSchema,
  CatalogDataSet,
  CatalogDataSource,
  Enablement,
  EnablementRequest,
  HealthRecord,
  OfferedDataSet,
  PlatformVersion,
  RealtimeTableDefinition,
} from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { checkedListing, type ListingKind } from './listing-check.js';
import { messageFromErrorBody } from './error-body.js';
import { GatewayError } from './gateway-error.js';
import { HttpTransport, type HttpResponse, type HttpTransportOptions } from './http-transport.js';

export interface GatewayClientOptions extends HttpTransportOptions {
  /** The word for the analytics store in `/api/internal/{olap}/…`; default `olap`. */
  olapSegment?: string;
}

/** How Spring Boot's router (and the sandbox) says a path has no handler at all. */
const NO_ROUTE = /^No (static resource|endpoint|handler found)\b/i;

/** What a read of the analytics store found; `not-exposed` when the gateway does not pass reads on to it. */
export type StoreRead<T> = { kind: 'found'; url: string; body: T } | { kind: 'not-found'; url: string; message: string } | { kind: 'not-exposed'; url: string; why: string };

/**
 * What a DELETE of the analytics store found: `in-use` is the store's 409 (a schema a table
 * still uses); `not-exposed` when the gateway does not pass deletes on (docs/gateway-api.md).
 */
export type StoreDeletion = { kind: 'deleted'; url: string; status: number } | { kind: 'not-found'; url: string; message: string } | { kind: 'in-use'; url: string; message: string } | { kind: 'not-exposed'; url: string; why: string };

/**
 * What a call of the analytics store that acts or follows an action (a reload, a force commit,
 * their progress, a pause or resume of consumption) answered: `not-found` is the store's own 404 (no such table or job);
 * `not-exposed` when the gateway does not pass the call on (a 404 of its router, 405, 501).
 */
export type StoreCall = { kind: 'answered'; url: string; status: number; body: unknown } | { kind: 'not-found'; url: string; message: string } | { kind: 'not-exposed'; url: string; why: string };

/**
 * What one of the store's validate calls said (issue #47 §3): `valid`, with the properties the
 * store did not recognise (its `unrecognizedProperties`: JSON-pointer paths of the body sent →
 * their values); `refused`, its 400 with its own words; `not-exposed` when the gateway does not
 * pass the call on (404, 405, 501).
 */
export type StoreVerdict = { kind: 'valid'; url: string; unrecognized: Record<string, unknown> } | { kind: 'refused'; url: string; message: string } | { kind: 'not-exposed'; url: string; why: string };

/** The store's validate calls: a schema with its table, or each alone (paths.olapTableConfigsValidation). */
export type StoreValidationCall = 'tableConfigs' | 'schema' | 'table';

/** What a mutating call answered: the contract shows no body, so it may be absent. */
export interface Accepted<T = unknown> {
  status: number;
  body: T | undefined;
}

export class GatewayClient {
  private readonly http: HttpTransport;
  private readonly olapSegment: string;

  constructor(options: GatewayClientOptions) {
    this.http = new HttpTransport(options);
    this.olapSegment = options.olapSegment ?? DEFAULT_OLAP_SEGMENT;
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  close(): void {
    this.http.close();
  }

  /** At most `limit` requests on the wire at once from now on (HttpTransport.limitAtOnce). */
  limitRequestsAtOnce(limit: number): void {
    this.http.limitAtOnce(limit);
  }

  /** POST /api/internal/olap/schemas */
  async createSchema(schema: AnalyticsSchema): Promise<Accepted> {
    return accepted(await this.http.request('POST', paths.olapSchemas(this.olapSegment), { body: schema }));
  }

  /** POST /api/internal/olap/tables */
  async createTable(table: RealtimeTableDefinition): Promise<Accepted> {
    return accepted(await this.http.request('POST', paths.olapTables(this.olapSegment), { body: table }));
  }

  /** ASSUMED. PUT /api/internal/olap/tables/{name}: replace a table's config (the store controller's update). */
  async updateTable(table: RealtimeTableDefinition): Promise<Accepted> {
    return accepted(await this.http.request('PUT', paths.olapTable(table.tableName, this.olapSegment), { body: table }));
  }

  /** GET /api/v2/catalog/datasources/{ds}/enablements/{en}/datasets; `all`/`all` by default. */
  async listDataSets(selector: { dataSourceId?: string; enablementId?: string } = {}): Promise<CatalogDataSet[]> {
    const path = paths.catalogDataSets(selector.dataSourceId ?? CATALOG_ALL, selector.enablementId ?? CATALOG_ALL);
    return arrayBody(await this.http.request('GET', path), 'dataSets');
  }

  /** GET {self href}/storages/{storageId}: on platforms older than 1.15.165 this creates the store's permissions. */
  async touchStorage(selfHref: string, storageId: string): Promise<Accepted> {
    return accepted(await this.http.request('GET', paths.dataSetStorage(selfHref, storageId)));
  }

  /**
   * GET /api/health or /api/health/{component}. A health endpoint answers 503
   * with the record when something is DOWN; that is a result, not an error, and
   * is not retried. A token is sent when one can be had, never required.
   */
  async health(component?: string): Promise<{ status: number; record: HealthRecord }> {
    const response = await this.http.request<HealthRecord>('GET', paths.health(component), {
      acceptStatuses: [503],
      retry: false,
      auth: 'optional',
    });
    const record = response.body;
    if (record === undefined || record === null || typeof record !== 'object' || Array.isArray(record)) {
      if (response.status === 503) throw new GatewayError(503, 'GET', response.url, typeof record === 'string' ? record : undefined);
      return { status: response.status, record: { status: 'UNKNOWN' } };
    }
    // zod checks a health record: loaded here, not by every command that asks the gateway (listing-check.ts).
    const { checkedHealth } = await import('./answer-shapes.js');
    return { status: response.status, record: checkedHealth(record, 'GET', response.url) };
  }

  /** ASSUMED. GET /api/v2/catalog/datasources */
  async listDataSources(): Promise<CatalogDataSource[]> {
    return arrayBody(await this.http.request('GET', paths.catalogDataSources()), 'dataSources');
  }

  /** ASSUMED. GET /api/v2/catalog/datasources/{ds}/datasets */
  async listOfferedDataSets(dataSourceId: string): Promise<OfferedDataSet[]> {
    return arrayBody(await this.http.request('GET', paths.offeredDataSets(dataSourceId)), 'offeredDataSets');
  }

  /** ASSUMED. GET /api/v2/catalog/datasources/{ds}/enablements */
  async listEnablements(dataSourceId: string): Promise<Enablement[]> {
    return arrayBody(await this.http.request('GET', paths.enablements(dataSourceId)), 'enablements');
  }

  /** ASSUMED. POST /api/v2/catalog/datasources/{ds}/enablements */
  async createEnablement(dataSourceId: string, request: EnablementRequest): Promise<Enablement | undefined> {
    const response = await this.http.request<Enablement>('POST', paths.enablements(dataSourceId), { body: request });
    // The contract shows no answer: one that is not an enablement is as good as none (the caller reads the listing, which is checked).
    const { LISTING_SHAPES } = await import('./answer-shapes.js');
    const answer = LISTING_SHAPES.enablements.safeParse(response.body);
    return answer.success ? answer.data : undefined;
  }

  /** ASSUMED. PUT /api/v2/catalog/datasources/{ds}/enablements/{en}/datasets/{dataset} (idempotent). */
  async enableDataSet(dataSourceId: string, enablementId: string, dataSetName: string): Promise<Accepted> {
    return accepted(await this.http.request('PUT', paths.enablementDataSet(dataSourceId, enablementId, dataSetName), { body: {} }));
  }

  /**
   * ASSUMED. GET /api/internal/olap/schemas/{name}: the schema the store holds. 404 is "no
   * such schema"; 405, 501 or an answer that is no schema is "this gateway does not expose
   * reads of the analytics store" (docs/gateway-api.md).
   */
  async getSchema(name: string): Promise<StoreRead<Record<string, unknown>>> {
    return this.storeRead(paths.olapSchema(name, this.olapSegment), (body) => typeof body.schemaName === 'string');
  }

  /**
   * ASSUMED. GET /api/internal/olap/tables/{name}: the table the store holds, as its
   * controller answers: wrapped by table type (`{"REALTIME": {…}}`). Tolerant as getSchema.
   */
  async getTable(name: string): Promise<StoreRead<Record<string, unknown>>> {
    return this.storeRead(paths.olapTable(name, this.olapSegment), (body) => ['REALTIME', 'OFFLINE'].some((type) => typeof body[type] === 'object' && body[type] !== null) || typeof body.tableName === 'string');
  }

  /**
   * ASSUMED. GET /api/internal/olap/tables/{name}/consumingSegmentsInfo: the store
   * controller's consuming segments, `{"_segmentToConsumingInfoMap": {segment: [{serverName,
   * consumerState, partitionToOffsetMap}]}}` (Pinot). Any 404, 405 or 501, or an answer of
   * another shape, is "not exposed": consumption cannot be checked, never "consuming".
   */
  async consumingSegments(table: string): Promise<StoreRead<Record<string, unknown>>> {
    const path = paths.olapConsumingSegments(table, this.olapSegment);
    let response: HttpResponse<unknown>;
    try {
      response = await this.http.request('GET', path);
    } catch (error) {
      if (error instanceof GatewayError && (error.status === 404 || error.status === 405 || error.status === 501)) return { kind: 'not-exposed', url: error.url, why: `${error.status}${error.bodyMessage ? `: ${error.bodyMessage}` : ''}` };
      throw error;
    }
    const body = response.body as Record<string, unknown> | null;
    const map = typeof body === 'object' && body !== null ? body._segmentToConsumingInfoMap : undefined;
    if (typeof map !== 'object' || map === null || Array.isArray(map)) return { kind: 'not-exposed', url: response.url, why: `${response.status} with an answer that is not the store's consuming segments` };
    return { kind: 'found', url: response.url, body: map as Record<string, unknown> };
  }

  /**
   * ASSUMED. GET /api/internal/olap/tables: the names of the tables the store holds, as its
   * controller lists them (`{"tables": [...]}`, names without the type suffix). 404 (any),
   * 405, 501 or an answer of another shape is "not exposed".
   */
  async listTables(): Promise<StoreRead<string[]>> {
    return this.storeListing(paths.olapTables(this.olapSegment), 'tables');
  }

  /**
   * ASSUMED. GET /api/internal/olap/schemas: the names of the schemas the store holds, as its
   * controller lists them (a JSON array of names). Tolerant as listTables.
   */
  async listSchemas(): Promise<StoreRead<string[]>> {
    return this.storeListing(paths.olapSchemas(this.olapSegment), 'schemas');
  }

  /** A list of names the store's controller answers, bare or under `key`; not exposed as listTables says. */
  private async storeListing(path: string, key: 'tables' | 'schemas'): Promise<StoreRead<string[]>> {
    const response = await this.http.requestOrRefusal<unknown>('GET', path, [404, 405, 501]);
    if ('refused' in response) {
      const { message } = messageFromErrorBody(response.body);
      return { kind: 'not-exposed', url: response.url, why: `${response.status}${message ? `: ${message}` : ''}` };
    }
    const body = response.body as Record<string, unknown> | unknown[] | null | undefined;
    const names = Array.isArray(body) ? body : typeof body === 'object' && body !== null ? body[key] : undefined;
    if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) return { kind: 'not-exposed', url: response.url, why: `${response.status} with an answer that is not the store's list of ${key}` };
    return { kind: 'found', url: response.url, body: names as string[] };
  }

  /**
   * ASSUMED. POST /api/internal/olap/{tableConfigs,schemas,tables}/validate: the store's own checks
   * of what a run would send, read-only (Pinot's TableConfigsRestletResource#validateConfig,
   * PinotSchemaRestletResource#validateSchema, PinotTableRestletResource#checkTableConfig).
   * `skip`: the store's `validationTypesToSkip`, sent only when given: a store older than 1.5.0
   * refuses the values newer ones know (docs/gateway-api.md).
   */
  async validateInStore(call: StoreValidationCall, body: unknown, skip?: string): Promise<StoreVerdict> {
    const base = call === 'tableConfigs' ? paths.olapTableConfigsValidation(this.olapSegment) : call === 'schema' ? paths.olapSchemaValidation(this.olapSegment) : paths.olapTableValidation(this.olapSegment);
    const path = skip === undefined ? base : `${base}?validationTypesToSkip=${encodeURIComponent(skip)}`;
    const response = await this.http.requestOrRefusal<unknown>('POST', path, [400, 404, 405, 501], { body });
    if ('refused' in response) {
      const { message } = messageFromErrorBody(response.body);
      if (response.status === 400) return { kind: 'refused', url: response.url, message: message || 'refused without a reason (400)' };
      return { kind: 'not-exposed', url: response.url, why: `${response.status}${message ? `: ${message}` : ''}` };
    }
    const answer = response.body;
    // The store echoes what it read: an answer that is no object is not the store's (a proxy's page).
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return { kind: 'not-exposed', url: response.url, why: `${response.status} with an answer that is not the store's` };
    const unrecognized = (answer as Record<string, unknown>).unrecognizedProperties;
    // An answer without the map (a gateway that keeps it back) names no property.
    return { kind: 'valid', url: response.url, unrecognized: typeof unrecognized === 'object' && unrecognized !== null && !Array.isArray(unrecognized) ? (unrecognized as Record<string, unknown>) : {} };
  }

  /** ASSUMED. DELETE /api/internal/olap/tables/{name}?type=realtime: the store drops the table in the background (deleteTable's caller waits until a read no longer finds it). */
  async deleteTable(name: string): Promise<StoreDeletion> {
    return this.storeDeletion(paths.olapRealtimeTableDeletion(name, this.olapSegment));
  }

  /** ASSUMED. DELETE /api/internal/olap/schemas/{name}: the store refuses (409) while a table uses the schema. */
  async deleteSchema(name: string): Promise<StoreDeletion> {
    return this.storeDeletion(paths.olapSchema(name, this.olapSegment));
  }

  private async storeDeletion(path: string): Promise<StoreDeletion> {
    try {
      const response = await this.http.request('DELETE', path);
      return { kind: 'deleted', url: response.url, status: response.status };
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      // As for reads: the router's own 404 means no such route, the store's means no such name.
      if (error.status === 404 && NO_ROUTE.test(error.bodyMessage)) return { kind: 'not-exposed', url: error.url, why: `404: ${error.bodyMessage}` };
      if (error.status === 404) return { kind: 'not-found', url: error.url, message: error.bodyMessage };
      if (error.status === 405 || error.status === 501) return { kind: 'not-exposed', url: error.url, why: `${error.status}${error.bodyMessage ? `: ${error.bodyMessage}` : ''}` };
      if (error.status === 409) return { kind: 'in-use', url: error.url, message: error.bodyMessage };
      throw error;
    }
  }

  /**
   * ASSUMED. The store's reads `dpgw table status` adds to the consuming segments (docs/tables.md,
   * "table status"): the controller's external view (each segment's state per server) and debug
   * view (segments in error, and why), and the broker's answer to a query (the rows of each
   * segment). The answer as the store gave it, shape-checked by its reader; 404, 405 and 501
   * are "not exposed".
   */
  async tableStatusRead(what: 'externalview' | 'debug' | { sql: string }, table: string): Promise<StoreRead<unknown>> {
    try {
      const response =
        typeof what === 'object'
          ? await this.http.request('POST', paths.olapQuery(this.olapSegment), { body: what })
          : await this.http.request('GET', what === 'externalview' ? paths.olapExternalView(table, this.olapSegment) : paths.olapTableDebug(table, this.olapSegment));
      return { kind: 'found', url: response.url, body: response.body };
    } catch (error) {
      if (error instanceof GatewayError && (error.status === 404 || error.status === 405 || error.status === 501)) return { kind: 'not-exposed', url: error.url, why: `${error.status}${error.bodyMessage ? `: ${error.bodyMessage}` : ''}` };
      throw error;
    }
  }

  /** ASSUMED. POST /api/internal/olap/segments/{name}/reload?type=REALTIME: the store reloads the table's segments; its answer names the job (reload-step.ts reads it). */
  async reloadSegments(table: string): Promise<StoreCall> {
    return this.storeCall('POST', paths.olapSegmentReload(table, this.olapSegment));
  }

  /** ASSUMED. GET /api/internal/olap/segments/segmentReloadStatus/{jobId}: how many of the job's segments are reloaded. */
  async reloadStatus(jobId: string): Promise<StoreCall> {
    return this.storeCall('GET', paths.olapSegmentReloadStatus(jobId, this.olapSegment));
  }

  /** ASSUMED. POST /api/internal/olap/tables/{name}/forceCommit: the store commits the table's consuming segments now. */
  async forceCommit(table: string): Promise<StoreCall> {
    return this.storeCall('POST', paths.olapForceCommit(table, this.olapSegment));
  }

  /** ASSUMED. GET /api/internal/olap/tables/forceCommitStatus/{jobId}: the segments a force commit has yet to commit (stores that give a job id). */
  async forceCommitStatus(jobId: string): Promise<StoreCall> {
    return this.storeCall('GET', paths.olapForceCommitStatus(jobId, this.olapSegment));
  }

  private async storeCall(method: 'GET' | 'POST', path: string): Promise<StoreCall> {
    const response = await this.http.requestOrRefusal<unknown>(method, path, [404, 405, 501]);
    if ('refused' in response) {
      const { status, url } = response;
      const { message } = messageFromErrorBody(response.body);
      if (status === 404 && !NO_ROUTE.test(message)) return { kind: 'not-found', url, message };
      return { kind: 'not-exposed', url, why: `${status}${message ? `: ${message}` : ''}` };
    }
    return { kind: 'answered', url: response.url, status: response.status, body: response.body };
  }

  /**
   * ASSUMED. GET /api/internal/olap/tables/{name}/pauseStatus: whether the store has paused the
   * table's consumption (Pinot 0.11+: `{"pauseFlag": bool, "consumingSegments": [...]}`, 1.3+ adds
   * `reasonCode` and `comment`). Tolerant as the other reads: 404 of the router, 405, 501 or an
   * answer without pauseFlag is "not exposed"; the store's 404 is "no such table".
   */
  async pauseStatus(table: string): Promise<StoreRead<Record<string, unknown>>> {
    return this.storeRead(paths.olapPauseStatus(table, this.olapSegment), (body) => typeof body.pauseFlag === 'boolean');
  }

  /**
   * ASSUMED. POST /api/internal/olap/tables/{name}/pauseConsumption | resumeConsumption: the
   * store controller's pause (it commits the consuming segments and creates no new ones) and
   * resume (`consumeFrom`: smallest | largest, where to start when the offsets it holds are
   * not to be used). The router's 404, 405 and 501 are "not exposed"; the store's 404 is "no
   * such table".
   */
  async changeConsumption(table: string, change: 'pause' | 'resume', consumeFrom?: 'smallest' | 'largest'): Promise<StoreCall> {
    return this.storeCall('POST', `${paths.olapConsumptionChange(table, change, this.olapSegment)}${consumeFrom === undefined ? '' : `?consumeFrom=${consumeFrom}`}`);
  }

  private async storeRead(path: string, looksRight: (body: Record<string, unknown>) => boolean): Promise<StoreRead<Record<string, unknown>>> {
    // Taken as a value, not caught: provision reads each of its tables and schemas before it starts, most of them new (404).
    const response = await this.http.requestOrRefusal<unknown>('GET', path, [404, 405, 501]);
    if ('refused' in response) {
      const { status, url } = response;
      const { message } = messageFromErrorBody(response.body);
      // A 404 of the gateway's own router ("No static resource …", "No endpoint …") means no such route, not no such name.
      if (status === 404 && NO_ROUTE.test(message)) return { kind: 'not-exposed', url, why: `404: ${message}` };
      if (status === 404) return { kind: 'not-found', url, message };
      return { kind: 'not-exposed', url, why: `${status}${message ? `: ${message}` : ''}` };
    }
    const body = response.body;
    // A store without the name answers 200 with {} (Pinot's table listing of no type).
    if (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0) return { kind: 'not-found', url: response.url, message: 'an empty answer' };
    if (typeof body !== 'object' || body === null || Array.isArray(body) || !looksRight(body as Record<string, unknown>)) {
      return { kind: 'not-exposed', url: response.url, why: `${response.status} with an answer that is not the store's` };
    }
    return { kind: 'found', url: response.url, body: body as Record<string, unknown> };
  }

  /** ASSUMED. GET /api/version; undefined when the gateway does not have it (404). */
  async platformVersion(): Promise<string | undefined> {
    try {
      const response = await this.http.request<PlatformVersion | string>('GET', paths.version(), { auth: 'optional' });
      const body = response.body;
      if (typeof body === 'object' && body !== null && typeof body.version === 'string') return body.version;
      if (typeof body === 'string' && /^\d+(\.\d+)*/.test(body.trim())) return body.trim();
      return undefined;
    } catch (error) {
      if (error instanceof GatewayError && error.status === 404) return undefined;
      throw error;
    }
  }
}

function accepted<T>(response: HttpResponse<T>): Accepted<T> {
  return { status: response.status, body: response.body };
}

async function arrayBody<T>(response: HttpResponse<unknown>, shape: ListingKind): Promise<T[]> {
  const body = response.body;
  if (body === undefined) return [];
  if (Array.isArray(body)) return checkedListing(body, shape, 'GET', response.url);
  // Some gateways wrap listings ({ items: [...] } or HAL's _embedded); accept those too.
  if (typeof body === 'object' && body !== null) {
    const wrapped = body as Record<string, unknown>;
    for (const key of ['items', 'content', 'data']) if (Array.isArray(wrapped[key])) return checkedListing(wrapped[key] as unknown[], shape, 'GET', response.url);
    const embedded = wrapped._embedded;
    if (typeof embedded === 'object' && embedded !== null) {
      const first = Object.values(embedded).find(Array.isArray);
      if (first) return checkedListing(first as unknown[], shape, 'GET', response.url);
    }
  }
  throw new DpgwError('ANSWER_UNUSABLE', `GET ${response.url} answered ${response.status} without the JSON array the contract describes`, {
    hint: 'check that --gateway points at the gateway (not the identity provider or a proxy page)',
    details: { url: response.url, status: response.status },
  });
}
