/** A real forward proxy on 127.0.0.1 (absolute-form requests and CONNECT tunnels) that records what went through it. */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface ForwardProxy {
  url: string;
  /** `GET http://host/path` or `CONNECT host:port`, in order. */
  seen: string[];
  close(): Promise<void>;
}

export async function startForwardProxy(): Promise<ForwardProxy> {
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    const upstream = http.request(request.url!, { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.writeHead(502).end());
    request.pipe(upstream);
  });
  server.on('connect', (request, client: net.Socket, head) => {
    seen.push(`CONNECT ${request.url}`);
    const [host, port] = request.url!.split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
