// node scripts/bench-http-clients.mjs (after npm run build) — the CPU one HTTP request costs
// the client, for the HTTP stacks dpgw could use, side by side (issue #35: is 0.5 ms of
// dpgw CPU per request in reach with got?). The same requests as a provisioning run — a
// GET, and a POST of a 1.4 KB JSON body, alternately — 8 at once over keep-alive, against
// a server in a process of its own that answers `{}` 20 ms later. Each client sends
// BENCH_REQUESTS (default 2,000) after a warm-up of 200; the clients take turns, BENCH_ROUNDS
// (default 5) times; printed: the medians (min–max) of this process's CPU per request.
//   dpgw transport — dpgw's own HttpTransport (got with its handler, retries, tokens);
//   got as dpgw extends it — plainGot (net/trust-and-proxy.ts) called directly;
//   node:http — http.request with a keep-alive agent, the answer read to its end;
//   fetch — Node's own fetch (undici inside Node).
import { spawn } from 'node:child_process';
import http from 'node:http';
import { HttpTransport } from '../dist/lib/gateway/http-transport.js';
import { plainGot } from '../dist/lib/net/trust-and-proxy.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = 8;

const server = spawn(process.execPath, ['-e', `
  const http = require('node:http');
  const s = http.createServer((req, res) => { req.resume(); req.on('end', () => setTimeout(() => { res.setHeader('content-type', 'application/json'); res.end('{}'); }, 20)); });
  s.keepAliveTimeout = 60000;
  s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));
`], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise((resolve) => server.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
const base = `http://127.0.0.1:${port}`;
const body = { tableName: 'ds0000', tableType: 'REALTIME', segmentsConfig: { timeColumnName: 'time', retentionTimeValue: 7 }, tableIndexConfig: { streamConfigs: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`stream.mq.property.${i}`, 'org.apache.kafka.common.serialization.StringDeserializer'])) } };
const token = 'eyJ' + 'a'.repeat(600);

const transport = new HttpTransport({ baseUrl: base, tokenSupplier: async () => token, userAgent: 'dpgw/bench' });
const { got, agents } = plainGot(base, undefined, 30_000);
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
const headers = (withBody) => ({ accept: 'application/json', 'user-agent': 'dpgw/bench', authorization: `Bearer ${token}`, ...(withBody ? { 'content-type': 'application/json' } : {}) });

const clients = {
  'dpgw transport (got)': (i) => (i % 2 ? transport.request('POST', '/api/internal/olap/tables', { body }) : transport.request('GET', '/api/version')),
  'got as dpgw extends it': (i) => got(i % 2 ? `${base}/api/internal/olap/tables` : `${base}/api/version`, i % 2 ? { method: 'POST', headers: headers(true), body: JSON.stringify(body) } : { headers: headers(false) }),
  'node:http': (i) =>
    new Promise((resolve, reject) => {
      const payload = i % 2 ? JSON.stringify(body) : undefined;
      const request = http.request(`${base}${i % 2 ? '/api/internal/olap/tables' : '/api/version'}`, { method: i % 2 ? 'POST' : 'GET', agent, headers: headers(payload !== undefined) }, (response) => {
        const chunks = [];
        response.on('data', (c) => chunks.push(c));
        response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      });
      request.on('error', reject);
      request.end(payload);
    }),
  'fetch (undici in Node)': async (i) => {
    const response = await fetch(`${base}${i % 2 ? '/api/internal/olap/tables' : '/api/version'}`, { method: i % 2 ? 'POST' : 'GET', headers: headers(i % 2 === 1), body: i % 2 ? JSON.stringify(body) : undefined });
    return response.json();
  },
};

async function drive(send, count) {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await send(i);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const results = Object.fromEntries(Object.keys(clients).map((name) => [name, []]));
for (const send of Object.values(clients)) await drive(send, 200);
for (let round = 0; round < ROUNDS; round++) {
  const order = Object.entries(clients);
  if (round % 2) order.reverse();
  for (const [name, send] of order) {
    globalThis.gc?.();
    const before = process.cpuUsage();
    await drive(send, REQUESTS);
    const used = process.cpuUsage(before);
    results[name].push((used.user + used.system) / 1000 / REQUESTS);
  }
}
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
console.log(`| client | CPU per request (median of ${ROUNDS}, min–max) |\n|---|---:|`);
for (const [name, values] of Object.entries(results)) console.log(`| ${name} | ${median(values).toFixed(3)} ms (${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)}) |`);
transport.close();
agents.http.destroy();
agent.destroy();
server.kill();
