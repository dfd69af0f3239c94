// The floor client of bench:provision (issue #35): the least a program can do to send the
// requests dpgw sent for the same manifest. It reads a plan that bench-provision.mjs
// recorded from a dpgw run (the sandbox's request log: method, path, body, in dpgw's
// order) and sends exactly those requests with Node's own fetch (keep-alive, one pool):
//   identity: the requests dpgw sent before its token (discovery), the password grant,
//     then the rest (the key set) alongside the gateway's first requests;
//   gateway: the run-wide reads (before and among the schema reads) all at once, beside the
//     schema reads, as many at once as the concurrency; then each
//     data set's requests in dpgw's order, one after the other, `concurrency` data sets
//     at once in the manifest's order (as dpgw's workers take them); then anything dpgw
//     sent after its data sets.
// The access token is refreshed in its last tenth, as dpgw does (the large run's tokens live 4 s).
// Bodies are sent as recorded, the stream password the log masks put back. Every answer is
// read to its end and its status compared with the one dpgw got. Prints one JSON line.
// With --transport http the same requests go through node:http (a keep-alive agent, as many
// sockets as the concurrency) instead of fetch: the cheapest of Node's HTTP clients per
// request (scripts/bench-http-clients.mjs measures the two and got side by side).
// Usage: node scripts/bench-floor-client.mjs <plan.json> [--transport fetch|http]  (settings: the DPGW_* of bench-env's sandboxAdminSettings)
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { URLSearchParams } from 'node:url';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const transportFlag = process.argv.indexOf('--transport');
const TRANSPORT = transportFlag > 0 ? process.argv[transportFlag + 1] : 'fetch';
if (TRANSPORT !== 'fetch' && TRANSPORT !== 'http') throw new Error(`--transport fetch|http, not ${TRANSPORT}`);
const agent = new http.Agent({ keepAlive: true, maxSockets: plan.concurrency });

/** One request with node:http: the answer's status and text, read to its end. */
function viaHttp(url, { method, headers, body }) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) }, agent }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode, ok: response.statusCode >= 200 && response.statusCode < 300, text }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}
/** One request with the chosen transport: { status, ok, text }. */
async function exchange(url, init) {
  if (TRANSPORT === 'http') return viaHttp(url, init);
  const response = await fetch(url, init);
  return { status: response.status, ok: response.ok, text: await response.text() };
}
const env = process.env;
const gateway = env.DPGW_GATEWAY.replace(/\/+$/, '');
const auth = env.DPGW_AUTH_URL.replace(/\/+$/, '');
const tokenPath = `/auth/realms/${env.DPGW_REALM}/protocol/openid-connect/token`;
let sent = 0;
let refreshes = 0;
const mismatches = [];

async function send(base, { method, path, body, contentType, status }, token) {
  const headers = { accept: 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = contentType;
  const response = await exchange(base + path, { method, headers, body });
  sent++;
  if (status !== undefined && response.status !== status) mismatches.push(`${method} ${path}: ${response.status}, dpgw got ${status}`);
  return response;
}

// Tokens: one password grant, a refresh in the token's last tenth.
let access;
let refreshToken;
let refreshAt = 0;
let refreshing;
async function grant(fields) {
  const response = await exchange(auth + tokenPath, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' }, body: new URLSearchParams(fields).toString() });
  const answer = JSON.parse(response.text);
  sent++;
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}`);
  access = answer.access_token;
  refreshToken = answer.refresh_token;
  // dpgw counts from the earlier of expires_in and the token's own exp (whole seconds).
  const exp = JSON.parse(Buffer.from(access.split('.')[1], 'base64url').toString()).exp * 1000;
  const expires = Math.min(exp, Date.now() + answer.expires_in * 1000);
  refreshAt = expires - (expires - Date.now()) / 10;
}
async function token() {
  if (Date.now() >= refreshAt) {
    if (!refreshing) refreshes++;
    refreshing ??= grant({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: env.DPGW_CLIENT_ID, client_secret: env.DPGW_CLIENT_SECRET }).finally(() => (refreshing = undefined));
    await refreshing;
  }
  return access;
}

const toGateway = async (request) => send(gateway, request, await token());
async function inOrder(requests) {
  for (const request of requests) await toGateway(request);
}
async function pool(items, work) {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await work(items[i]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.concurrency, items.length)) }, worker));
}

const started = performance.now();
for (const request of plan.identityBefore) await send(auth, request);
await grant({ username: env.DPGW_USERNAME, password: env.DPGW_PASSWORD, scope: 'openid', grant_type: 'password', client_id: env.DPGW_CLIENT_ID, client_secret: env.DPGW_CLIENT_SECRET });
const identityAfter = Promise.all(plan.identityAfter.map((request) => send(auth, request)));
// The run-wide reads all at once, beside the schema reads (dpgw asks them together since issue #35;
// the floor honours none of their dependencies, so no program goes faster).
await Promise.all([...plan.before, ...plan.middle].map(toGateway).concat(pool(plan.schemaReads, toGateway)));
await pool(plan.dataSets, inOrder);
await inOrder(plan.after);
await identityAfter;
agent.destroy();
console.log(JSON.stringify({ requests: sent, refreshes, ms: performance.now() - started, mismatches: mismatches.slice(0, 5), mismatched: mismatches.length }));
if (mismatches.length) process.exitCode = 1;
