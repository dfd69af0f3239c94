/**
 * An HTTP proxy on 127.0.0.1 in front of a server that can be taken down and brought
 * back on the same port, as a gateway restarting: while down, connections are refused
 * (the listener is closed); requests under way when it goes down finish first.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PausableProxy {
  url: string;
  /** Refuse connections for `ms`, then listen again on the same port. */
  outage(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startPausableProxy(target: string): Promise<PausableProxy> {
  const upstream = new URL(target);
  const server = http.createServer((request, response) => {
    const forward = http.request({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    forward.on('error', () => response.destroy());
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const listen = () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  return {
    url: `http://127.0.0.1:${port}`,
    async outage(ms) {
      await stop();
      await new Promise((resolve) => setTimeout(resolve, ms));
      await listen();
    },
    async close() {
      server.closeAllConnections();
      await stop();
    },
  };
}
