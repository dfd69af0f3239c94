import { DpgwError } from '../errors/dpgw-error.js';
import { messageFromErrorBody, type ErrorBodyShape } from './error-body.js';
import { STATUS_CODES } from 'node:http';

const hints: Record<number, string> = {
  400: 'correct the request as the message says and run the command again',
  401: "run 'dpgw login' (or set DPGW_TOKEN) and try again",
  403: 'the signed-in user lacks permission for this call; sign in as a user who may provision',
  404: 'check --gateway and the path settings (--olap-segment); run `dpgw config` to see them',
  409: 'it exists already; nothing was changed',
  429: 'the gateway is throttling; wait and try again',
};

/** A 4xx or 5xx answer of the gateway: status, method, URL and the body's best message. */
export class GatewayError extends DpgwError {
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly bodyShape: ErrorBodyShape;
  readonly bodyMessage: string;

  constructor(status: number, method: string, url: string, body: string | undefined) {
    const { shape, message } = messageFromErrorBody(body);
    const reason = STATUS_CODES[status] ?? 'Error';
    super(
      status === 401 ? 'auth' : 'rejected',
      `${method} ${url} failed with ${status} ${reason}${message ? `: ${message}` : ''}`,
      {
        hint: hints[status] ?? (status >= 500 ? "the platform failed to handle it; check 'dpgw health' and try again" : undefined),
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
