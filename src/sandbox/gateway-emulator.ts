/**
 * The sandbox gateway: every endpoint of the contract and the assumed ones of
 * docs/gateway-api.md, with bearer tokens checked against the identity
 * provider's JWKS (signature, issuer, audience, expiry), health open to all,
 * fault injection, a request log, and `/__sandbox/` admin endpoints for tests.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { CATALOG_ALL } from '../contract/constants.js';
import { storageTouchNeeded } from '../contract/platform-version.js';
import { CATALOG_BASE } from '../contract/paths.js';
import type { Catalog, Permission } from './catalog.js';
import type { Faults, FaultSettings } from './faults.js';
import type { HealthChecks } from './health.js';
import { LoopbackService, PayloadTooLarge, readBody, routeRequest, sendJson, springError, type Route } from './http-kit.js';
import type { OlapStore, StoreAnswer, StoreBackend } from './olap-store.js';
import { maskBody, maskRequestHeaders, type RequestLog } from './request-log.js';

export interface GatewayEmulatorOptions {
  port: number;
  /** The identity provider's issuer and JWKS, which tokens are checked against. */
  issuer: string;
  jwksUri: string;
  /** The `aud` tokens must carry; undefined: not checked (a realm without an audience mapper). */
  audience?: string;
  /** Group whose members may provision (mutating calls); others get 403. */
  adminGroup: string;
  platformVersion: () => string;
  olapSegment: string;
  versionEndpoint: boolean;
  /** Whether the store's validate calls are passed on (issue #47 §3). */
  storeValidateCalls: boolean;
  catalog: Catalog;
  /** What the gateway knows of the tables it created (for the permissions on a topic's tables). */
  store: OlapStore;
  /** The store the OLAP endpoints use. */
  backend: StoreBackend;
  /** Told of the permissions a storage touch or a table creation granted, before the call answers (the end-to-end tier writes them to a real policy engine). */
  onGranted?: (permissions: Permission[]) => Promise<void>;
  health: HealthChecks;
  faults: Faults;
  log: RequestLog;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Permissions the call created (the storage touch). */
  granted?: Permission[];
}

interface Caller {
  username: string;
  groups: string[];
}

export class GatewayEmulator extends LoopbackService {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly options: GatewayEmulatorOptions) {
    super(options.port);
    this.jwks = createRemoteJWKSet(new URL(options.jwksUri));
  }

  protected async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    let text = '';
    let tooLarge = false;
    try {
      text = await readBody(request);
    } catch (error) {
      if (!(error instanceof PayloadTooLarge)) throw error;
      tooLarge = true;
    }
    let body: unknown = text === '' ? undefined : text;
    let malformed = false;
    if (text !== '' && (request.headers['content-type'] ?? '').includes('json')) {
      try {
        body = JSON.parse(text);
      } catch {
        malformed = true;
      }
    }
    const isAdmin = path.startsWith('/__sandbox/');
    const entry = isAdmin
      ? undefined
      : this.options.log.add({ server: 'gateway', method, path, query: Object.fromEntries(url.searchParams), headers: maskRequestHeaders(request.headers), body: maskBody(body) });

    let answer: Answer;
    if (isAdmin) {
      answer = this.admin(method, path, body);
    } else {
      const faults = this.options.faults;
      // Latency is when the answer leaves, counted from the request's arrival: the
      // gateway's own work happens inside it, as it would on a remote gateway.
      const answerAt = started + faults.settings.latencyMs;
      const decision = faults.decide(method, path);
      if (decision.kind === 'drop') {
        await untilTime(answerAt);
        request.socket.destroy();
        if (entry) this.options.log.complete(entry, 0, Math.round(performance.now() - started));
        return;
      }
      if (decision.kind === 'fail') {
        const retryAfter = faults.settings.retryAfterSeconds;
        answer = {
          status: decision.status,
          body: decision.body ?? springError(decision.status, http.STATUS_CODES[decision.status] ?? 'Error', 'injected failure (sandbox fault injection)', path),
          ...(retryAfter !== undefined && decision.status === 503 ? { headers: { 'retry-after': String(retryAfter) } } : {}),
        };
      } else if (tooLarge) {
        answer = { status: 413, body: springError(413, 'Payload Too Large', 'request body over 1 MiB', path) };
      } else if (malformed) {
        answer = { status: 400, body: springError(400, 'Bad Request', 'JSON parse error: the request body is not valid JSON', path) };
      } else {
        answer = await this.route(method, path, url.searchParams, request.headers.authorization, body);
      }
      await untilTime(answerAt);
    }
    sendJson(response, answer.status, answer.body, answer.headers);
    if (entry) this.options.log.complete(entry, answer.status, Math.round(performance.now() - started));
  }

  private async route(method: string, path: string, query: URLSearchParams, authorization: string | undefined, body: unknown): Promise<Answer> {
    // Health is open to everyone, with or without a token.
    const health = /^\/api\/health(?:\/([^/]+))?\/?$/.exec(path);
    if (health) {
      if (method !== 'GET') return methodNotAllowed(path);
      const record = this.options.health.check(health[1] === undefined ? undefined : decodeURIComponent(health[1]));
      if (!record) return { status: 404, body: springError(404, 'Not Found', `unknown health component "${health[1]}"`, path) };
      // Spring Boot answers 503 when the status is not UP.
      return { status: record.status === 'UP' ? 200 : 503, body: record };
    }
    if (!path.startsWith('/api/')) return { status: 404, body: springError(404, 'Not Found', 'No static resource', path) };

    const caller = await this.authenticate(authorization, path);
    if ('status' in caller) return caller;

    if (path === '/api/version' && method === 'GET' && this.options.versionEndpoint) return { status: 200, body: { version: this.options.platformVersion() } };

    const reloading = this.reloadCall(method, path, caller);
    if (reloading) return reloading;
    // The store's validate calls (issue #47 §3), read-only; a platform variant does not pass them on.
    const validate = new RegExp(`^/api/internal/${escapeRegExp(this.options.olapSegment)}/(tableConfigs|schemas|tables)/validate$`).exec(path);
    if (validate && this.options.storeValidateCalls) {
      if (method !== 'POST') return methodNotAllowed(path);
      return this.options.backend.validate(validate[1] === 'tableConfigs' ? 'tableConfigs' : validate[1] === 'schemas' ? 'schema' : 'table', body);
    }
    const consuming = new RegExp(`^/api/internal/${escapeRegExp(this.options.olapSegment)}/tables/([^/]+)/consumingSegmentsInfo$`).exec(path);
    if (consuming) {
      if (method !== 'GET') return methodNotAllowed(path);
      return this.options.backend.consumingSegments(decodeURIComponent(consuming[1]!));
    }
    // The store controller's pause flag, pause and resume (`dpgw table status|pause|resume`); the changes need the admin group.
    const consumption = new RegExp(`^/api/internal/${escapeRegExp(this.options.olapSegment)}/tables/([^/]+)/(pauseStatus|pauseConsumption|resumeConsumption)$`).exec(path);
    if (consumption) {
      const name = decodeURIComponent(consumption[1]!);
      if (consumption[2] === 'pauseStatus') return method === 'GET' ? this.options.backend.pauseStatus(name) : methodNotAllowed(path);
      if (method !== 'POST') return methodNotAllowed(path);
      const forbidden = this.requireAdmin(caller, path);
      if (forbidden) return forbidden;
      return this.options.backend.changeConsumption(name, consumption[2] === 'pauseConsumption' ? 'pause' : 'resume', query.get('consumeFrom') ?? undefined);
    }
    // The store controller's reads of `dpgw table status`, passed on as the consuming segments are.
    const statusRead = new RegExp(`^/api/internal/${escapeRegExp(this.options.olapSegment)}/(?:tables/([^/]+)/externalview|debug/tables/([^/]+))$`).exec(path);
    if (statusRead) {
      if (method !== 'GET') return methodNotAllowed(path);
      return statusRead[2] !== undefined ? this.options.backend.tableDebug(decodeURIComponent(statusRead[2])) : this.options.backend.externalView(decodeURIComponent(statusRead[1]!));
    }
    if (path === `/api/internal/${this.options.olapSegment}/query/sql`) {
      if (method !== 'POST') return methodNotAllowed(path);
      return this.options.backend.query(body);
    }
    const olapRead = new RegExp(`^/api/internal/${escapeRegExp(this.options.olapSegment)}/(schemas|tables)/([^/]+)$`).exec(path);
    if (olapRead) {
      const name = decodeURIComponent(olapRead[2]!);
      if (method === 'PUT' && olapRead[1] === 'tables') {
        const forbidden = this.requireAdmin(caller, path);
        if (forbidden) return forbidden;
        return this.options.backend.updateTable(name, body);
      }
      if (method === 'DELETE') {
        const forbidden = this.requireAdmin(caller, path);
        if (forbidden) return forbidden;
        return olapRead[1] === 'schemas' ? this.options.backend.deleteSchema(name) : this.options.backend.deleteTable(name, query.get('type') ?? undefined);
      }
      if (method !== 'GET') return methodNotAllowed(path);
      return olapRead[1] === 'schemas' ? this.options.backend.readSchema(name) : this.options.backend.readTable(name);
    }
    const olap = new RegExp(`^/api/internal/${escapeRegExp(this.options.olapSegment)}/(schemas|tables)$`).exec(path);
    if (olap) {
      if (method === 'GET') return olap[1] === 'tables' ? this.options.backend.listTables() : this.options.backend.listSchemas();
      if (method !== 'POST') return methodNotAllowed(path);
      const forbidden = this.requireAdmin(caller, path);
      if (forbidden) return forbidden;
      if (olap[1] === 'schemas') return this.options.backend.addSchema(body);
      return this.createTable(body);
    }
    if (path.startsWith(`${CATALOG_BASE}/`)) {
      const answer = await this.catalog(method, path.slice(CATALOG_BASE.length), body, caller);
      if (answer.granted?.length) {
        const failed = await this.publishGrants(answer.granted, path);
        if (failed) return failed;
      }
      return answer;
    }
    return { status: 404, body: springError(404, 'Not Found', 'No endpoint', path) };
  }

  /** The store controller's reload and force commit, and their progress, passed on (issue #47); undefined for any other path. */
  private reloadCall(method: string, path: string, caller: Caller): Promise<Answer> | Answer | undefined {
    const { backend, olapSegment } = this.options;
    const found = new RegExp(`^/api/internal/${escapeRegExp(olapSegment)}/(?:segments/segmentReloadStatus/([^/]+)|tables/forceCommitStatus/([^/]+)|segments/([^/]+)/reload|tables/([^/]+)/forceCommit)$`).exec(path);
    if (!found) return undefined;
    const [, reloadJob, commitJob, reloaded, committed] = found.map((part) => (part === undefined ? undefined : decodeURIComponent(part)));
    const reads = reloadJob !== undefined || commitJob !== undefined;
    if (method !== (reads ? 'GET' : 'POST')) return methodNotAllowed(path);
    if (reads) return reloadJob !== undefined ? backend.reloadStatus(reloadJob) : backend.forceCommitStatus(commitJob!);
    return this.requireAdmin(caller, path) ?? (reloaded !== undefined ? backend.reloadSegments(reloaded) : backend.forceCommit(committed!));
  }

  private async createTable(body: unknown): Promise<Answer> {
    const answer: StoreAnswer & { table?: string; topic?: string } = await this.options.backend.addTable(body);
    if (answer.status >= 200 && answer.status < 300 && answer.table && answer.topic) {
      const failed = await this.grantAutomatically(answer.table, answer.topic);
      if (failed) return failed;
    }
    return { status: answer.status, body: answer.body };
  }

  /** From 1.15.165 on the platform grants the enablement groups by itself when a table is created; before, the storage touch does. */
  private async grantAutomatically(table: string, topic: string): Promise<Answer | undefined> {
    const { catalog } = this.options;
    if (storageTouchNeeded(this.options.platformVersion()) !== 'not-needed') return undefined;
    const granted = catalog.dataSetsOfTopic(topic).map(({ enablement, dataSet }) => catalog.grant(table, dataSet.name, enablement, 'automatic'));
    return this.publishGrants(granted, `/api/internal/${this.options.olapSegment}/tables`);
  }

  /** Backed mode: the permissions reach the policy engine, or the call fails as the platform's would (502). */
  private async publishGrants(granted: Permission[], path: string): Promise<Answer | undefined> {
    try {
      await this.options.onGranted?.(granted);
      return undefined;
    } catch (error) {
      return { status: 502, body: springError(502, 'Bad Gateway', `the authorization service could not write the permissions: ${(error as Error).message}`, path) };
    }
  }

  private async catalog(method: string, path: string, body: unknown, caller: Caller): Promise<Answer> {
    const { catalog } = this.options;
    const full = `${CATALOG_BASE}${path}`;
    const notFound = (what: string): Answer => ({ status: 404, body: springError(404, 'Not Found', what, full) });
    /** The data source of a route, or its 404. */
    const sourceOf = (id: string) => catalog.dataSource(id) ?? notFound(`data source ${id} does not exist`);
    const admin = () => this.requireAdmin(caller, full);
    const routes: Array<Route<Answer>> = [
      { method: 'GET', pattern: '/datasources', handle: () => ({ status: 200, body: catalog.listDataSources() }) },
      {
        method: 'GET',
        pattern: '/datasources/:source/enablements/:enablement/datasets',
        handle: ({ source, enablement }) => (source !== CATALOG_ALL && !catalog.dataSource(source!) ? notFound(`data source ${source} does not exist`) : { status: 200, body: catalog.listDataSets(source!, enablement!) }),
      },
      {
        method: 'GET',
        pattern: '/datasources/:source/datasets',
        handle: ({ source }) => {
          const found = sourceOf(source!);
          return 'status' in found ? found : { status: 200, body: found.offered };
        },
      },
      {
        method: 'GET',
        pattern: '/datasources/:source/enablements',
        handle: ({ source }) => {
          const found = sourceOf(source!);
          return 'status' in found ? found : { status: 200, body: catalog.listEnablements(found.id) };
        },
      },
      {
        method: 'POST',
        pattern: '/datasources/:source/enablements',
        handle: ({ source }) => {
          const found = sourceOf(source!);
          if ('status' in found) return found;
          const forbidden = admin();
          if (forbidden) return forbidden;
          const request = body as { name?: unknown; groups?: unknown } | undefined;
          if (!request || typeof request.name !== 'string' || request.name.trim() === '') return { status: 400, body: springError(400, 'Bad Request', 'name: must not be blank', full) };
          if (!Array.isArray(request.groups) || request.groups.length === 0 || !request.groups.every((g) => typeof g === 'string' && g !== '')) {
            return { status: 400, body: springError(400, 'Bad Request', 'groups: must name at least one group', full) };
          }
          const created = catalog.createEnablement(found.id, request.name, request.groups as string[]);
          if (created === 'exists') return { status: 409, body: springError(409, 'Conflict', `enablement "${request.name}" already exists for data source ${found.name}`, full) };
          return { status: 201, body: created, headers: { location: `${full}/${created.id}` } };
        },
      },
      {
        method: 'PUT',
        pattern: '/datasources/:source/enablements/:enablement/datasets/:dataSet',
        handle: ({ source, enablement: enablementId, dataSet: dataSetName }) => {
          const found = sourceOf(source!);
          if ('status' in found) return found;
          const enablement = catalog.enablements.get(enablementId!);
          if (!enablement || enablement.dataSourceId !== found.id) return notFound(`enablement ${enablementId} does not exist`);
          const forbidden = admin();
          if (forbidden) return forbidden;
          if (!found.offered.some((d) => d.name === dataSetName)) return notFound(`data source ${found.name} offers no data set "${dataSetName}"; it offers ${found.offered.map((d) => d.name).join(', ')}`);
          const { created } = catalog.enable(enablement.id, dataSetName!);
          return { status: created ? 202 : 200, body: { enablement: enablement.id, dataSet: dataSetName, status: created ? 'enabling' : 'enabled' } };
        },
      },
      {
        method: 'GET',
        pattern: '/datasources/:source/enablements/:enablement/datasets/:dataSet/storages/:storage',
        handle: ({ source, enablement, dataSet, storage }) => {
          const foundSource = sourceOf(source!);
          if ('status' in foundSource) return foundSource;
          const found = catalog.findEnabled(foundSource.id, enablement!, dataSet!);
          if (!found) return notFound(`data set ${dataSet} is not enabled in enablement ${enablement}`);
          if (storage !== found.dataSet.storageId) return notFound(`storage ${storage} does not exist for data set ${found.dataSet.name}`);
          // The manual call of platforms before 1.15.165: permissions on the data set's tables for the enablement's groups.
          const tables = [...this.options.store.tables.entries()].filter(([, t]) => t.topic === found.dataSet.topic).map(([name]) => name);
          const permissions = tables.map((table) => catalog.grant(table, found.dataSet.name, found.enablement, 'storage-touch'));
          return {
            status: 200,
            granted: permissions,
            body: {
              name: 'default',
              id: found.dataSet.storageId,
              dataSet: found.dataSet.name,
              permissions: permissions.map((p) => ({ table: p.table, groups: p.groups, privilege: p.privilege })),
              message: tables.length ? `read permission on ${tables.join(', ')} granted to ${found.enablement.groups.join(', ')}` : `no table consumes topic ${found.dataSet.topic} yet; nothing granted`,
            },
          };
        },
      },
    ];
    const routed = await routeRequest(routes, method, path);
    if (routed.kind === 'found') return routed.answer;
    return routed.kind === 'wrong-method' ? methodNotAllowed(full) : notFound('No endpoint');
  }


  private async authenticate(authorization: string | undefined, path: string): Promise<Caller | Answer> {
    const unauthorized = (description: string): Answer => ({
      status: 401,
      body: springError(401, 'Unauthorized', description, path),
      headers: { 'www-authenticate': `Bearer error="invalid_token", error_description="${description.replace(/"/g, "'")}"` },
    });
    if (!authorization?.startsWith('Bearer ')) return { status: 401, body: springError(401, 'Unauthorized', 'Full authentication is required to access this resource', path), headers: { 'www-authenticate': 'Bearer' } };
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(authorization.slice(7).trim(), this.jwks, { issuer: this.options.issuer, ...(this.options.audience ? { audience: this.options.audience } : {}), algorithms: ['RS256'] }));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ERR_JWT_EXPIRED') return unauthorized('Jwt expired');
      if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') return unauthorized(`The ${(error as { claim?: string }).claim ?? 'claim'} claim is not valid`);
      return unauthorized('Invalid token: signature or format');
    }
    const groups = Array.isArray(payload.groups) ? payload.groups.filter((g): g is string => typeof g === 'string') : [];
    return { username: typeof payload.preferred_username === 'string' ? payload.preferred_username : String(payload.sub), groups };
  }

  private requireAdmin(caller: Caller, path: string): Answer | undefined {
    if (caller.groups.includes(this.options.adminGroup)) return undefined;
    return { status: 403, body: springError(403, 'Forbidden', `user ${caller.username} is not in group ${this.options.adminGroup} and may not provision`, path) };
  }

  /** Test controls: read the log, set faults and health, reset. Not part of any platform. */
  private admin(method: string, path: string, body: unknown): Answer {
    try {
      if (method === 'GET' && path === '/__sandbox/requests') return { status: 200, body: this.options.log.entries };
      if (method === 'POST' && path === '/__sandbox/faults') {
        this.options.faults.update((body ?? {}) as Partial<FaultSettings>);
        return { status: 200, body: this.options.faults.settings };
      }
      if (method === 'POST' && path === '/__sandbox/health') {
        const { component, status } = (body ?? {}) as { component?: string; status?: string };
        this.options.health.set(String(component), String(status ?? 'DOWN'));
        return { status: 200, body: this.options.health.check() };
      }
      if (method === 'POST' && path === '/__sandbox/reset') {
        this.options.faults.reset();
        this.options.health.reset();
        this.options.log.clear();
        return { status: 204 };
      }
      if (method === 'GET' && path === '/__sandbox/state') {
        const { catalog, store } = this.options;
        return { status: 200, body: { schemas: [...store.schemas.keys()], tables: [...store.tables.keys()], topics: [...catalog.topics], permissions: catalog.permissions, connections: this.connections } };
      }
    } catch (error) {
      return { status: 400, body: springError(400, 'Bad Request', (error as Error).message, path) };
    }
    return { status: 404, body: springError(404, 'Not Found', 'unknown sandbox admin endpoint', path) };
  }
}

function methodNotAllowed(path: string): Answer {
  return { status: 405, body: springError(405, 'Method Not Allowed', 'Request method not supported', path) };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function untilTime(at: number): Promise<void> {
  const wait = at - performance.now();
  if (wait >= 1) await sleep(wait);
}
