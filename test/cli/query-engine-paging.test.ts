/**
 * `dpgw verify` against a query engine that answers each page at once (issue #30): while
 * a query stays QUEUED, dpgw used to follow `nextUri` without a pause — 7,100 requests in
 * 4 s. It now pauses as Trino's own clients do (50 ms doubling to 1 s while pages bring
 * nothing, none after rows), so a queued phase costs a handful of requests. Counted, not
 * timed: the count does not depend on how fast the machine is.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runInProcess } from '../helpers/run-dpgw.js';

const QUEUED_MS = 1500;
const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** An engine that keeps the first statement QUEUED for QUEUED_MS, answering every page at once; the others finish with their first answer. */
async function impatientEngine() {
  const gets: Array<{ query: number; at: number }> = [];
  let statements = 0;
  const posted = new Map<number, number>();
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const send = (body: unknown) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const finished = (query: number) => ({ id: `q${query}`, columns: [{ name: 'Schema', type: 'varchar' }], data: [['default'], ['track']], stats: { state: 'FINISHED' } });
      if (request.method === 'POST') {
        const query = ++statements;
        posted.set(query, Date.now());
        send(query === 1 ? { id: 'q1', nextUri: `${base}/v1/statement/queued/q1/1`, stats: { state: 'QUEUED' } } : finished(query));
        return;
      }
      const match = /^\/v1\/statement\/queued\/q(\d+)\/(\d+)$/.exec(request.url ?? '');
      if (request.method === 'GET' && match) {
        const query = Number(match[1]);
        gets.push({ query, at: Date.now() });
        if (Date.now() - posted.get(query)! < QUEUED_MS) send({ id: `q${query}`, nextUri: `${base}/v1/statement/queued/q${query}/${Number(match[2]) + 1}`, stats: { state: 'QUEUED' } });
        else send(finished(query));
        return;
      }
      response.writeHead(request.method === 'DELETE' ? 204 : 404).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, gets };
}

describe('verify: the pages of a queued query', () => {
  it(`a query QUEUED for ${QUEUED_MS / 1000} s costs fewer than 20 page requests, and its rows still arrive`, async () => {
    const engine = await impatientEngine();
    const result = await runInProcess(['verify', '--dataset', 'track', '--query-engine', engine.url, '--json'], cleanEnv({ DPGW_TOKEN: 'engine-token-1234' }));
    const first = engine.gets.filter((get) => get.query === 1);
    // The query was followed to its end (the last page came after the queued phase)…
    expect(first.length, result.stderr).toBeGreaterThan(0);
    expect(first.at(-1)!.at - first[0]!.at).toBeGreaterThanOrEqual(QUEUED_MS - 100);
    // …with 50 + 100 + 200 + 400 + 800 ms of pauses covering 1.5 s: about 6 requests, not thousands.
    expect(first.length).toBeLessThan(20);
    // The statement ended with its answer, not at the deadline.
    expect(result.stdout + result.stderr).not.toMatch(/did not finish/);
  });
});
