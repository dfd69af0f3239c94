// npm run bench:provision — provisioning many data sets against the sandbox with
// latency injected on every gateway request, compared with the critical-path
// ideal: ceil(data sets / concurrency) × sequential requests per data set × latency.
// Also: how often the token endpoint was called, how many TCP connections the
// gateway accepted, and dpgw's peak RSS. Figures go to docs/benchmarks.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../dist/lib/sandbox/sandbox.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const DATA_SETS = Number(process.env.BENCH_DATA_SETS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const LATENCY_MS = 20;
const LIMITS = { ratio: 1.25, tokenCalls: 1, extraConnections: 2, rssMb: 150 };

const names = Array.from({ length: DATA_SETS }, (_, i) => `ds${String(i).padStart(3, '0')}`);
const sandbox = await startSandbox({ seed: [{ name: 'bench-library', dataSets: names }], topicDelayMs: 0, faults: { latencyMs: LATENCY_MS } });
const work = mkdtempSync(join(tmpdir(), 'dpgw-bench-'));
const columns = (n) => `      dimensionFieldSpecs: [{ name: ${n}_id, dataType: STRING }]\n      metricFieldSpecs: [{ name: value, dataType: DOUBLE }]\n      dateTimeFieldSpecs: [{ name: time, dataType: LONG, notNull: false, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }]\n`;
const manifest = `version: 1\ndataSets:\n${names.map((n) => `  - datasource: bench-library\n    dataset: ${n}\n    enablement: ${n}-readers\n    groups: [${n}-readers]\n    schema:\n      schemaName: ${n}\n${columns(n)}`).join('')}`;
const manifestFile = join(work, 'bench.yaml');
writeFileSync(manifestFile, manifest);
const rssFile = join(work, 'rss');
const admin = sandbox.users.find((u) => u.username === 'admin');
const env = {
  PATH: process.env.PATH,
  HOME: work,
  DPGW_CONFIG_DIR: join(work, 'config'),
  XDG_CACHE_HOME: join(work, 'cache'),
  DPGW_GATEWAY: sandbox.gatewayUrl,
  DPGW_AUTH_URL: sandbox.authUrl,
  DPGW_REALM: sandbox.realm,
  DPGW_CLIENT_ID: sandbox.clientId,
  DPGW_CLIENT_SECRET: sandbox.clientSecret,
  DPGW_USERNAME: admin.username,
  DPGW_PASSWORD: admin.password,
  DPGW_BROKER_LIST: sandbox.stream.brokerList,
  DPGW_REGISTRY_URL: sandbox.stream.registryUrl,
  DPGW_STREAM_USER: sandbox.stream.user,
  DPGW_STREAM_PASSWORD: sandbox.stream.password,
  DPGW_BENCH_RSS_FILE: rssFile,
  // For experiments with V8 flags on the measured process (docs/benchmarks.md).
  ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
};

const started = process.hrtime.bigint();
const result = await new Promise((resolve) => {
  const child = spawn(process.execPath, ['-r', join(root, 'scripts/report-rss.cjs'), join(root, 'bin/dpgw'), 'provision', manifestFile, '--concurrency', String(CONCURRENCY), '--json', '--quiet'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  child.on('close', (code) => resolve({ code, stdout, stderr }));
});
const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
const summary = JSON.parse(result.stdout);
const gatewayRequests = sandbox.requestLog.of('gateway');
const provisioningMs = summary.seconds * 1000;
const tokenCalls = sandbox.requestLog.of('identity', `/auth/realms/${sandbox.realm}/protocol/openid-connect/token`).length;
const connections = sandbox.connections().gateway;
const shared = gatewayRequests.filter((e) => e.path === '/api/version').length;
const perDataSet = (gatewayRequests.length - shared) / DATA_SETS;
const idealMs = Math.ceil(DATA_SETS / CONCURRENCY) * perDataSet * LATENCY_MS;
const rssMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
await sandbox.close();

if (result.code !== 0 || !summary.ok) {
  console.error(result.stderr);
  throw new Error(`provision failed with exit ${result.code}`);
}
const rows = [
  ['data sets / concurrency / latency', `${DATA_SETS} / ${CONCURRENCY} / ${LATENCY_MS} ms`, ''],
  ['gateway requests per data set (sequential)', perDataSet.toFixed(2), ''],
  ['critical-path ideal', `${(idealMs / 1000).toFixed(2)} s`, ''],
  ['provisioning time (dpgw, from its summary)', `${(provisioningMs / 1000).toFixed(2)} s`, ''],
  ['ratio to the ideal', `${(provisioningMs / idealMs).toFixed(3)}×`, `≤ ${LIMITS.ratio}×`],
  ['whole command, process start to exit', `${(wallMs / 1000).toFixed(2)} s (${(wallMs / idealMs).toFixed(3)}×)`, ''],
  ['token endpoint calls', String(tokenCalls), `${LIMITS.tokenCalls}`],
  ['gateway TCP connections accepted', String(connections), `≤ ${CONCURRENCY + LIMITS.extraConnections}`],
  ['peak RSS of dpgw', `${rssMb.toFixed(1)} MB`, `< ${LIMITS.rssMb} MB`],
];
const table = ['| measure | value | limit |', '|---|---:|---:|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
console.log(table);

const section = [
  '<!-- bench:provision -->',
  '## Provisioning (`npm run bench:provision`)',
  '',
  `\`dpgw provision\` of ${DATA_SETS} data sets (inline schemas, one enablement each) against the sandbox with ${LATENCY_MS} ms added to every gateway request, topic delay zero; Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString().slice(0, 10)}. The ideal is ceil(${DATA_SETS} / ${CONCURRENCY}) × the sequential requests per data set × ${LATENCY_MS} ms. "Provisioning time" is the run dpgw reports (from its first request to its summary); the whole command adds start-up, reading and checking the manifest, and signing in.`,
  '',
  table,
  '<!-- /bench:provision -->',
].join('\n');
const docPath = join(root, 'docs/benchmarks.md');
let doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '# Benchmarks\n';
doc = /<!-- bench:provision -->[\s\S]*<!-- \/bench:provision -->/.test(doc) ? doc.replace(/<!-- bench:provision -->[\s\S]*<!-- \/bench:provision -->/, section) : `${doc.trimEnd()}\n\n${section}\n`;
writeFileSync(docPath, doc);

const failures = [];
if (provisioningMs / idealMs > LIMITS.ratio) failures.push(`ratio ${(provisioningMs / idealMs).toFixed(3)}× > ${LIMITS.ratio}×`);
if (tokenCalls !== LIMITS.tokenCalls) failures.push(`token endpoint called ${tokenCalls} times`);
if (connections > CONCURRENCY + LIMITS.extraConnections) failures.push(`${connections} connections`);
if (rssMb >= LIMITS.rssMb) failures.push(`peak RSS ${rssMb.toFixed(1)} MB`);
if (failures.length) {
  console.error(`over budget: ${failures.join('; ')}`);
  process.exitCode = 1;
}
