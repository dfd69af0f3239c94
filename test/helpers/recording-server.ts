/**
 * A real HTTP server on 127.0.0.1 that answers from a route table and records
 * every request and accepted connection. For testing the client's wire
 * behaviour (paths, headers, retries, timeouts) before the sandbox exists.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Never answer (for timeout tests). */
  hang?: boolean;
  /** Destroy the socket without an answer. */
  drop?: boolean;
}

export type Route = (request: RecordedRequest, attempt: number) => Reply;

export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  connections: number;
  /** Routes keyed by `METHOD /path`; unmatched requests get 404. */
  routes: Map<string, Route>;
  close(): Promise<void>;
}

export async function startRecordingServer(routes: Record<string, Route> = {}): Promise<RecordingServer> {
  const state: RecordingServer = {
    url: '',
    requests: [],
    connections: 0,
    routes: new Map(Object.entries(routes)),
    close: async () => undefined,
  };
  const attempts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      state.requests.push(recorded);
      const key = `${recorded.method} ${recorded.path}`;
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      const route = state.routes.get(key);
      const reply: Reply = route ? route(recorded, attempt) : { status: 404, body: { timestamp: '2026-11-22T00:00:00Z', status: 404, error: 'Not Found', path: recorded.path } };
      if (reply.hang) return;
      if (reply.drop) {
        req.socket.destroy();
        return;
      }
      const isText = typeof reply.body === 'string';
      const payload = reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, {
        ...(payload !== '' ? { 'content-type': isText ? 'text/plain' : 'application/json' } : {}),
        ...reply.headers,
      });
      res.end(payload);
    });
  });
  server.on('connection', () => {
    state.connections++;
  });
  Object.assign(state, await listenOnLoopback(server));
  return state;
}

/** The server listening on a free port of 127.0.0.1: its URL, and a close that ends the connections still open. */
export async function listenOnLoopback(server: http.Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 with nothing listening. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
