/**
 * HTTP for the gateway: got with keep-alive agents, a per-request timeout,
 * dpgw's retry policy (retry-policy.ts: what may be sent again, and riding out an
 * outage of a server that answered before), one token refresh on 401, and a masked trace.
 * got's own retry is off: the policy lives in retry-policy.ts where it is tested.
 */
import type http from 'node:http';
import type https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Got, type Method, RequestError } from 'got';
import { DpgwError } from '../errors/dpgw-error.js';
import { maskHeaders, maskSecrets, redactText } from '../secrets/redaction.js';
import { plainGot } from '../net/trust-and-proxy.js';
import { GATEWAY_SERVICE, GatewayError, type HttpService } from './gateway-error.js';
import { DEFAULT_RETRY, nextRetryDelay, type AttemptOutcome, type RetryOptions } from './retry-policy.js';
import { hostOf } from '../net/url-host.js';
import { serverText } from '../text/terminal-text.js';
import { MAX_ANSWER_DEPTH, nestedDeeperThan } from '../net/answer-bounds.js';

/**
 * The methods a request may name: got's list, spelled here so that the declarations a library
 * user compiles against name no type of got, which an installed dpgw does not bring (docs/library.md).
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'HEAD' | 'DELETE' | 'OPTIONS' | 'TRACE' | 'get' | 'post' | 'put' | 'patch' | 'head' | 'delete' | 'options' | 'trace';

/**
 * Supplies the bearer token for a request. `forceRefresh` is set after the
 * gateway answered 401 to the token `refused`: the supplier should fetch a new
 * one, unless it already has (several requests in flight may be refused the
 * same token, and one refresh serves them all).
 * Returning undefined sends the request without Authorization.
 */
export type TokenSupplier = (options: { forceRefresh: boolean; refused?: string }) => Promise<string | undefined>;

export interface HttpTransportOptions {
  baseUrl: string;
  tokenSupplier?: TokenSupplier;
  /** Per attempt; default 30 s. */
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Receives trace lines (already masked) when set; --verbose wires it to stderr. */
  trace?: (line: string) => void;
  userAgent?: string;
  /** Certificate authorities to trust (PEM), replacing Node's defaults; see net/trust-and-proxy.ts. */
  certificateAuthorities?: string[];
  /** Which service this is, for the hints of its refusals and of a failed connection (default: the gateway). */
  service?: HttpService;
}

export interface RequestOptions {
  body?: unknown;
  /** Statuses besides 2xx that are answers rather than errors (health reports DOWN with 503). */
  acceptStatuses?: readonly number[];
  /** false: never retried, whatever the method. */
  retry?: boolean;
  /** 'optional': send a token if one can be had, never fail for lack of one. */
  auth?: 'required' | 'optional' | 'none';
  /** A text body (sent as text/plain) instead of JSON. */
  text?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

export interface HttpResponse<T> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, the raw text when not JSON, or undefined when empty. */
  body: T | undefined;
  url: string;
}

/** An answer outside 2xx that is not tried again, as sent: what a GatewayError is made of. */
export interface HttpRefusal {
  refused: true;
  status: number;
  method: string;
  url: string;
  /** The body as text, unparsed (empty when there was none). */
  body: string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
const TRACE_BODY_LIMIT = 2_000;

export class HttpTransport {
  readonly baseUrl: string;
  private readonly options: HttpTransportOptions;
  private readonly retry: RetryOptions;
  /** --timeout bounds a call in all, its retries and their waits too: the policy's bounds cut to it, once (not per request). */
  private readonly retryWithinBudget: RetryOptions;
  private readonly budgetMs: number;
  private readonly agents: { http: http.Agent; https: https.Agent };
  /** got with this transport's fixed options merged once, not on every request. */
  private readonly got: Got;
  /** The server has answered once: a connection it then refuses is an outage, ridden out (retry-policy.ts). */
  private answeredOnce = false;
  /** At most `limit` requests on the wire at once, the rest waiting their turn in order (limitAtOnce). */
  private atOnce?: { limit: number; busy: number; waiting: Array<() => void> };

  constructor(options: HttpTransportOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.budgetMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retryWithinBudget = { ...this.retry, maxElapsedMs: Math.min(this.retry.maxElapsedMs, this.budgetMs), outageMs: Math.min(this.retry.outageMs, this.budgetMs) };
    // Keep-alive: provision runs many requests; a new TCP+TLS handshake for each is the slow part.
    // Through HTTPS_PROXY / HTTP_PROXY when the environment names one for this gateway.
    ({ agents: this.agents, got: this.got } = plainGot(this.baseUrl, options.certificateAuthorities, options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
  }

  /**
   * From now on, at most `limit` requests on the wire at once; the others wait their turn,
   * first asked first sent, the wait counted in their --timeout. provision sets it so that
   * its reads before the run can all be asked together while the gateway still sees no
   * more connections than the run's concurrency allows.
   */
  limitAtOnce(limit: number): void {
    this.atOnce = { limit: Math.max(1, limit), busy: 0, waiting: [] };
  }

  /** A place on the wire, and what gives it back (to the next waiting request, if any). */
  private async place(): Promise<() => void> {
    const gate = this.atOnce;
    if (!gate) return () => undefined;
    // A freed place passes straight to the next waiting request: `busy` counts places, not requests.
    if (gate.busy < gate.limit) gate.busy++;
    else await new Promise<void>((resolve) => gate.waiting.push(resolve));
    return () => {
      const next = gate.waiting.shift();
      if (next) next();
      else gate.busy--;
    };
  }

  /** Release pooled connections so the process can exit at once. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** `path` is relative to the base URL, or an absolute URL the server handed out (a next page). */
  async request<T>(method: HttpMethod, path: string, options: RequestOptions = {}): Promise<HttpResponse<T>> {
    const answer = await this.exchange<T>(method, path, options);
    if ('refused' in answer) throw this.refusalError(answer);
    return answer;
  }

  /**
   * As request, but a refusal with one of `statuses` (once the retry rules let it be) is returned
   * rather than thrown: a read that may well find nothing (provision reads every table and schema
   * of its manifest before it starts) builds no error, with its stack, for each.
   */
  async requestOrRefusal<T>(method: HttpMethod, path: string, statuses: readonly number[], options: RequestOptions = {}): Promise<HttpResponse<T> | HttpRefusal> {
    const answer = await this.exchange<T>(method, path, options);
    if ('refused' in answer && !statuses.includes(answer.status)) throw this.refusalError(answer);
    return answer;
  }

  private refusalError({ status, method, url, body }: HttpRefusal): GatewayError {
    return new GatewayError(status, method, url, body, this.options.service);
  }

  private async exchange<T>(method: HttpMethod, path: string, options: RequestOptions): Promise<HttpResponse<T> | HttpRefusal> {
    const url = /^https?:\/\//i.test(path) ? path : `${this.baseUrl}${path}`;
    const upper = method.toUpperCase();
    let token = await this.token(options.auth ?? 'required', false);
    // --timeout bounds the call in all: every attempt and every wait between them (the help says so).
    const started = Date.now();
    const { budgetMs, retryWithinBudget: retry } = this;
    let refreshed = false;

    for (let attempt = 1; ; attempt++) {
      const release = await this.place();
      let outcome: Awaited<ReturnType<HttpTransport['attempt']>>;
      try {
        outcome = await this.attempt(upper, url, options, token, Math.max(1, budgetMs - (Date.now() - started)));
      } finally {
        release();
      }
      const tried = { method: upper, url, attempt, started, retry, options };
      if ('error' in outcome) {
        await sleep(this.delayAfterNetworkError(outcome.error, tried));
        continue;
      }
      this.answeredOnce = true;
      const { status, headers, body } = outcome.response;
      if (status === 401 && token !== undefined && !refreshed && this.options.tokenSupplier) {
        // The server refused the token before doing anything, so any method may be re-sent once.
        refreshed = true;
        const fresh = await this.refreshedToken(options, token);
        if (fresh !== undefined) {
          token = fresh;
          continue;
        }
      }
      if ((status >= 200 && status < 300) || options.acceptStatuses?.includes(status)) {
        return { status, headers, body: parseBody<T>(body, upper, url), url };
      }
      const delay = this.delayAfterStatus(outcome.response, tried);
      if (delay === undefined) return { refused: true, status, method: upper, url, body };
      await sleep(delay);
    }
  }

  /** A new token after the server refused `refused`; undefined when the supplier has none other. */
  private async refreshedToken(options: RequestOptions, refused: string): Promise<string | undefined> {
    const fresh = await this.token(options.auth ?? 'required', true, refused);
    if (fresh === undefined || fresh === refused) return undefined;
    this.trace(`  token refused; retrying once with a refreshed token`);
    return fresh;
  }

  /** How long to wait before trying again after an answer outside 2xx; undefined when it is not tried again (a refusal). */
  private delayAfterStatus({ status, headers }: { status: number; headers: Record<string, string | string[] | undefined> }, tried: TriedRequest): number | undefined {
    const { method, attempt, retry, options } = tried;
    const delay = options.retry === false ? undefined : nextRetryDelay(method, { status, retryAfter: header(headers, 'retry-after') }, attempt, Date.now() - tried.started, retry);
    if (delay === undefined) return undefined;
    this.trace(`  retry ${attempt}/${this.retry.limit} in ${delay} ms after ${status}`);
    return delay;
  }

  /** How long to wait before trying again after no answer; the network error when it is not tried again. */
  private delayAfterNetworkError(error: RequestError, tried: TriedRequest): number {
    const { method, url, attempt, retry, options } = tried;
    const code = error.code ?? 'ERROR';
    const retryOutcome: AttemptOutcome = { errorCode: code, answeredBefore: this.answeredOnce, reusedConnection: error.request?.reusedSocket === true && error.response === undefined };
    const delay = options.retry === false ? undefined : nextRetryDelay(method, retryOutcome, attempt, Date.now() - tried.started, retry);
    if (delay === undefined) throw networkError(method, url, error, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS, this.options.service ?? GATEWAY_SERVICE);
    this.trace(`  retry ${attempt}/${this.retry.limit} in ${delay} ms after ${code}`);
    return delay;
  }

  private async token(auth: 'required' | 'optional' | 'none', forceRefresh: boolean, refused?: string): Promise<string | undefined> {
    if (auth === 'none' || !this.options.tokenSupplier) return undefined;
    if (auth === 'optional') {
      try {
        return await this.options.tokenSupplier({ forceRefresh, refused });
      } catch {
        return undefined;
      }
    }
    return this.options.tokenSupplier({ forceRefresh, refused });
  }

  private async attempt(
    method: string,
    url: string,
    { body, text, headers: extraHeaders }: RequestOptions,
    token: string | undefined,
    timeoutMs: number,
  ): Promise<{ response: { status: number; headers: Record<string, string | string[] | undefined>; body: string } } | { error: RequestError }> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.options.userAgent ?? 'dpgw', ...extraHeaders };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const payload = text ?? (body === undefined ? undefined : JSON.stringify(body));
    if (payload !== undefined) headers['content-type'] = text !== undefined ? 'text/plain; charset=utf-8' : 'application/json';

    // Trace lines are made only when someone reads them: a run sends thousands of requests.
    const tracing = this.options.trace !== undefined;
    if (tracing) {
      this.trace(`→ ${method} ${url}`);
      for (const [name, value] of Object.entries(maskHeaders(headers))) this.trace(`  ${name}: ${value}`);
      if (body !== undefined) this.trace(`  ${clipForTrace(JSON.stringify(maskSecrets(body)))}`);
      if (text !== undefined) this.trace(`  ${clipForTrace(text)}`);
    }
    const started = tracing ? performance.now() : 0;
    try {
      // The client's own timeout (plainGot) is the whole budget: a first try sent at once needs no option of its own, which got would merge anew.
      const response = await this.got(url, { method: method as HttpMethod satisfies Method, headers, body: payload, ...(timeoutMs < this.budgetMs ? { timeout: { request: timeoutMs } } : {}) });
      if (tracing) {
        this.trace(`← ${response.statusCode} ${method} ${url} ${Math.round(performance.now() - started)} ms`);
        // The server's words, every control escaped (line breaks too): a body cannot start a line of the trace.
        if (response.body) this.trace(`  ${clipForTrace(serverText(redactText(response.body)))}`);
      }
      return { response: { status: response.statusCode, headers: response.headers, body: response.body } };
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      if (tracing) this.trace(`✗ ${method} ${url} ${error.code ?? 'ERROR'} after ${Math.round(performance.now() - started)} ms`);
      return { error };
    }
  }

  private trace(line: string): void {
    this.options.trace?.(redactText(line));
  }
}

/** One try of a request, as the retry rules weigh it. */
interface TriedRequest {
  method: string;
  url: string;
  attempt: number;
  /** When the request's first try began (Date.now()): the retries share its budget. */
  started: number;
  retry: RetryOptions;
  options: RequestOptions;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseBody<T>(text: string, method: string, url: string): T | undefined {
  // Most answers start with { or [: only one that starts with a space, a control or beyond ASCII may be all blank.
  const first = text.charCodeAt(0);
  if (text.length === 0 || ((first <= 0x20 || first > 0x7e) && text.trim() === '')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text as unknown as T;
  }
  // Checked before anything walks it: rendering a schema or `--json` would overflow the stack instead.
  if (nestedDeeperThan(value, MAX_ANSWER_DEPTH)) {
    throw new DpgwError('ANSWER_UNUSABLE', `answer too deep: ${method} ${url} answered JSON nested more than ${MAX_ANSWER_DEPTH} levels deep, which dpgw does not read`, {
      hint: 'the server is not the one dpgw expects there, or it is misbehaving; nothing was done with the answer — check the URL setting',
      details: { method, url, limit: MAX_ANSWER_DEPTH },
    });
  }
  return value as T;
}

function clipForTrace(text: string): string {
  return text.length > TRACE_BODY_LIMIT ? `${text.slice(0, TRACE_BODY_LIMIT)}… (${text.length} chars)` : text;
}

function networkError(method: string, url: string, error: RequestError, timeoutMs: number, service: HttpService): DpgwError {
  const unreachableHint = `check ${service.urlFlag} (see \`dpgw config\`) and that ${service.name} is running`;
  const origin = hostOf(url);
  if (error.code === 'ETIMEDOUT' || error.name === 'TimeoutError') {
    return new DpgwError('SERVER_TIMEOUT', `${method} ${url} got no answer within ${formatSeconds(timeoutMs)}`, {
      hint: `${unreachableHint}; or allow longer with --timeout <seconds>`,
      details: { method, url, code: 'ETIMEDOUT' },
      cause: error,
    });
  }
  if (error.code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(error.code)) {
    return new DpgwError('SERVER_UNREACHABLE', `the certificate of ${origin} is not trusted for ${method} ${url} (${error.code})`, {
      hint: 'pass --ca-file <PEM of its certificate authority> (or set NODE_EXTRA_CA_CERTS)',
      details: { method, url, code: error.code },
      cause: error,
    });
  }
  const what = error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN' ? `cannot resolve ${origin}` : `cannot reach ${origin}`;
  // An https:// URL for a server that speaks plain HTTP: its answer is no TLS record (OpenSSL's "wrong version number").
  const plainHttpThere = error.code === 'EPROTO' && url.startsWith('https:');
  return new DpgwError('SERVER_UNREACHABLE', `${what} for ${method} ${url} (${error.code ?? error.message})`, {
    hint: plainHttpThere ? `${origin} does not answer in TLS: if it serves plain HTTP, give ${service.urlFlag} as http://${origin}` : unreachableHint,
    details: { method, url, code: error.code },
    cause: error,
  });
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
