/**
 * The dashboard tool's REST API (Superset): a JWT from POST /api/v1/security/login,
 * and for every POST/PUT the CSRF token of GET /api/v1/security/csrf_token/ together
 * with the `session` cookie that call sets (one jar per run). Runs over dpgw's HTTP
 * transport: CA file, proxy, timeout, retries of idempotent calls, masked trace, and
 * one new sign-in when the JWT is refused.
 */
import type { Method } from 'got';
import { DpgwError } from '../errors/dpgw-error.js';
import { GatewayError, type HttpService } from '../gateway/gateway-error.js';
import { HttpTransport, type HttpTransportOptions } from '../gateway/http-transport.js';
import { registerSecret } from '../secrets/redaction.js';
import { serverText } from '../text/terminal-text.js';

export interface SupersetClientOptions extends Omit<HttpTransportOptions, 'tokenSupplier' | 'service'> {
  username: string;
  password: string;
}

/** A filter of Superset's list endpoints: `col opr value`. */
export interface ListFilter {
  col: string;
  opr: 'eq';
  value: string | number;
}

/** How the dashboard tool's refusals are explained: its own setting, and what its 401 means. */
export const DASHBOARD_SERVICE: HttpService = {
  name: 'the dashboard tool',
  urlFlag: '--dashboard-url',
  hints: { 401: 'the dashboard tool did not accept the sign-in: check --dashboard-user and --dashboard-password' },
};

export class SupersetClient {
  private readonly http: HttpTransport;
  private accessToken?: string;
  private csrf?: { token: string; cookie: string };

  /** The dashboard user this client signs in as, for messages. */
  get username(): string {
    return this.options.username;
  }

  constructor(private readonly options: SupersetClientOptions) {
    this.http = new HttpTransport({
      ...options,
      service: DASHBOARD_SERVICE,
      tokenSupplier: async ({ forceRefresh }) => {
        if (forceRefresh || this.accessToken === undefined) {
          this.accessToken = await this.login();
          this.csrf = undefined;
        }
        return this.accessToken;
      },
    });
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  close(): void {
    this.http.close();
  }

  private async login(): Promise<string> {
    try {
      const answer = await this.http.request<{ access_token?: string }>('POST', '/api/v1/security/login', {
        auth: 'none',
        retry: false,
        body: { username: this.options.username, password: this.options.password, provider: 'db', refresh: false },
      });
      const token = answer.body?.access_token;
      if (!token) throw new DpgwError('DASHBOARD_SIGN_IN_REFUSED', `the dashboard tool at ${this.baseUrl} answered the sign-in without a token`);
      registerSecret(token);
      return token;
    } catch (error) {
      if (error instanceof GatewayError && error.status === 401) {
        throw new DpgwError('DASHBOARD_SIGN_IN_REFUSED', `the dashboard tool refused the sign-in of ${this.options.username}: ${error.bodyMessage || 'wrong user or password'}`, {
          where: `${this.baseUrl}/api/v1/security/login`,
          hint: 'check --dashboard-user and the --dashboard-password reference',
        });
      }
      throw error;
    }
  }

  /** The CSRF token and the session cookie it belongs to, asked once per run. */
  private async csrfHeaders(): Promise<Record<string, string>> {
    if (!this.csrf) {
      const answer = await this.http.request<{ result?: string }>('GET', '/api/v1/security/csrf_token/');
      const setCookie = answer.headers['set-cookie'];
      const cookie = (Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []).map((c) => c.split(';')[0]!).find((c) => c.startsWith('session='));
      if (!answer.body?.result || !cookie) throw new DpgwError('DASHBOARD_CSRF_MISSING', `the dashboard tool gave no CSRF token and session cookie at ${answer.url}`);
      registerSecret(answer.body.result);
      registerSecret(cookie.slice('session='.length));
      this.csrf = { token: answer.body.result, cookie };
    }
    return { 'x-csrftoken': this.csrf.token, cookie: this.csrf.cookie, referer: this.baseUrl };
  }

  async get<T>(path: string): Promise<T> {
    return forbiddenSaysRole(() => this.http.request<T>('GET', path)).then((answer) => answer.body as T);
  }

  /** The records of a list endpoint that pass every filter (all pages up to 100 records). */
  async list<T>(resource: 'database' | 'dataset' | 'dashboard' | 'chart', filters: ListFilter[]): Promise<T[]> {
    const q = rison({ filters, page_size: 100 });
    const path = `/api/v1/${resource}/?q=${encodeURIComponent(q)}`;
    const records = (await this.get<{ result?: T[] }>(path)).result ?? [];
    for (const record of records) checkedId(record, 'GET', `${this.baseUrl}${path}`);
    return records;
  }

  async send<T>(method: Extract<Method, 'POST' | 'PUT' | 'DELETE'>, path: string, body?: unknown): Promise<T> {
    const headers = await this.csrfHeaders();
    const answer = (await forbiddenSaysRole(() => this.http.request<T>(method, path, { body, headers, retry: false }))).body as T;
    return checkedId(answer, method, `${this.baseUrl}${path}`);
  }
}

/**
 * A record's id goes into request paths and the URLs dpgw prints (`…/explore/?slice_id=7`): the
 * tool's ids are whole numbers, and an answer whose id is anything else is refused, not used.
 */
function checkedId<T>(record: T, method: string, url: string): T {
  if (record === null || typeof record !== 'object' || !Object.hasOwn(record, 'id')) return record;
  const id = (record as unknown as { id: unknown }).id;
  if (!Number.isSafeInteger(id) || (id as number) < 0) {
    throw new DpgwError('ANSWER_UNUSABLE', `${method} ${url} answered a record whose id is not a whole number (${serverText(String(JSON.stringify(id)).slice(0, 200))}); nothing was done with it`, {
      hint: 'check --dashboard-url: the dashboard tool there does not answer as Superset does',
    });
  }
  return record;
}

/** The dashboard tool's 403 is about its own roles, not the query engine's groups: say which role. */
async function forbiddenSaysRole<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof GatewayError && error.status === 403) {
      throw new DpgwError('DASHBOARD_FORBIDDEN', `${error.method} ${error.url} was forbidden by the dashboard tool${error.bodyMessage ? `: ${error.bodyMessage}` : ''}`, {
        hint: 'the dashboard user needs a role that may create data sets, charts and dashboards (Alpha, or a custom role with those permissions)',
        details: error.details,
      });
    }
    throw error;
  }
}

/** Rison, the URL form of JSON that Superset's list endpoints read (only what dpgw sends). */
export function rison(value: unknown): string {
  if (value === null) return '!n';
  if (typeof value === 'boolean') return value ? '!t' : '!f';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return /^[a-zA-Z_./~][a-zA-Z0-9_./~-]*$/.test(value) ? value : `'${value.replace(/!/g, '!!').replace(/'/g, "!'")}'`;
  if (Array.isArray(value)) return `!(${value.map(rison).join(',')})`;
  return `(${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${rison(k)}:${rison(v)}`)
    .join(',')})`;
}
