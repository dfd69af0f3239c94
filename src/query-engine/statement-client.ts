/**
 * The SQL query engine's HTTP statement protocol (Trino's client protocol):
 * POST /v1/statement with the SQL as text, then GET each `nextUri` until none is
 * left, collecting `columns` and `data`; a failed query ends with `error`.
 * It runs over dpgw's HTTP transport, so the engine gets the same bearer token,
 * CA file, proxy, timeout, retries and masked --verbose trace as the gateway.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DpgwError } from '../errors/dpgw-error.js';
import { GatewayError, type HttpService } from '../gateway/gateway-error.js';
import { DEFAULT_TIMEOUT_MS, HttpTransport, type HttpTransportOptions } from '../gateway/http-transport.js';
import { serverText } from '../text/terminal-text.js';

/** The part of a statement answer dpgw reads. */
interface StatementAnswer {
  id?: string;
  nextUri?: string;
  stats?: { state?: string };
  columns?: Array<{ name: string; type: string }>;
  data?: unknown[][];
  error?: EngineErrorBody;
}

interface EngineErrorBody {
  message?: string;
  errorCode?: number;
  errorName?: string;
  errorType?: string;
}

export interface QueryResult {
  queryId: string;
  columns: Array<{ name: string; type: string }>;
  rows: unknown[][];
}

/** The engine ran the statement and refused or failed it: a query error, which `verify` may expect. */
export class QueryFailed extends DpgwError {
  readonly queryId: string;
  readonly errorName: string;
  readonly errorType: string;
  readonly engineMessage: string;

  constructor(sql: string, queryId: string, error: EngineErrorBody) {
    // The engine's words, shown on one line: any control character or line break escaped.
    const engineMessage = serverText(String(error.message ?? 'the query failed'));
    super(error.errorName === 'PERMISSION_DENIED' ? 'QUERY_ACCESS_DENIED' : 'QUERY_FAILED', `the query engine refused \`${sql}\`: ${engineMessage}`, {
      details: { queryId, errorName: error.errorName, errorType: error.errorType, errorCode: error.errorCode },
    });
    this.name = 'QueryFailed';
    this.queryId = queryId;
    this.errorName = serverText(String(error.errorName ?? 'UNKNOWN'));
    this.errorType = serverText(String(error.errorType ?? 'UNKNOWN'));
    this.engineMessage = engineMessage;
  }

  get accessDenied(): boolean {
    return this.errorName === 'PERMISSION_DENIED';
  }
}

export interface StatementClientOptions extends Omit<HttpTransportOptions, 'service'> {
  /** The session catalog (X-Trino-Catalog): unqualified names such as `default.track` resolve in it. */
  catalog: string;
  /** How long one statement may take in all, its pages included (default: timeoutMs); a query left QUEUED is cancelled then. */
  statementDeadlineMs?: number;
}

const MAX_PAGES = 10_000;

/**
 * The pause between two pages that bring nothing (the query QUEUED, or running with no
 * rows yet): 50 ms, doubled after each empty page up to 1 s, and none after a page with
 * rows — as Trino's own clients poll. An engine that long-polls holds each request until
 * it has news, and the time it held one counts towards the pause; one that answers at
 * once (a proxy, a queue in front of it) was asked 7,100 times in 4 s (issue #30).
 */
export const PAGE_PAUSE = { firstMs: 50, maxMs: 1000 } as const;

/** How the query engine's refusals are explained: its own setting, and what its 401 means. */
export const QUERY_ENGINE_SERVICE: HttpService = {
  name: 'the query engine',
  urlFlag: '--query-engine',
  hints: { 401: "the query engine did not accept the token: run 'dpgw login' for this profile; the engine must trust the identity provider's keys (docs/query-access.md)" },
};

export class StatementClient {
  private readonly http: HttpTransport;
  private readonly origin: string;

  constructor(private readonly options: StatementClientOptions) {
    this.http = new HttpTransport({ ...options, service: QUERY_ENGINE_SERVICE });
    this.origin = new URL(this.http.baseUrl).origin;
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** The session catalog statements run in. */
  get catalog(): string {
    return this.options.catalog;
  }

  close(): void {
    this.http.close();
  }

  /** Runs one statement to its end; stops reading (and cancels the query) after `maxRows` rows. */
  async query(sql: string, { maxRows = 10_000 }: { maxRows?: number } = {}): Promise<QueryResult> {
    const deadlineMs = this.options.statementDeadlineMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const deadline = Date.now() + deadlineMs;
    let answer = await this.call('POST', '/v1/statement', sql);
    const queryId = answer.id ?? 'unknown';
    let columns = answer.columns ?? [];
    const rows: unknown[][] = [...(answer.data ?? [])];
    let pauseMs = 0;
    // When the last page was asked for: the pause counts from there, so a request the engine held is pause enough.
    let askedAt = Date.now();
    for (let page = 0; answer.nextUri && page < MAX_PAGES; page++) {
      if (rows.length >= maxRows) {
        await this.cancel(answer.nextUri);
        break;
      }
      if (Date.now() > deadline) {
        // A query the engine keeps QUEUED (no worker, a full queue) would otherwise be polled for hours.
        await this.cancel(answer.nextUri);
        throw new DpgwError('QUERY_TIMEOUT', `the query engine did not finish \`${sql}\` within ${deadlineMs / 1000} s (query ${serverText(queryId)}${answer.stats?.state ? `, still ${serverText(String(answer.stats.state))}` : ''}); it was cancelled`, {
          where: this.origin,
          hint: 'check that the engine has workers and a free queue, or allow longer with --timeout <seconds>',
        });
      }
      // What the engine already held the last request for (long polling) is part of the pause; never past the deadline.
      const waitMs = Math.min(pauseMs - (Date.now() - askedAt), deadline - Date.now());
      if (waitMs > 0) await sleep(waitMs);
      askedAt = Date.now();
      answer = await this.call('GET', this.sameOrigin(answer.nextUri, sql));
      if (answer.columns) columns = answer.columns;
      if (answer.data?.length) rows.push(...answer.data);
      pauseMs = answer.data?.length ? 0 : pauseMs === 0 ? PAGE_PAUSE.firstMs : Math.min(pauseMs * 2, PAGE_PAUSE.maxMs);
    }
    if (answer.error) throw new QueryFailed(sql, queryId, answer.error);
    return { queryId, columns, rows: rows.slice(0, maxRows) };
  }

  private async call(method: 'GET' | 'POST', path: string, sql?: string): Promise<StatementAnswer> {
    try {
      const response = await this.http.request<StatementAnswer>(method, path, {
        text: sql,
        headers: { 'x-trino-catalog': this.options.catalog, 'x-trino-source': 'dpgw' },
        // Submitting a statement is not idempotent; its pages are.
        retry: method === 'GET',
      });
      if (typeof response.body !== 'object' || response.body === null) {
        throw new DpgwError('QUERY_ANSWER_UNUSABLE', `${method} ${response.url} did not answer with a statement document`, { hint: 'check that --query-engine is the query engine, not another service' });
      }
      return response.body;
    } catch (error) {
      if (error instanceof GatewayError && error.status === 403 && /over HTTP/i.test(error.bodyMessage)) {
        throw new DpgwError('QUERY_ENGINE_NEEDS_HTTPS', `the query engine accepts tokens over HTTPS only: ${error.bodyMessage}`, { where: error.url, hint: 'use its https:// URL for --query-engine (with --ca-file for a private CA)' });
      }
      if (error instanceof GatewayError && error.status === 401) {
        throw new DpgwError('QUERY_TOKEN_REFUSED', `the query engine refused the token: ${error.bodyMessage || '401 Unauthorized'}`, {
          where: error.url,
          hint: 'sign in again (`dpgw login`), and check that the engine trusts tokens of this identity realm',
        });
      }
      throw error;
    }
  }

  /** The bearer token goes only to the engine it was meant for, never to a host a page names. */
  private sameOrigin(uri: string, sql: string): string {
    const origin = originOf(uri);
    if (origin === undefined) throw new DpgwError('QUERY_NEXT_PAGE_REFUSED', `the query engine answered \`${sql}\` with a next page that is not a URL: ${serverText(uri)}`);
    if (origin !== this.origin) {
      throw new DpgwError('QUERY_NEXT_PAGE_REFUSED', `the query engine's next page for \`${sql}\` is on ${serverText(origin)}, not on ${this.origin}; dpgw sends the token to the configured engine only`, {
        hint: 'use the URL the engine knows itself by for --query-engine (or have it honour forwarded headers: http-server.process-forwarded=true)',
      });
    }
    return uri;
  }

  private async cancel(nextUri: string): Promise<void> {
    // The cancel carries the token too: only to the configured engine (else the query ends by itself).
    if (originOf(nextUri) !== this.origin) return;
    try {
      await this.http.request('DELETE', nextUri, { retry: false, acceptStatuses: [204, 404, 410] });
    } catch {
      // Cancelling frees the engine early; the query ends by itself anyway.
    }
  }
}

function originOf(uri: string): string | undefined {
  try {
    return new URL(uri).origin;
  } catch {
    return undefined;
  }
}

/** A name as an SQL identifier: bare when it is a plain lower-case word, else double-quoted. */
export function sqlIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}
