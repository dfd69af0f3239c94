// npm run bench:provision [-- --large] [-- --checks] — `dpgw provision` of many data sets against
// the sandbox, whose gateway answers every request 20 ms after it arrives, measured
// from process start to exit against the physical limit: the contract's minimum of
// sequential requests per data set (docs/benchmarks.md). Also: requests per data set,
// token endpoint calls (with --large the token expires several times during the run),
// gateway connections and dpgw's peak RSS. Exits 1 when a goal is missed.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { storageTouchNeeded } from '../dist/lib/contract/platform-version.js';
import { startSandbox } from '../dist/lib/sandbox/sandbox.js';
import { writeBenchSection } from './bench-doc.mjs';
import { measuredEnv, runBinary, sandboxAdminSettings } from './bench-env.mjs';

const LARGE = process.argv.includes('--large');
/** With --checks, as a user runs it: the stream pre-flight and the consumption proof on (the defaults). */
const CHECKS = process.argv.includes('--checks');
const DATA_SETS = Number(process.env.BENCH_DATA_SETS ?? (LARGE ? 2000 : 200));
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? (LARGE ? 32 : 8));
const LATENCY_MS = 20;
/** With --large, shorter than the run: dpgw must refresh the token as it goes. */
const TOKEN_LIFETIME_S = LARGE ? 4 : 300;
const GOALS = { ratio: 1.15, rssMb: (LARGE ? 110 : 100) + (CHECKS ? (LARGE ? 40 : 15) : 0), extraConnections: 2 };

const names = Array.from({ length: DATA_SETS }, (_, i) => `ds${String(i).padStart(4, '0')}`);
const sandbox = await startSandbox({ seed: [{ name: 'bench-library', dataSets: names }], topicDelayMs: 0, faults: { latencyMs: LATENCY_MS }, accessTokenLifetimeSeconds: TOKEN_LIFETIME_S });
// The contract's requests per data set: create its enablement, enable it (PUT), read the
// listing until the topic is there (GET), the schema, the table, and the storage GET below 1.15.165.
const CONTRACT_MINIMUM = storageTouchNeeded(sandbox.platformVersion) === 'not-needed' ? 5 : 6;
const work = mkdtempSync(join(tmpdir(), 'dpgw-bench-'));
const columns = (n) => `      dimensionFieldSpecs: [{ name: ${n}_id, dataType: STRING }]\n      metricFieldSpecs: [{ name: value, dataType: DOUBLE }]\n      dateTimeFieldSpecs: [{ name: time, dataType: LONG, notNull: false, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }]\n`;
const manifest = `version: 1\ndataSets:\n${names.map((n) => `  - datasource: bench-library\n    dataset: ${n}\n    enablement: ${n}-readers\n    groups: [${n}-readers]\n    schema:\n      schemaName: ${n}\n${columns(n)}`).join('')}`;
const manifestFile = join(work, 'bench.yaml');
writeFileSync(manifestFile, manifest);
const rssFile = join(work, 'rss');
// Any V8 flags to try on the measured process come from BENCH_NODE_OPTIONS (docs/benchmarks.md).
const env = measuredEnv(
  work,
  rssFile,
  sandboxAdminSettings(sandbox),
  process.env.BENCH_NODE_OPTIONS ?? '',
);

const sandboxCpuBefore = process.cpuUsage();
const started = process.hrtime.bigint();
// The binary itself, as a user's shell runs it; the contract's workflow alone: the stream
// pre-flight and the consumption proof are measured by bench:stream-check.
const result = await runBinary(['provision', manifestFile, '--concurrency', String(CONCURRENCY), '--json', '--quiet', ...(CHECKS ? [] : ['--no-stream-check', '--wait-consuming', '0'])], env);
const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
const sandboxCpu = process.cpuUsage(sandboxCpuBefore);
if (result.code !== 0) {
  console.error(result.stderr);
  throw new Error(`provision failed with exit ${result.code}`);
}
const summary = JSON.parse(result.stdout);
const measured = JSON.parse(readFileSync(rssFile, 'utf8'));
const gatewayRequests = sandbox.requestLog.of('gateway');
const perDataSetPath = /\/enablements(\/[^/]+\/datasets(\/[^/]+(\/storages\/[^/]+)?)?)?$|\/internal\/[^/]+\/(schemas|tables)$/;
const dataSetRequests = gatewayRequests.filter((e) => perDataSetPath.test(e.path) && !(e.method === 'GET' && e.path.endsWith('/enablements')));
const perDataSet = dataSetRequests.length / DATA_SETS;
const runWide = gatewayRequests.length - dataSetRequests.length;
const unauthorized = gatewayRequests.filter((e) => e.status === 401).length;
const tokenCalls = sandbox.requestLog.of('identity', `/auth/realms/${sandbox.realm}/protocol/openid-connect/token`);
const refreshes = tokenCalls.filter((e) => e.body?.grant_type === 'refresh_token');
const passwordGrants = tokenCalls.length - refreshes.length;
const connections = sandbox.connections().gateway;
const gatewayMs = gatewayRequests.reduce((sum, e) => sum + (e.durationMs ?? 0), 0) / gatewayRequests.length;
const idealMs = Math.ceil(DATA_SETS / CONCURRENCY) * CONTRACT_MINIMUM * LATENCY_MS;
const rssMb = measured.rssKb / 1024;
const ratio = wallMs / idealMs;
// Exactly one refresh per expiry: none before the token neared its end, and no expiry without
// one. A token's exp is in whole seconds and dpgw refreshes in its last tenth, so a token
// serves between 0.6 and 1 of its lifetime.
const runSeconds = wallMs / 1000;
const fewestRefreshes = Math.floor(runSeconds / TOKEN_LIFETIME_S);
const mostRefreshes = Math.ceil(runSeconds / (TOKEN_LIFETIME_S * 0.6));
const refreshGaps = refreshes.slice(1).map((e, i) => (Date.parse(e.at) - Date.parse(refreshes[i].at)) / 1000);
await sandbox.close();

const failed = summary.dataSets.filter((d) => d.status !== 'done').length;
const rows = [
  ['data sets / concurrency / gateway latency', `${DATA_SETS} / ${CONCURRENCY} / ${LATENCY_MS} ms`, ''],
  ['data sets done', `${DATA_SETS - failed} of ${DATA_SETS}`, `${DATA_SETS}`],
  ['gateway requests per data set (sequential)', perDataSet.toFixed(2), `${CONTRACT_MINIMUM} (contract minimum, platform ${sandbox.platformVersion})`],
  ['gateway requests outside the sequence (version, catalog listings, one schema read per schema name, consumption reads)', String(runWide), ''],
  ['ideal: ceil(data sets / concurrency) × minimum × latency', `${(idealMs / 1000).toFixed(2)} s`, ''],
  ['dpgw provision, process start to exit', `${(wallMs / 1000).toFixed(2)} s`, ''],
  ['ratio to the ideal', `${ratio.toFixed(3)}×`, `≤ ${GOALS.ratio}×`],
  ['of which the run dpgw reports (first request to summary)', `${summary.seconds.toFixed(2)} s`, ''],
  ['mean time the gateway held a request (latency included)', `${gatewayMs.toFixed(2)} ms`, ''],
  ['CPU: dpgw / sandbox (2 cores shared)', `${(measured.cpuMs / 1000).toFixed(2)} s / ${((sandboxCpu.user + sandboxCpu.system) / 1e6).toFixed(2)} s`, ''],
  ['token endpoint: password grants / refreshes', `${passwordGrants} / ${refreshes.length}`, `1 / ${LARGE ? `${fewestRefreshes}–${mostRefreshes}, one per expiry` : 0}`],
  ['gateway answers 401', String(unauthorized), '0'],
  ['gateway TCP connections accepted', String(connections), `≤ ${CONCURRENCY + GOALS.extraConnections}`],
  ['peak RSS of dpgw', `${rssMb.toFixed(1)} MB`, `≤ ${GOALS.rssMb} MB`],
];
const table = ['| measure | value | goal |', '|---|---:|---:|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
console.log(table);

const marker = `${LARGE ? 'bench:provision-large' : 'bench:provision'}${CHECKS ? '-checks' : ''}`;
const section = [
  `<!-- ${marker} -->`,
  `## Provisioning${LARGE ? ', large' : ''}${CHECKS ? ', with the stream checks' : ''} (\`npm run bench:provision${LARGE || CHECKS ? ` --${LARGE ? ' --large' : ''}${CHECKS ? ' --checks' : ''}` : ''}\`)`,
  '',
  `\`dpgw provision\` of ${DATA_SETS} data sets (inline schemas, one new enablement each) against the sandbox, whose gateway answers every request ${LATENCY_MS} ms after it arrives; topics appear at once${LARGE ? `; access tokens live ${TOKEN_LIFETIME_S} s` : ''}. Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString().slice(0, 10)}. The time is the whole command, from process start to exit: start-up, reading and checking the manifest, signing in, the run and the summary. ${CHECKS ? 'As a user runs it: the stream pre-flight (one connection to the brokers for the run) and the consumption proof (each table read back until it consumes) are on, the defaults.' : 'The stream pre-flight and the consumption proof are off here (`--no-stream-check --wait-consuming 0`); `-- --checks` measures the defaults.'}`,
  '',
  table,
  `<!-- /${marker} -->`,
].join('\n');
writeBenchSection(marker, section);

const missed = [];
if (failed > 0) missed.push(`${failed} data sets not done`);
if (perDataSet > CONTRACT_MINIMUM) missed.push(`${perDataSet.toFixed(2)} requests per data set > ${CONTRACT_MINIMUM}`);
if (ratio > GOALS.ratio) missed.push(`ratio ${ratio.toFixed(3)}× > ${GOALS.ratio}×`);
if (passwordGrants !== 1) missed.push(`${passwordGrants} password grants`);
if (LARGE && (refreshes.length < fewestRefreshes || refreshes.length > mostRefreshes)) missed.push(`${refreshes.length} refreshes for a ${runSeconds.toFixed(1)} s run of ${TOKEN_LIFETIME_S} s tokens`);
if (refreshGaps.some((gap) => gap < TOKEN_LIFETIME_S * 0.6)) missed.push(`two refreshes within one token lifetime (${refreshGaps.map((g) => g.toFixed(1)).join(', ')} s apart)`);
if (!LARGE && refreshes.length > 0) missed.push(`${refreshes.length} refreshes`);
if (unauthorized > 0) missed.push(`${unauthorized} answers 401`);
if (connections > CONCURRENCY + GOALS.extraConnections) missed.push(`${connections} connections`);
if (rssMb > GOALS.rssMb) missed.push(`peak RSS ${rssMb.toFixed(1)} MB > ${GOALS.rssMb} MB`);
if (missed.length) {
  console.error(`goal missed: ${missed.join('; ')}`);
  process.exitCode = 1;
}
