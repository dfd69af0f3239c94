// npm run bench:provision [-- --large] [-- --checks] — `dpgw provision` of many data sets against
// the sandbox, whose gateway answers every request 20 ms after it arrives, measured from
// process start to exit against two references: the floor client (scripts/bench-floor-client.mjs,
// Node's fetch sending exactly the requests dpgw sent, recorded from a first dpgw run of the
// same manifest, with the same concurrency) and the physical limit (the contract's minimum of
// sequential requests per data set, docs/benchmarks.md). dpgw and the floor client run
// alternately, BENCH_RUNS times each (default 5), each run on a new sandbox so that every run
// does the same work; the table gives medians and min–max. Also: requests per data set, token
// endpoint calls (with --large the token expires several times during the run), gateway
// connections, dpgw's CPU per request and the floor client's, and peak RSS. Exits 1 only when
// a goal of issue #46 §7 is missed (GOALS below), or when the measurement itself is not valid.
// BENCH_BASELINE=<a built checkout of dpgw> runs that one too, in the same alternation, and
// prints it side by side with this checkout (the whole command, its ratio to the floor
// client, CPU per request and its ratio to the floor client's, peak RSS); docs/benchmarks.md
// then gets both tables (what a change bought, measured in one run).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, URLSearchParams } from 'node:url';
import { storageTouchNeeded } from '../dist/lib/contract/platform-version.js';
import { startSandbox } from '../dist/lib/sandbox/sandbox.js';
import { writeBenchSection } from './bench-doc.mjs';
import { measuredEnv, runBinary, sandboxAdminSettings } from './bench-env.mjs';

const LARGE = process.argv.includes('--large');
/** With --checks, as a user runs it: the stream pre-flight and the consumption proof on (the defaults). */
const CHECKS = process.argv.includes('--checks');
/** The run the goals are set for: 200 data sets 8 at a time, or with --large 2,000 32 at a time, the gateway 20 ms away. */
const GOAL_RUN = { dataSets: LARGE ? 2000 : 200, concurrency: LARGE ? 32 : 8, latencyMs: 20 };
const DATA_SETS = Number(process.env.BENCH_DATA_SETS ?? GOAL_RUN.dataSets);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? GOAL_RUN.concurrency);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** BENCH_LATENCY_MS: a gateway further away (a laptop's or a hosted runner's round trip); the goals are set at 20 ms. */
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? GOAL_RUN.latencyMs);
/** With --large, shorter than the run: dpgw must refresh the token as it goes. */
const TOKEN_LIFETIME_S = LARGE ? 4 : 300;
/**
 * Issue #46 §7, the only figures the bench exits 1 on: the whole command ≤ 1.15× the fetch floor
 * client, dpgw's CPU per request ≤ 1.5× the floor client's in the same run (a ratio, so it holds
 * at both sizes; it replaces issue #35's 0.5 ms, which got alone exceeds), and dpgw's peak RSS.
 * Held on the run they are set for, with the checks off: with --checks dpgw's broker work has no
 * counterpart in the floor client, and other sizes or latencies move every ratio; there they are shown.
 */
const GOALS = { floorRatio: 1.15, cpuToFloor: 1.5, rssMb: LARGE ? 120 : 100 };
const GOALS_HELD = !CHECKS && DATA_SETS === GOAL_RUN.dataSets && CONCURRENCY === GOAL_RUN.concurrency && LATENCY_MS === GOAL_RUN.latencyMs;
/** The product's own bound (RUN_WIDE_READS_AT_ONCE in src/provision/provision-run.ts): shown and noted, not a goal (tests hold it). */
const EXTRA_CONNECTIONS = 2;
const BASELINE = process.env.BENCH_BASELINE;
const floorScript = fileURLToPath(new URL('./bench-floor-client.mjs', import.meta.url));

const names = Array.from({ length: DATA_SETS }, (_, i) => `ds${String(i).padStart(4, '0')}`);
// With --checks the sample check reads each topic: its data sets feed readings, and the schema has their columns.
const newSandbox = () => startSandbox({ seed: [{ name: 'bench-library', dataSets: names, ...(CHECKS ? { messages: 'reading' } : {}) }], topicDelayMs: 0, faults: { latencyMs: LATENCY_MS }, accessTokenLifetimeSeconds: TOKEN_LIFETIME_S });
const work = mkdtempSync(join(tmpdir(), 'dpgw-bench-'));
const columns = (n) => `      dimensionFieldSpecs: [{ name: ${CHECKS ? 'source' : `${n}_id`}, dataType: STRING }]\n      metricFieldSpecs: [{ name: ${CHECKS ? 'reading' : 'value'}, dataType: DOUBLE }]\n      dateTimeFieldSpecs: [{ name: time, dataType: LONG, notNull: false, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }]\n`;
const manifest = `version: 1\ndataSets:\n${names.map((n) => `  - datasource: bench-library\n    dataset: ${n}\n    enablement: ${n}-readers\n    groups: [${n}-readers]\n    schema:\n      schemaName: ${n}\n${columns(n)}`).join('')}`;
const manifestFile = join(work, 'bench.yaml');
writeFileSync(manifestFile, manifest);
const rssFile = join(work, 'rss');
const provisionArgs = ['provision', manifestFile, '--concurrency', String(CONCURRENCY), '--json', '--quiet', ...(CHECKS ? [] : ['--no-stream-check', '--wait-consuming', '0'])];

/** One dpgw run on a new sandbox: the binary itself, as a user's shell runs it. */
async function dpgwRun(checkout, { keepLog = false } = {}) {
  const sandbox = await newSandbox();
  // Any V8 flags to try on the measured process come from BENCH_NODE_OPTIONS (docs/benchmarks.md).
  const env = measuredEnv(work, rssFile, sandboxAdminSettings(sandbox), process.env.BENCH_NODE_OPTIONS ?? '');
  const sandboxCpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await runBinary(provisionArgs, env, checkout);
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const sandboxCpu = process.cpuUsage(sandboxCpuBefore);
  if (result.code !== 0) {
    console.error(result.stderr);
    throw new Error(`provision failed with exit ${result.code}`);
  }
  const summary = JSON.parse(result.stdout);
  const measured = JSON.parse(readFileSync(rssFile, 'utf8'));
  const gatewayRequests = sandbox.requestLog.of('gateway');
  const identityRequests = sandbox.requestLog.of('identity');
  const perDataSetPath = /\/enablements(\/[^/]+\/datasets(\/[^/]+(\/storages\/[^/]+)?)?)?$|\/internal\/[^/]+\/(schemas|tables)$/;
  // The run-wide GETs on those paths are not a data set's: the enablements of a data source, and the store's listings of schemas and tables.
  const dataSetRequests = gatewayRequests.filter((e) => perDataSetPath.test(e.path) && !(e.method === 'GET' && /\/(enablements|schemas|tables)$/.test(e.path)));
  const tokenCalls = sandbox.requestLog.of('identity', `/auth/realms/${sandbox.realm}/protocol/openid-connect/token`);
  const refreshes = tokenCalls.filter((e) => e.body?.grant_type === 'refresh_token');
  const run = {
    wallMs,
    summary,
    measured,
    sandboxCpuMs: (sandboxCpu.user + sandboxCpu.system) / 1000,
    requests: gatewayRequests.length + identityRequests.length,
    perDataSet: dataSetRequests.length / DATA_SETS,
    runWide: gatewayRequests.length - dataSetRequests.length,
    unauthorized: gatewayRequests.filter((e) => e.status === 401).length,
    passwordGrants: tokenCalls.length - refreshes.length,
    refreshes,
    connections: sandbox.connections().gateway,
    connectionsAtOnce: sandbox.connectionsAtOnce().gateway,
    gatewayMs: gatewayRequests.reduce((sum, e) => sum + (e.durationMs ?? 0), 0) / gatewayRequests.length,
    platformVersion: sandbox.platformVersion,
    // Only the recorded run's: the benchmark's own memory counts in nothing, but it is kept small.
    log: keepLog ? sandbox.requestLog.entries.slice() : undefined,
    brokerList: sandbox.stream.brokerList,
    streamPassword: sandbox.stream.password,
  };
  await sandbox.close();
  return run;
}

/** What the floor client sends, from the request log of a dpgw run (see bench-floor-client.mjs). */
function floorPlan(log) {
  const request = (e) => ({
    method: e.method,
    path: e.path + (Object.keys(e.query ?? {}).length ? `?${new URLSearchParams(e.query)}` : ''),
    body: e.body === undefined ? undefined : typeof e.body === 'string' ? e.body : JSON.stringify(e.body),
    contentType: e.headers['content-type'],
    status: e.status,
  });
  const gateway = log.filter((e) => e.server === 'gateway').sort((a, b) => a.seq - b.seq);
  const identity = log.filter((e) => e.server === 'identity').sort((a, b) => a.seq - b.seq);
  // A request's data set: its name in the path or body, or its enablement (named by the PUT that enabled it).
  const enablementOf = new Map();
  for (const e of gateway) {
    const put = /\/enablements\/([^/]+)\/datasets\/(ds\d{4})$/.exec(e.path);
    if (e.method === 'PUT' && put) enablementOf.set(put[1], put[2]);
  }
  const dataSetOf = (e) => {
    const named = /\bds\d{4}\b/.exec(`${e.path} ${e.body === undefined ? '' : JSON.stringify(e.body)}`);
    if (named) return named[0];
    const enablement = /\/enablements\/([^/]+)/.exec(e.path);
    return enablement ? enablementOf.get(enablement[1]) : undefined;
  };
  const firstChange = gateway.findIndex((e) => e.method !== 'GET');
  const plan = { concurrency: CONCURRENCY, identityBefore: [], identityAfter: [], before: [], schemaReads: [], middle: [], dataSets: [], after: [] };
  const firstToken = identity.findIndex((e) => e.path.endsWith('/token'));
  identity.forEach((e, i) => {
    if (!e.path.endsWith('/token')) (i < firstToken ? plan.identityBefore : plan.identityAfter).push(request(e));
  });
  const perDataSet = new Map(names.map((n) => [n, []]));
  gateway.forEach((e, i) => {
    const dataSet = dataSetOf(e);
    if (i < firstChange) {
      if (dataSet) plan.schemaReads.push(request(e));
      else (plan.schemaReads.length ? plan.middle : plan.before).push(request(e));
    } else if (dataSet) perDataSet.get(dataSet).push(request(e));
    else plan.after.push(request(e));
  });
  plan.dataSets = [...perDataSet.values()];
  return plan;
}

/** One floor client run on a new sandbox: the plan with this sandbox's broker list and stream password. */
async function floorRun(template, transport = 'fetch') {
  const sandbox = await newSandbox();
  const planFile = join(work, 'floor-plan.json');
  const { password, brokerList } = sandbox.stream;
  if (!/^[\w.~-]+$/.test(password)) throw new Error('the stream password needs escaping in the floor plan');
  const bodyHere = (body) => body?.split(template.brokerList).join(brokerList).split('password=\\"***\\"').join(`password=\\"${password}\\"`);
  const here = (requests) => requests.map((r) => ({ ...r, body: bodyHere(r.body) }));
  const plan = template.plan;
  writeFileSync(planFile, JSON.stringify({ ...plan, before: here(plan.before), schemaReads: here(plan.schemaReads), middle: here(plan.middle), dataSets: plan.dataSets.map(here), after: here(plan.after) }));
  const env = measuredEnv(work, rssFile, sandboxAdminSettings(sandbox));
  const started = process.hrtime.bigint();
  const result = await new Promise((resolve) => {
    const child = spawn(process.execPath, [floorScript, planFile, '--transport', transport], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const connections = sandbox.connections().gateway;
  const connectionsAtOnce = sandbox.connectionsAtOnce().gateway;
  const unauthorized = sandbox.requestLog.of('gateway').filter((e) => e.status === 401).length;
  await sandbox.close();
  if (result.code !== 0) {
    console.error(result.stdout, result.stderr);
    throw new Error(`the floor client failed with exit ${result.code}`);
  }
  return { wallMs, ...JSON.parse(result.stdout), measured: JSON.parse(readFileSync(rssFile, 'utf8')), connections, connectionsAtOnce, unauthorized };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const spread = (values, format) => (values.length > 1 ? ` (${format(Math.min(...values))}–${format(Math.max(...values))})` : '');
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const timesFigure = (values) => `${(median(values) / 1000).toFixed(2)} s${spread(values, (v) => (v / 1000).toFixed(2))}`;
const sameOrRange = (values, format = String) => (Math.min(...values) === Math.max(...values) ? format(values[0]) : `${format(Math.min(...values))}–${format(Math.max(...values))}`);

// A first dpgw run (not counted) records the requests the floor client sends.
const recorded = await dpgwRun(undefined, { keepLog: true });
const template = { plan: floorPlan(recorded.log), brokerList: recorded.brokerList };
delete recorded.log;
const dpgwRuns = [];
const floorRuns = [];
/** The same floor client through node:http, the cheapest of Node's HTTP clients per request: shown beside the fetch floor the goals are set against. */
const httpFloorRuns = [];
const baselineRuns = [];
for (let round = 0; round < RUNS; round++) {
  // Alternated, the first of a pair switching each round.
  const turns = [async () => dpgwRuns.push(await dpgwRun()), async () => floorRuns.push(await floorRun(template)), async () => httpFloorRuns.push(await floorRun(template, 'http')), ...(BASELINE ? [async () => baselineRuns.push(await dpgwRun(BASELINE))] : [])];
  if (round % 2) turns.reverse();
  for (const turn of turns) await turn();
  process.stderr.write(`round ${round + 1}/${RUNS}: dpgw ${seconds(dpgwRuns.at(-1).wallMs)}, floor ${seconds(floorRuns.at(-1).wallMs)}, node:http floor ${seconds(httpFloorRuns.at(-1).wallMs)}${BASELINE ? `, baseline ${seconds(baselineRuns.at(-1).wallMs)}` : ''}\n`);
}

const CONTRACT_MINIMUM = storageTouchNeeded(recorded.platformVersion) === 'not-needed' ? 5 : 6;
const idealMs = Math.ceil(DATA_SETS / CONCURRENCY) * CONTRACT_MINIMUM * LATENCY_MS;
const dpgwWall = dpgwRuns.map((r) => r.wallMs);
const floorWall = floorRuns.map((r) => r.wallMs);
const floorRatio = median(dpgwWall) / median(floorWall);
const pairRatios = dpgwRuns.map((r, i) => r.wallMs / floorRuns[i].wallMs);
const idealRatio = median(dpgwWall) / idealMs;
// Both the same way: the process's CPU (user + system, scripts/report-rss.cjs, start-up included)
// over every request it sent to the gateway and the identity provider, token refreshes included.
const cpuPerRequest = dpgwRuns.map((r) => r.measured.cpuMs / r.requests);
const floorCpuPerRequest = floorRuns.map((r) => r.measured.cpuMs / r.requests);
const cpuToFloor = median(cpuPerRequest) / median(floorCpuPerRequest);
const cpuPairRatios = cpuPerRequest.map((cpu, i) => cpu / floorCpuPerRequest[i]);
const httpFloorCpuPerRequest = httpFloorRuns.map((r) => r.measured.cpuMs / r.requests);
const rssMb = dpgwRuns.map((r) => r.measured.rssKb / 1024);
const peakRssMb = Math.max(...rssMb);
const failed = dpgwRuns.map((r) => r.summary.dataSets.filter((d) => d.status !== 'done').length);
const perDataSet = dpgwRuns.map((r) => r.perDataSet);
// Token refreshes aside: their number follows each run's length.
const requests = dpgwRuns.map((r) => r.requests - r.refreshes.length);
const floorRequests = floorRuns.map((r) => r.requests - r.refreshes);

/** A goal's cell: in bold where the bench holds it (exits 1 when missed), and where it is set otherwise. */
const goalCell = (text) => (GOALS_HELD ? `**${text}**` : `(${text} at ${GOAL_RUN.dataSets.toLocaleString('en-US')} data sets, checks off)`);
/** The ratios of each round's pair, beside a ratio of medians (none for a single round). */
const pairs = (ratios) => (ratios.length > 1 ? ` (pairs ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)` : '');
const rows = [
  ['data sets / concurrency / gateway latency / runs of each', `${DATA_SETS} / ${CONCURRENCY} / ${LATENCY_MS} ms / ${RUNS}`, ''],
  ['data sets done (every run)', `${DATA_SETS - Math.max(...failed)} of ${DATA_SETS}`, `${DATA_SETS}`],
  ['gateway requests per data set (sequential)', sameOrRange(perDataSet, (v) => v.toFixed(2)), `${CONTRACT_MINIMUM} (contract minimum, platform ${recorded.platformVersion})`],
  ['gateway requests outside the sequence (version, catalog listings, the store\'s listings or one read per schema and table name, consumption reads)', sameOrRange(dpgwRuns.map((r) => r.runWide)), ''],
  ['requests to the gateway and the identity provider (token refreshes aside), dpgw / floor client', `${sameOrRange(requests)} / ${sameOrRange(floorRequests)}`, 'the same'],
  ['floor client: the same requests with Node\'s fetch, process start to exit', timesFigure(floorWall), ''],
  ['dpgw provision, process start to exit', timesFigure(dpgwWall), ''],
  ['ratio to the floor client', `${floorRatio.toFixed(2)}×${pairs(pairRatios)}`, goalCell(`≤ ${GOALS.floorRatio}×`)],
  ['ideal: ceil(data sets / concurrency) × minimum × latency', seconds(idealMs), ''],
  ['ratio to the ideal (dpgw) / (floor client)', `${idealRatio.toFixed(2)}× / ${(median(floorWall) / idealMs).toFixed(2)}×`, ''],
  ['of which the run dpgw reports (first request to summary)', timesFigure(dpgwRuns.map((r) => r.summary.seconds * 1000)), ''],
  ['mean time the gateway held a request (latency included)', `${median(dpgwRuns.map((r) => r.gatewayMs)).toFixed(2)} ms`, ''],
  ['dpgw CPU per request (process CPU / its gateway and identity requests)', `${median(cpuPerRequest).toFixed(2)} ms${spread(cpuPerRequest, (v) => v.toFixed(2))}`, ''],
  ['floor client CPU per request (the same: process CPU / its requests)', `${median(floorCpuPerRequest).toFixed(2)} ms${spread(floorCpuPerRequest, (v) => v.toFixed(2))}`, ''],
  ['dpgw CPU per request against the floor client\'s', `${cpuToFloor.toFixed(2)}×${pairs(cpuPairRatios)}`, goalCell(`≤ ${GOALS.cpuToFloor}×`)],
  ['the floor client through node:http instead of fetch: process start to exit / CPU per request', `${timesFigure(httpFloorRuns.map((r) => r.wallMs))} / ${median(httpFloorCpuPerRequest).toFixed(2)} ms${spread(httpFloorCpuPerRequest, (v) => v.toFixed(2))}`, ''],
  ['CPU: dpgw / sandbox during dpgw\'s run (2 cores shared)', `${seconds(median(dpgwRuns.map((r) => r.measured.cpuMs)))} / ${seconds(median(dpgwRuns.map((r) => r.sandboxCpuMs)))}`, ''],
  ['token endpoint: password grants / refreshes', `${sameOrRange(dpgwRuns.map((r) => r.passwordGrants))} / ${sameOrRange(dpgwRuns.map((r) => r.refreshes.length))}`, `1 / ${LARGE ? 'one per expiry' : 0}`],
  ['gateway answers 401', String(Math.max(...dpgwRuns.map((r) => r.unauthorized))), '0'],
  // The goal is on connections open at once: a keep-alive connection the gateway closed after 5 s idle
  // (a long run's last phase) and opened again is one more accepted, not one more at a time.
  ['gateway TCP connections, most open at once (accepted in all), dpgw / floor client', `${sameOrRange(dpgwRuns.map((r) => r.connectionsAtOnce))} (${sameOrRange(dpgwRuns.map((r) => r.connections))}) / ${sameOrRange(floorRuns.map((r) => r.connectionsAtOnce))} (${sameOrRange(floorRuns.map((r) => r.connections))})`, `≤ ${CONCURRENCY + EXTRA_CONNECTIONS} at once`],
  ['peak RSS of dpgw (its own high-water mark, VmHWM), median (highest)', `${median(rssMb).toFixed(1)} MB (${peakRssMb.toFixed(1)} MB)`, goalCell(`≤ ${GOALS.rssMb} MB`)],
];
const table = ['| measure | value | goal (bold: the bench exits 1 when missed) or what is expected |', '|---|---:|---:|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
console.log(table);

/** A checkout's commit, for the side-by-side heading: what was compared, not where it was on this machine. */
const commitOf = (checkout) => {
  try {
    return execFileSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return checkout;
  }
};
// Side by side: this checkout and the baseline, alternated in this one run, each against the
// same floor client runs (a run's pair is the floor run of its own round).
let sideBySide;
if (BASELINE) {
  const of = (runs) => {
    const cpu = runs.map((r) => r.measured.cpuMs / r.requests);
    const rss = runs.map((r) => r.measured.rssKb / 1024);
    return {
      wall: timesFigure(runs.map((r) => r.wallMs)),
      floor: `${(median(runs.map((r) => r.wallMs)) / median(floorWall)).toFixed(2)}×${pairs(runs.map((r, i) => r.wallMs / floorRuns[i].wallMs))}`,
      cpu: `${median(cpu).toFixed(2)} ms${spread(cpu, (v) => v.toFixed(2))}`,
      cpuToFloor: `${(median(cpu) / median(floorCpuPerRequest)).toFixed(2)}×${pairs(cpu.map((c, i) => c / floorCpuPerRequest[i]))}`,
      rss: `${median(rss).toFixed(1)} MB (${Math.max(...rss).toFixed(1)} MB)`,
    };
  };
  const [now, before] = [of(dpgwRuns), of(baselineRuns)];
  const floorCpu = `${median(floorCpuPerRequest).toFixed(2)} ms${spread(floorCpuPerRequest, (v) => v.toFixed(2))}`;
  sideBySide = [
    `Side by side with the baseline (${commitOf(BASELINE)}; this checkout ${commitOf(fileURLToPath(new URL('..', import.meta.url)))}), alternated with it and the floor client in the same ${RUNS} rounds:`,
    '',
    '| measure | baseline | this checkout | goal (bold: held) |',
    '|---|---:|---:|---:|',
    `| the floor client (Node's fetch), the same rounds: process start to exit / CPU per request | ${timesFigure(floorWall)} / ${floorCpu} | the same | |`,
    `| dpgw provision, process start to exit | ${before.wall} | ${now.wall} | |`,
    `| ratio to the floor client | ${before.floor} | ${now.floor} | ${goalCell(`≤ ${GOALS.floorRatio}×`)} |`,
    `| dpgw CPU per request | ${before.cpu} | ${now.cpu} | |`,
    `| CPU per request against the floor client's | ${before.cpuToFloor} | ${now.cpuToFloor} | ${goalCell(`≤ ${GOALS.cpuToFloor}×`)} |`,
    `| peak RSS of dpgw, median (highest) | ${before.rss} | ${now.rss} | ${goalCell(`≤ ${GOALS.rssMb} MB`)} |`,
  ].join('\n');
  console.log(`\n${sideBySide}`);
}

const marker = `${LARGE ? 'bench:provision-large' : 'bench:provision'}${CHECKS ? '-checks' : ''}`;
const section = [
  `<!-- ${marker} -->`,
  `## Provisioning${LARGE ? ', large' : ''}${CHECKS ? ', with the stream checks' : ''} (\`npm run bench:provision${LARGE || CHECKS ? ` --${LARGE ? ' --large' : ''}${CHECKS ? ' --checks' : ''}` : ''}\`)`,
  '',
  `\`dpgw provision\` of ${DATA_SETS} data sets (inline schemas, one new enablement each) against the sandbox, whose gateway answers every request ${LATENCY_MS} ms after it arrives; topics appear at once${LARGE ? `; access tokens live ${TOKEN_LIFETIME_S} s` : ''}. Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString().slice(0, 10)}. The time is the whole command, from process start to exit: start-up, reading and checking the manifest, signing in, the run and the summary. The floor client (\`scripts/bench-floor-client.mjs\`) sends exactly the requests a first dpgw run of the same manifest sent (same order per data set, same bodies, the same concurrency, one token) with Node's own fetch and keep-alive, also as a process of its own, and once more through node:http (\`--transport http\`, the cheapest of Node's HTTP clients per request); dpgw${BASELINE ? ', the baseline' : ''} and the two floor clients ran alternately, ${RUNS} times each, each run on a new sandbox: medians, min–max in brackets. ${CHECKS ? 'As a user runs it: the stream pre-flight (one connection to the brokers for the run) and the consumption proof (each table read back until it consumes) are on, the defaults; the floor client replays the gateway\'s and the identity provider\'s requests only, not the brokers\'.' : 'The stream pre-flight and the consumption proof are off here (`--no-stream-check --wait-consuming 0`); `-- --checks` measures the defaults.'} ${GOALS_HELD ? 'The goals (issue #46 §7) are held on this run: the bench exits 1 when one is missed.' : `The goals (issue #46 §7) are set for ${GOAL_RUN.dataSets.toLocaleString('en-US')} data sets, ${GOAL_RUN.concurrency} at a time, ${GOAL_RUN.latencyMs} ms away, checks off; here they are shown, not held.`}`,
  '',
  table,
  ...(sideBySide ? ['', sideBySide] : []),
  `<!-- /${marker} -->`,
].join('\n');
writeBenchSection(marker, section);

// The measurement itself: a run whose data sets were not all done, or a floor client that did not
// send what dpgw sent, compares nothing; the bench fails on it as on a crash, whatever the goals say.
const invalid = [];
failed.forEach((n, i) => n > 0 && invalid.push(`run ${i + 1}: ${n} data sets not done`));
if (floorRequests.some((n, i) => n !== requests[i])) invalid.push(`the floor client sent ${sameOrRange(floorRequests)} requests, dpgw ${sameOrRange(requests)} (token refreshes aside)`);
// The goals of issue #46 §7: the only figures the bench exits 1 on.
const missed = [];
if (floorRatio > GOALS.floorRatio) missed.push(`ratio to the floor client ${floorRatio.toFixed(2)}× > ${GOALS.floorRatio}×`);
if (cpuToFloor > GOALS.cpuToFloor) missed.push(`dpgw CPU per request ${median(cpuPerRequest).toFixed(2)} ms, ${cpuToFloor.toFixed(2)}× the floor client's ${median(floorCpuPerRequest).toFixed(2)} ms > ${GOALS.cpuToFloor}×`);
if (peakRssMb > GOALS.rssMb) missed.push(`peak RSS ${peakRssMb.toFixed(1)} MB > ${GOALS.rssMb} MB`);
// What the table shows besides: dpgw's requests and tokens as the contract and the identity
// provider expect them, and its connections within its own bound. The tests hold these
// (test/cli/provision.test.ts, test/client/session-token.test.ts, test/sandbox/gateway.test.ts);
// here a departure is named, not a goal missed.
const noted = [];
if (Math.max(...perDataSet) > CONTRACT_MINIMUM) noted.push(`${Math.max(...perDataSet).toFixed(2)} requests per data set > ${CONTRACT_MINIMUM}`);
for (const [i, run] of dpgwRuns.entries()) {
  // Exactly one refresh per expiry: none before the token neared its end, and no expiry without
  // one. A token's exp is in whole seconds and dpgw refreshes in its last tenth, so a token
  // serves between 0.6 and 1 of its lifetime.
  const runSeconds = run.wallMs / 1000;
  const fewestRefreshes = Math.floor(runSeconds / TOKEN_LIFETIME_S);
  const mostRefreshes = Math.ceil(runSeconds / (TOKEN_LIFETIME_S * 0.6));
  const refreshGaps = run.refreshes.slice(1).map((e, j) => (Date.parse(e.at) - Date.parse(run.refreshes[j].at)) / 1000);
  if (run.passwordGrants !== 1) noted.push(`run ${i + 1}: ${run.passwordGrants} password grants`);
  if (LARGE && (run.refreshes.length < fewestRefreshes || run.refreshes.length > mostRefreshes)) noted.push(`run ${i + 1}: ${run.refreshes.length} refreshes for a ${runSeconds.toFixed(1)} s run of ${TOKEN_LIFETIME_S} s tokens`);
  if (refreshGaps.some((gap) => gap < TOKEN_LIFETIME_S * 0.6)) noted.push(`run ${i + 1}: two refreshes within one token lifetime (${refreshGaps.map((g) => g.toFixed(1)).join(', ')} s apart)`);
  if (!LARGE && run.refreshes.length > 0) noted.push(`run ${i + 1}: ${run.refreshes.length} refreshes`);
  if (run.unauthorized > 0) noted.push(`run ${i + 1}: ${run.unauthorized} answers 401`);
  if (run.connectionsAtOnce > CONCURRENCY + EXTRA_CONNECTIONS) noted.push(`run ${i + 1}: ${run.connectionsAtOnce} connections open at once`);
}
if (noted.length) console.error(`noted (not a goal): ${noted.join('; ')}`);
if (missed.length) console.error(`${GOALS_HELD ? 'goal missed' : `above the goals set for ${GOAL_RUN.dataSets.toLocaleString('en-US')} data sets with the checks off (shown, not held here)`}: ${missed.join('; ')}`);
if (invalid.length) console.error(`the measurement is not valid: ${invalid.join('; ')}`);
if (invalid.length || (GOALS_HELD && missed.length)) process.exitCode = 1;
