/** Small HTTP helpers for the sandbox's servers: bodies in, JSON and errors out, and the server each one is. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new PayloadTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class PayloadTooLarge extends Error {}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, {
    ...(payload ? { 'content-type': 'application/json' } : {}),
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(payload);
}

/** Spring Boot's default error body, which the gateway's own endpoints answer with. */
export function springError(status: number, error: string, message: string, path: string) {
  return { timestamp: new Date().toISOString(), status, error, message, path };
}

export function parseForm(text: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(text)) form[key] = value;
  return form;
}

/** A small deterministic PRNG (mulberry32) so fault injection can be reproduced from a seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An HTTP server on 127.0.0.1 that counts the TCP connections it accepts, and the most open at once. */
export class LoopbackServer {
  connections = 0;
  /** A keep-alive connection the server closed after 5 s idle and the client opened again counts twice above, once here. */
  mostOpenAtOnce = 0;
  private open = 0;
  baseUrl = '';
  private server?: Server;

  constructor(private readonly handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>) {}

  async listen(port: number): Promise<void> {
    // A handler that throws (a client gone mid-request, a bad body) ends that one exchange, never the sandbox.
    const server = createServer((request, response) => {
      this.handler(request, response).catch((error: unknown) => {
        if (response.headersSent || response.destroyed) {
          response.destroy();
          return;
        }
        sendJson(response, 500, { message: `sandbox: ${(error as Error).message}` });
      });
    });
    server.keepAliveTimeout = 5_000;
    server.on('connection', (socket) => {
      this.connections++;
      this.mostOpenAtOnce = Math.max(this.mostOpenAtOnce, ++this.open);
      socket.once('close', () => this.open--);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * A sandbox server on 127.0.0.1 (gateway, identity provider, query engine, dashboard
 * tool): one request handler, started, stopped and located the same way.
 */
export abstract class LoopbackService {
  private readonly server = new LoopbackServer((request, response) => this.handle(request, response));

  constructor(private readonly port: number) {}

  protected abstract handle(request: IncomingMessage, response: ServerResponse): Promise<void>;

  async start(): Promise<void> {
    await this.server.listen(this.port);
  }

  get baseUrl(): string {
    return this.server.baseUrl;
  }

  /** TCP connections accepted so far. */
  get connections(): number {
    return this.server.connections;
  }

  /** The most TCP connections that were open at one time. */
  get mostOpenAtOnce(): number {
    return this.server.mostOpenAtOnce;
  }

  async stop(): Promise<void> {
    await this.server.close();
  }
}

/**
 * One route of an emulator: a method and a path pattern whose `:name` segments are
 * captured (decoded). The emulators route by table, not by chains of `parts[i] === …`.
 */
export interface Route<Answer> {
  method: string;
  pattern: string;
  handle(params: Record<string, string>): Answer | Promise<Answer>;
}

/** The route for a request: `found` with its answer; `wrong-method` when the path is known but not for this method; else `none`. */
export async function routeRequest<Answer>(routes: ReadonlyArray<Route<Answer>>, method: string, path: string): Promise<{ kind: 'found'; answer: Answer } | { kind: 'wrong-method' } | { kind: 'none' }> {
  let pathKnown = false;
  for (const route of routes) {
    const params = matchPattern(route.pattern, path);
    if (!params) continue;
    if (route.method !== method) {
      pathKnown = true;
      continue;
    }
    return { kind: 'found', answer: await route.handle(params) };
  }
  return pathKnown ? { kind: 'wrong-method' } : { kind: 'none' };
}

function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const actual = have[index]!;
    if (part.startsWith(':')) {
      try {
        params[part.slice(1)] = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
    } else if (part !== actual) return undefined;
  }
  return params;
}
