import { DpgwError } from '../errors/dpgw-error.js';
import type { ErrorCode } from '../errors/error-codes.js';
import { messageFromErrorBody, type ErrorBodyShape } from './error-body.js';
import { STATUS_CODES } from 'node:http';

/**
 * The service an HTTP answer came from — the gateway, the query engine or the dashboard
 * tool — so a refusal's hint names that service and the setting that points at it.
 */
export interface HttpService {
  /** As a sentence names it: "the query engine". */
  name: string;
  /** The setting's flag that holds its URL. */
  urlFlag: string;
  /** Hints of this service's own, by status, over the general ones. */
  hints?: Partial<Record<number, string>>;
  /** For a 5xx. */
  serverErrorHint?: string;
}

export const GATEWAY_SERVICE: HttpService = {
  name: 'the gateway',
  urlFlag: '--gateway',
  hints: {
    401: "sign in again with 'dpgw login'; a DPGW_TOKEN that is set is used before any login: give it a fresh token, or unset it",
    403: 'the signed-in user lacks permission for this call; sign in as a user who may provision',
    404: 'check --gateway and the path settings (--olap-segment); run `dpgw config` to see them',
  },
  serverErrorHint: "the platform failed to handle it; check 'dpgw health' and try again",
};

function hintFor(status: number, service: HttpService): string | undefined {
  const own = service.hints?.[status];
  if (own !== undefined) return own;
  switch (status) {
    case 400:
      return 'correct the request as the message says and run the command again';
    case 401:
      return `${service.name} did not accept the credentials: sign in again with 'dpgw login' for this profile; a DPGW_TOKEN that is set is used before any login: give it a fresh token, or unset it`;
    case 403:
      return `${service.name} refused this user for this call`;
    case 404:
      return `check ${service.urlFlag} (see \`dpgw config\`): ${service.name} has no such path`;
    case 409:
      return 'it exists already; nothing was changed';
    case 429:
      return `${service.name} is throttling; wait and try again`;
    default:
      return status >= 500 ? (service.serverErrorHint ?? `${service.name} failed to handle it; try again, or look at its log`) : undefined;
  }
}

/** A pipeline may retry a 429 or a 5xx later, and asks for a permission on a 403; a 401 is the general AUTH_FAILED. */
function codeFor(status: number): ErrorCode {
  if (status === 401) return 'AUTH_FAILED';
  if (status === 403) return 'REQUEST_FORBIDDEN';
  if (status === 429) return 'REQUEST_THROTTLED';
  return status >= 500 ? 'SERVER_FAILED' : 'REQUEST_REJECTED';
}

/** A --gateway that ends in /api (copied from an API address): dpgw puts /api/… after it itself. */
function doubledApiHint(url: string): string {
  const parsed = new URL(url);
  const base = `${parsed.origin}${parsed.pathname.slice(0, parsed.pathname.indexOf('/api/api/'))}`;
  return `--gateway ends in /api, and dpgw adds /api/… itself: give the gateway's base URL, ${base}`;
}

/** A 4xx or 5xx answer (of the gateway, or of the service named): status, method, URL and the body's best message. */
export class GatewayError extends DpgwError {
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly bodyShape: ErrorBodyShape;
  readonly bodyMessage: string;

  constructor(status: number, method: string, url: string, body: string | undefined, service: HttpService = GATEWAY_SERVICE) {
    const { shape, message } = messageFromErrorBody(body);
    const reason = STATUS_CODES[status] ?? 'Error';
    super(
      codeFor(status),
      `${method} ${url} failed with ${status} ${reason}${message ? `: ${message}` : ''}`,
      {
        hint: status === 404 && service === GATEWAY_SERVICE && /\/api\/api\//.test(new URL(url).pathname) ? doubledApiHint(url) : hintFor(status, service),
        details: { status, method, url, message },
      },
    );
    this.name = 'GatewayError';
    this.status = status;
    this.method = method;
    this.url = url;
    this.bodyShape = shape;
    this.bodyMessage = message;
  }
}
