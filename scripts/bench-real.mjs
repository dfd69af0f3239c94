// npm run bench:real — dpgw on the real platform (issue #35 §2), on the end-to-end tier's
// real Keycloak, Kafka and Pinot (scripts/platform/*.mjs). 20 schema+table pairs (the track
// example's schema under 20 names, the REALTIME table definitions dpgw fills), for each tool:
//   floor        a bare client (Node's fetch, keep-alive) sending the store's own requests,
//                POST /schemas then POST /tables per pair, straight to the Pinot controller,
//                10 pairs at a time, in a node process of its own;
//   dpgw         `dpgw provision` with the contract steps only (--no-stream-check
//                --no-sample-check --wait-consuming 0), --concurrency 10 like the floor;
//   dpgw checks  the same with dpgw's checks on (its defaults: stream pre-flight, sampled
//                messages held against the schema, the consumption proof), --concurrency 10;
//   baseline     with BENCH_BASELINE=<a built checkout of dpgw>: that checkout's `dpgw provision`,
//                contract steps only as above, signed in on its own, in the same rotation (what
//                a change bought, side by side; not a goal);
//   pinot-admin  `PinotAdministrator AddTable -schemaFile … -tableConfigFile … -exec` per pair,
//                one JVM each, one after the other, from the Pinot release the tier uses. In
//                Pinot 0.11 AddTable always reads -schemaFile and sends schema and table in one
//                request (POST /tableConfigs): without it, it exits 0 having made nothing, and
//                AddSchema is not needed before it (it would add a JVM start per pair).
// Rounds alternate the tools (round-robin, the order rotated each round, reversed every other
// round so that no tool always follows the same one: roundOrder); each tool starts
// every round from a clean store: its own fresh names, none of which exist on the
// controller; its tables and schemas are deleted after it (untimed), so the controller
// never carries more than one run's tables, and the next run waits for a quiet machine.
// Before round 1, the controller is warmed up by the floor's requests for 20 other pairs
// (untimed). Untimed beforehand, for every name: the data set enabled through the gateway
// (its topic made on Kafka) and 50 track messages on it, so
// that every tool starts from the same topics and dpgw's enable step finds the enablement
// made (converging) and its checks find messages. dpgw is signed in beforehand.
// The Terraform Pinot provider is not measured: no Pinot provider can be installed from the
// package registries available here (see docs/benchmarks.md).
// Prints the table, writes it to docs/benchmarks.md, exits 1 when a goal is missed (issue #46 §7:
// dpgw, contract steps only, ≤ 1.10× the floor, and ≥ 10× faster than pinot-admin).
// Usage: [BENCH_BASELINE=<a built checkout>] node scripts/bench-real.mjs [--rounds N]   (not while test:e2e runs: Pinot's ports are fixed)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load as loadYaml } from 'js-yaml';
import kafkajs from 'kafkajs';
import { startSandbox } from '../dist/lib/sandbox/sandbox.js';
import { feedMessages } from '../dist/lib/sandbox/stream/feed-messages.js';
import { KEYCLOAK_VERSION, javaHome, startKeycloak } from './platform/keycloak.mjs';
import { startKafka } from './platform/kafka.mjs';
import { PINOT_VERSION, pinotLibraries, startPinot } from './platform/pinot.mjs';
import { writeBenchSection } from './bench-doc.mjs';
import { kafkaStream, pinotStore } from './platform/backing.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const PAIRS = 20;
const AT_ONCE = 10;
const MESSAGES = 50;
const roundsFlag = process.argv.indexOf('--rounds');
const ROUNDS = roundsFlag > 0 ? Number(process.argv[roundsFlag + 1]) : 3;
/** Issue #46 §7 (was 1.05× in issue #35): the compare-first reads before a run are a feature, not waste. */
const FLOOR_GOAL = 1.1;
const ADMIN_GOAL = 10;
const GROUP = 'bench-readers';
const DATASOURCE = 'bench-library';
const TEMPLATE = 'tmpl_zz';
const BASELINE = process.env.BENCH_BASELINE;
const work = mkdtempSync(join(tmpdir(), 'dpgw-bench-real-'));

// The tools, their short name prefixes, and what each does (for the table).
const TOOLS = [
  { key: 'floor', prefix: 'fl', label: 'floor (bare client)', does: `POST /schemas then POST /tables per pair, ${AT_ONCE} pairs at a time, straight to the controller` },
  { key: 'dpgw', prefix: 'dc', label: 'dpgw, contract steps only', does: `\`provision --no-stream-check --no-sample-check --wait-consuming 0 --concurrency ${AT_ONCE}\`: per pair the enablement checked (made beforehand), schema, table, storage touch, through the gateway` },
  { key: 'checks', prefix: 'dk', label: 'dpgw with its checks', does: `\`provision --concurrency ${AT_ONCE}\` (defaults): the same plus the stream pre-flight, ${MESSAGES} sampled messages per topic held against the schema, and the wait until Pinot consumes every partition` },
  ...(BASELINE ? [{ key: 'baseline', prefix: 'bl', label: 'baseline dpgw, contract steps only', does: `the same as dpgw, contract steps only, by the baseline checkout (\`BENCH_BASELINE\`, ${commitOf(BASELINE)})` }] : []),
  { key: 'admin', prefix: 'pa', label: 'pinot-admin', does: '`AddTable -schemaFile … -tableConfigFile … -exec` per pair (schema and table in one request, `/tableConfigs`), one JVM each, one after the other' },
];
const nameOf = (tool, round, i) => `${tool.prefix}_r${round}_${String(i).padStart(2, '0')}`;
const namesOf = (tool, round) => Array.from({ length: PAIRS }, (_, i) => nameOf(tool, round, i));
const allNames = [...namesOf({ prefix: 'wu' }, 0), ...TOOLS.flatMap((tool) => Array.from({ length: ROUNDS }, (_, round) => namesOf(tool, round)).flat())];

const freePort = () =>
  new Promise((resolve) => {
    const server = http.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const running = [];
const keep = async (starting) => {
  const component = await starting;
  running.push(component);
  return component;
};
let exitCode = 0;
try {
  const lib = await pinotLibraries();
  const settled = await Promise.allSettled([keep(startKeycloak({ port: await freePort() })), keep(startKafka({ port: await freePort(), controllerPort: await freePort() })), keep(startPinot())]);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  const [keycloak, kafka, pinot] = settled.map((s) => s.value);
  console.log(`[bench] Keycloak ${KEYCLOAK_VERSION}, Kafka ${kafka.version}, Pinot ${PINOT_VERSION} up`);

  // Every call to the controller passes a counter, from every tool (the same extra hop for all).
  // It also times the creating requests (schema, table, or both at once), as the controller answers them.
  const controllerCalls = { count: 0, creating: [], spans: [] };
  const controllerProxy = http.createServer((request, response) => {
    controllerCalls.count++;
    // Every call's span on the wall clock, for the timeline of a run (first call, first creating call, last answer).
    const span = { creating: false, start: Date.now(), end: undefined };
    controllerCalls.spans.push(span);
    response.on('finish', () => (span.end = Date.now()));
    if (request.method === 'POST' && /^\/(schemas|tables|tableConfigs)(\?|$)/.test(request.url ?? '')) {
      span.creating = true;
      const started = performance.now();
      const kind = /^\/(\w+)/.exec(request.url)[1];
      response.on('finish', () => controllerCalls.creating.push({ kind, ms: performance.now() - started }));
    }
    const upstream = http.request(new URL(request.url, pinot.controller), { method: request.method, headers: { ...request.headers, host: new URL(pinot.controller).host } }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', (error) => response.destroy(error));
    request.pipe(upstream);
  });
  const proxyPort = await freePort();
  await new Promise((resolve) => controllerProxy.listen(proxyPort, '127.0.0.1', resolve));
  running.push({ stop: () => new Promise((resolve) => controllerProxy.close(resolve)) });
  const controller = `http://127.0.0.1:${proxyPort}`;

  const issuer = `${keycloak.authUrl}/auth/realms/${keycloak.realm}`;
  const gateway = await startSandbox({
    topicDelayMs: 0,
    seed: [{ name: DATASOURCE, dataSets: [TEMPLATE, ...allNames] }],
    backing: {
      identity: { issuer, jwksUri: `${issuer}/protocol/openid-connect/certs` },
      stream: await kafkaStream(kafka),
      store: pinotStore(controller),
    },
  });
  running.push({ stop: () => gateway.close() });

  const admin = keycloak.users.find((u) => u.username === 'admin');
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    DPGW_CONFIG_DIR: join(work, 'config'),
    XDG_CACHE_HOME: join(work, 'cache'),
    DPGW_GATEWAY: gateway.gatewayUrl,
    DPGW_AUTH_URL: keycloak.authUrl,
    DPGW_REALM: keycloak.realm,
    DPGW_CLIENT_ID: keycloak.clientId,
    DPGW_CLIENT_SECRET: keycloak.clientSecret,
    DPGW_USERNAME: admin.username,
    DPGW_PASSWORD: admin.password,
    DPGW_STREAM_TYPE: 'kafka',
    DPGW_BROKER_LIST: kafka.brokerList,
    DPGW_REGISTRY_URL: 'http://127.0.0.1:8081',
    DPGW_STREAM_USER: kafka.streamUser,
    DPGW_STREAM_PASSWORD: kafka.streamPassword,
  };
  // The binary itself, as a user's shell runs it (its shebang carries dpgw's V8 flags).
  const dpgwAt =
    (checkout, settings) =>
    (args, extra = {}) =>
      run(join(checkout, 'bin/dpgw'), args, { env: { ...settings, NODE_OPTIONS: `--require=${JSON.stringify(join(root, 'scripts/report-rss.cjs'))}`, ...extra } });
  const dpgw = dpgwAt(root, env);
  // The baseline keeps a config and caches of its own: its session and code caches are its build's.
  const baselineDpgw = BASELINE ? dpgwAt(BASELINE, { ...env, DPGW_CONFIG_DIR: join(work, 'baseline', 'config'), XDG_CACHE_HOME: join(work, 'baseline', 'cache') }) : undefined;

  // The same schema for every pair (the track example's columns), under each pair's name.
  const track = loadYaml(readFileSync(join(root, 'examples/track/schema.yaml'), 'utf8'));
  const schemaJson = (schemaName) => JSON.stringify({ ...track, schemaName }, null, 2);
  const schemaFile = (schemaName) => {
    const file = join(work, `${schemaName}.schema.json`);
    writeFileSync(file, schemaJson(schemaName));
    return file;
  };

  // Untimed: signed in; the table definition dpgw fills, once, for a template name (the
  // real stream password in place of the mask); every name enabled, its topic fed.
  const login = await dpgw(['login', '--quiet']);
  if (login.code !== 0) throw new Error(`dpgw login: ${login.stderr}`);
  if (baselineDpgw) {
    const baselineLogin = await baselineDpgw(['login', '--quiet']);
    if (baselineLogin.code !== 0) throw new Error(`baseline dpgw login: ${baselineLogin.stderr}`);
  }
  // Enabling is safe to repeat: once more when a topic is slow to appear (Kafka under this load).
  const enable = async (dataset) => {
    let enabled;
    for (let attempt = 0; attempt < 3; attempt++) {
      enabled = await dpgw(['enable', '--datasource', DATASOURCE, '--dataset', dataset, '--group', GROUP, '--wait-timeout', '30', '--quiet']);
      if (enabled.code === 0) return;
    }
    throw new Error(`dpgw enable ${dataset}: ${enabled.stderr}`);
  };
  await enable(TEMPLATE);
  const rendered = await dpgw(['table', 'render', '--dataset', TEMPLATE, '--schema', schemaFile(TEMPLATE), '--json']);
  if (rendered.code !== 0) throw new Error(`dpgw table render: ${rendered.stderr}`);
  const templateTable = JSON.parse(rendered.stdout);
  withStreamPassword(templateTable, kafka.streamUser, kafka.streamPassword);
  const templateText = JSON.stringify(templateTable, null, 2);
  const streams = templateTable.tableIndexConfig.streamConfigs;
  const templateTopic = streams[`stream.${streams.streamType}.topic.name`];
  if (!templateTable.tableName?.startsWith(TEMPLATE) || !templateTopic?.includes(TEMPLATE)) throw new Error(`unexpected table definition: ${rendered.stdout}`);
  const tableJson = (dataset) => templateText.replaceAll(TEMPLATE, dataset);
  const topicOf = (dataset) => templateTopic.replaceAll(TEMPLATE, dataset);

  const preparing = performance.now();
  await pool(allNames, 4, enable);
  const { Kafka, logLevel } = kafkajs;
  const producer = new Kafka({ clientId: 'dpgw-bench-real', brokers: [kafka.brokerList], sasl: { mechanism: 'scram-sha-512', username: kafka.streamUser, password: kafka.streamPassword }, logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  try {
    await pool(allNames, 8, (dataset) => producer.send({ topic: topicOf(dataset), messages: feedMessages('track', MESSAGES).map(({ key, value }) => ({ key, value })) }));
  } finally {
    await producer.disconnect();
  }
  console.log(`[bench] ${allNames.length} data sets enabled, ${MESSAGES} messages on each topic (${((performance.now() - preparing) / 1000).toFixed(0)} s, untimed)`);

  // The floor's program: its own node process, the requests read from a file beforehand.
  const floorProgram = `
    import { readFileSync } from 'node:fs';
    const base = process.env.CONTROLLER;
    const pairs = JSON.parse(readFileSync(process.env.PAIRS_FILE, 'utf8'));
    const post = async (path, body) => {
      const response = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await response.text();
      if (!response.ok) throw new Error(path + ' ' + response.status + ' ' + text);
    };
    let next = 0;
    await Promise.all(Array.from({ length: Number(process.env.AT_ONCE) }, async () => {
      while (next < pairs.length) {
        const pair = pairs[next++];
        await post('/schemas', pair.schema);
        await post('/tables', pair.table);
      }
    }));`;
  const java = join(javaHome(), 'bin', 'java');
  const opens = ['java.base/java.lang', 'java.base/java.nio', 'java.base/sun.nio.ch', 'java.base/java.util', 'java.base/java.lang.reflect'].flatMap((p) => ['--add-opens', `${p}=ALL-UNNAMED`]);
  // In the bench's own folder: its log4j writes logs/pinot-all.log where it runs.
  const pinotAdmin = (args) => run(java, [...opens, '-cp', `${lib}/*`, 'org.apache.pinot.tools.admin.PinotAdministrator', ...args, '-controllerHost', '127.0.0.1', '-controllerPort', String(proxyPort), '-exec'], { cwd: work, env: { PATH: process.env.PATH, HOME: work } });

  /** One timed run of a tool over its names; returns { ms, peakRssKb, controllerCalls, gatewayCalls }. */
  const measure = async (tool, names) => {
    const manifest = join(work, `provision-${names[0]}.yaml`);
    const pairsFile = join(work, `pairs-${names[0]}.json`);
    if (tool.key === 'floor') writeFileSync(pairsFile, JSON.stringify(names.map((n) => ({ schema: schemaJson(n), table: tableJson(n) }))));
    if (tool.key === 'admin')
      for (const n of names) {
        writeFileSync(join(work, `${n}.table.json`), tableJson(n));
        schemaFile(n);
      }
    const isDpgw = tool.key === 'dpgw' || tool.key === 'checks' || tool.key === 'baseline';
    if (isDpgw) writeFileSync(manifest, `version: 1\ndataSets:\n${names.map((n) => `  - { datasource: ${DATASOURCE}, dataset: ${n}, groups: [${GROUP}], schema: ${schemaFile(n)} }\n`).join('')}`);
    controllerCalls.count = 0;
    controllerCalls.creating = [];
    controllerCalls.spans = [];
    gateway.requestLog.clear();
    let result;
    if (tool.key === 'floor') {
      result = await run(process.execPath, ['--input-type=module', '-e', floorProgram], { env: { PATH: process.env.PATH, CONTROLLER: controller, PAIRS_FILE: pairsFile, AT_ONCE: String(AT_ONCE) } });
      if (result.code !== 0) throw new Error(`floor client exited ${result.code}: ${result.stderr}`);
    } else if (isDpgw) {
      const flags = tool.key === 'checks' ? [] : ['--no-stream-check', '--no-sample-check', '--wait-consuming', '0'];
      result = await (tool.key === 'baseline' ? baselineDpgw : dpgw)(['provision', manifest, ...flags, '--concurrency', String(AT_ONCE), '--json', '--quiet']);
      if (result.code !== 0) throw new Error(`dpgw provision (${tool.label}) exited ${result.code}: ${result.stderr}`);
      if (tool.key === 'checks') {
        const steps = JSON.parse(result.stdout).dataSets.flatMap((d) => d.steps);
        const unchecked = steps.filter((s) => /^not checked/.test(s.reason ?? ''));
        if (unchecked.length) throw new Error(`dpgw's checks did not run: ${unchecked.map((s) => s.reason).join('; ')}`);
      }
    } else {
      const started = performance.now();
      let peakRssKb = 0;
      for (const n of names) {
        const step = await pinotAdmin(['AddTable', '-schemaFile', join(work, `${n}.schema.json`), '-tableConfigFile', join(work, `${n}.table.json`)]);
        // (it can exit 0 having failed: the tables are checked on the controller below)
        if (step.code !== 0) throw new Error(`pinot-admin AddTable ${n} exited ${step.code}: ${step.stdout}\n${step.stderr}`);
        peakRssKb = Math.max(peakRssKb, step.peakRssKb);
      }
      result = { ms: performance.now() - started, peakRssKb };
    }
    const measured = { ms: result.ms, startedAt: result.startedAt, spans: controllerCalls.spans, timeline: timelineOf(result, controllerCalls.spans), peakRssKb: result.peakRssKb, controllerCalls: controllerCalls.count, gatewayCalls: gateway.requestLog.of('gateway').length, creating: controllerCalls.creating, gatewayLog: gateway.requestLog.of('gateway') };
    // Every table made, then the tool's objects removed (untimed) for the next run.
    const tables = (await (await fetch(`${pinot.controller}/tables`)).json()).tables ?? [];
    const missing = names.filter((n) => !tables.includes(n));
    if (missing.length) throw new Error(`${tool.label}: tables missing on the controller: ${missing.join(', ')}`);
    await pool(names, 4, async (n) => {
      await fetch(`${pinot.controller}/tables/${n}?type=realtime`, { method: 'DELETE' }).then((r) => r.arrayBuffer());
      await fetch(`${pinot.controller}/schemas/${n}`, { method: 'DELETE' }).then((r) => r.arrayBuffer());
    });
    // Pinot stops the deleted tables' consumers and drops their segments after answering:
    // the next tool starts once the machine is quiet again, not while that runs.
    await quietMachine();
    return measured;
  };

  // Untimed: the controller warmed up by one floor run of its own names, so that the first
  // tool of the first round does not pay for the fresh JVM's first table creations.
  const warmUp = await measure({ ...TOOLS[0], prefix: 'wu' }, namesOf({ prefix: 'wu' }, 0));
  console.log(`[bench] warm-up (untimed): the floor's requests for ${PAIRS} other pairs, ${(warmUp.ms / 1000).toFixed(2)} s`);

  const results = Object.fromEntries(TOOLS.map((t) => [t.key, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = roundOrder(TOOLS, round);
    for (const tool of order) {
      const measured = await measure(tool, namesOf(tool, round));
      results[tool.key].push(measured);
      console.log(`[bench] round ${round + 1}/${ROUNDS} ${tool.label}: ${(measured.ms / 1000).toFixed(2)} s`);
    }
  }

  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  // The controller's answer time per kind of creating request, median over all rounds.
  const creatingOf = (key) =>
    ['schemas', 'tables', 'tableConfigs']
      .map((kind) => [kind, results[key].flatMap((r) => r.creating.filter((c) => c.kind === kind).map((c) => c.ms))])
      .filter(([, ms]) => ms.length)
      .map(([kind, ms]) => `POST /${kind} ${(median(ms) / 1000).toFixed(2)} s`)
      .join(', ');
  const stat = (key) => {
    const ms = results[key].map((r) => r.ms);
    return { median: median(ms), min: Math.min(...ms), max: Math.max(...ms), rss: Math.max(...results[key].map((r) => r.peakRssKb)), controller: median(results[key].map((r) => r.controllerCalls)), gateway: median(results[key].map((r) => r.gatewayCalls)), creating: creatingOf(key) };
  };
  const s = Object.fromEntries(TOOLS.map((t) => [t.key, stat(t.key)]));
  const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const floorRatio = s.dpgw.median / s.floor.median;
  const adminRatio = s.admin.median / s.dpgw.median;
  const adminChecksRatio = s.admin.median / s.checks.median;
  const calls = (key) => (key === 'dpgw' || key === 'checks' || key === 'baseline' ? `${s[key].gateway} to the gateway; it made ${s[key].controller} to the controller` : `${s[key].controller} to the controller`);
  const against = {
    floor: '1.00×',
    dpgw: `**${floorRatio.toFixed(2)}× the floor** (goal ≤ ${FLOOR_GOAL.toFixed(2)}×); pinot-admin / this: **${adminRatio.toFixed(1)}×** (goal ≥ ${ADMIN_GOAL}×)`,
    checks: `${(s.checks.median / s.floor.median).toFixed(2)}× the floor; pinot-admin / this: ${adminChecksRatio.toFixed(1)}×`,
    ...(BASELINE ? { baseline: `${(s.baseline.median / s.floor.median).toFixed(2)}× the floor (this checkout: ${floorRatio.toFixed(2)}×); pinot-admin / this: ${(s.admin.median / s.baseline.median).toFixed(1)}×` } : {}),
    admin: `${(s.admin.median / s.floor.median).toFixed(1)}× the floor`,
  };
  const processes = { floor: '1 node', dpgw: '1 node', checks: '1 node', baseline: '1 node', admin: `${PAIRS} JVMs` };
  const rows = TOOLS.map((t) => [t.label, t.does, `**${seconds(s[t.key].median)}** (${seconds(s[t.key].min)}–${seconds(s[t.key].max)})`, against[t.key], processes[t.key], `${(s[t.key].rss / 1024).toFixed(0)} MB`, calls(t.key), s[t.key].creating]);
  rows.push(['Terraform Pinot provider', 'apply, then one re-plan', 'not measured', 'no Pinot provider can be installed from the package registries available here (see below)', '', '', '', '']);
  const table = [
    `| tool | what it does for the ${PAIRS} pairs | wall time, median (min–max of ${ROUNDS}) | against the others | processes | peak RSS (largest process) | HTTP calls (median of a run) | the controller's answer time, median |`,
    '|---|---|---:|---|---|---:|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
  // Where dpgw's time goes (contract steps only): its gateway requests by kind, per run, and
  // the time the gateway (and the systems behind it) took for them.
  const kindOf = (e) => `${e.method} ${e.path.replace(/\?.*$/, '').replace(/d[ck]_r\d+_\d+/g, '{name}').replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}')}`;
  const byKind = new Map();
  for (const e of results.dpgw.flatMap((r) => r.gatewayLog)) byKind.set(kindOf(e), [...(byKind.get(kindOf(e)) ?? []), e.durationMs ?? 0]);
  const breakdown = [
    '| dpgw (contract steps only): request at the gateway | per run | time at the gateway, median |',
    '|---|---:|---:|',
    ...[...byKind].map(([kind, ms]) => `| \`${kind}\` | ${(ms.length / ROUNDS).toFixed(0)} | ${median(ms).toFixed(0)} ms |`),
  ].join('\n');
  // Where the wall time went, per tool (medians over the rounds), seen from the controller.
  const phase = (key, name) => `${(median(results[key].map((r) => r.timeline[name])) / 1000).toFixed(2)} s`;
  const timeline = [
    '| tool | start to its first call at the controller | then to its first schema or table call | creating calls, first sent to last answered | last answer to exit |',
    '|---|---:|---:|---:|---:|',
    ...TOOLS.filter((t) => t.key !== 'admin').map((t) => `| ${t.label} | ${phase(t.key, 'toFirstCall')} | ${phase(t.key, 'toFirstCreating')} | ${phase(t.key, 'creating')} | ${phase(t.key, 'toExit')} |`),
  ].join('\n');
  console.log(table);
  console.log(breakdown);
  console.log(timeline);
  // Every run's requests and spans, for a closer look (BENCH_REAL_DUMP=<file>).
  if (process.env.BENCH_REAL_DUMP) writeFileSync(process.env.BENCH_REAL_DUMP, JSON.stringify(results));
  const section = [
    '<!-- bench:real -->',
    '## On the real platform (`npm run bench:real`)',
    '',
    `${PAIRS} schema+table pairs (the track example's schema under ${PAIRS} names, the REALTIME table definitions dpgw fills) on the e2e tier's real Pinot ${PINOT_VERSION} (controller, broker and server in one JVM), Kafka ${kafka.version} and Keycloak ${KEYCLOAK_VERSION}, dpgw going through the backed gateway. ${ROUNDS} rounds, the tools alternating in one run (the order rotated each round and reversed every other round, so that no tool always runs after the same one), each run from a clean store: the tool's own fresh names, its tables and schemas deleted after it (untimed), and the next run started once the machine is quiet again (at most 20 % CPU busy over a second, waited for up to 15 s: Pinot drops deleted tables after answering). Untimed beforehand: the controller warmed up by one floor run of 20 other pairs, and, the same for every tool, each data set enabled (its topic made on Kafka, 3 partitions) with ${MESSAGES} track messages on it, and dpgw signed in; so dpgw's enable step finds the enablement made (a converging read, not a new topic). ${BASELINE ? `The baseline is the same command by the checkout of ${commitOf(BASELINE)} (\`BENCH_BASELINE\`), against this checkout's ${commitOf(root)}, in the same rotation. ` : ''}Every tool's requests pass the same counting proxy in front of the controller. Wall time is process start to exit (for pinot-admin, the ${PAIRS} JVMs one after the other). Node ${process.version}, OpenJDK 17, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'} (shared with other work), ${new Date().toISOString().slice(0, 10)}.`,
    '',
    table,
    '',
    breakdown,
    '',
    timeline,
    '<!-- /bench:real -->',
  ].join('\n');
  writeBenchSection('bench:real', section);
  if (floorRatio > FLOOR_GOAL) {
    console.error(`goal missed: dpgw (contract steps only) took ${floorRatio.toFixed(2)}× the floor, not ≤ ${FLOOR_GOAL.toFixed(2)}×`);
    exitCode = 1;
  }
  if (adminRatio < ADMIN_GOAL) {
    console.error(`goal missed: dpgw (contract steps only) ${adminRatio.toFixed(1)}× faster than pinot-admin, not ≥ ${ADMIN_GOAL}×`);
    exitCode = 1;
  }
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  await Promise.allSettled(running.reverse().map((c) => c.stop()));
}
process.exit(exitCode);

/**
 * Where a run's wall time went, from the controller's side (the same for every tool): until its
 * first call (start-up, and for dpgw its sign-in check, catalog reads and the gateway's hop),
 * until its first creating call (schema reads before the run), the creating calls until the
 * last answer, and from there to exit. Undefined for pinot-admin (one process per pair).
 */
function timelineOf(result, spans) {
  if (result.startedAt === undefined || spans.length === 0) return undefined;
  const first = Math.min(...spans.map((s) => s.start));
  const firstCreating = Math.min(...spans.filter((s) => s.creating).map((s) => s.start));
  const lastAnswer = Math.max(...spans.map((s) => s.end ?? s.start));
  return { toFirstCall: first - result.startedAt, toFirstCreating: firstCreating - first, creating: lastAnswer - firstCreating, toExit: result.endedAt - lastAnswer };
}

/** Waits until the whole machine's CPU is at most 20 % busy over a second (at most 15 s). */
/**
 * The tools' order in a round. A rotation alone keeps each tool behind the same neighbour in
 * every round (the floor always after pinot-admin, dpgw always after the floor), and a run pays
 * for what its predecessor left the controller to do (dropping its tables, closing their
 * consumers): rotations of the list on even rounds and of the list reversed on odd ones put
 * each tool behind both of its neighbours, and first in some round.
 */
function roundOrder(tools, round) {
  const list = round % 2 === 0 ? tools : [...tools].reverse();
  const shift = Math.floor(round / 2);
  return list.map((_, i) => list[(i + shift) % list.length]);
}

async function quietMachine() {
  const busyAndTotal = () => {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const idle = ticks[3] + ticks[4];
    const total = ticks.reduce((a, b) => a + b, 0);
    return [total - idle, total];
  };
  const deadline = performance.now() + 15_000;
  while (performance.now() < deadline) {
    const [busy0, total0] = busyAndTotal();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const [busy1, total1] = busyAndTotal();
    if ((busy1 - busy0) / Math.max(1, total1 - total0) <= 0.2) return;
  }
}

/** Runs `fn` over `items`, `width` at a time. */
async function pool(items, width, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/** The table's SCRAM login line with the real password (dpgw prints it masked). */
function withStreamPassword(value, user, password) {
  if (value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'sasl.jaas.config') value[key] = `org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${password}";`;
    else withStreamPassword(inner, user, password);
  }
}

/** Runs a command to its end: wall time, output, and its peak RSS (VmHWM, sampled from /proc). */
function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const rssFile = join(work, `rss-${Math.random().toString(36).slice(2)}`);
    const started = performance.now();
    const startedAt = Date.now();
    const child = spawn(command, args, { ...options, env: { ...options.env, DPGW_BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peakRssKb = 0;
    const sample = setInterval(() => {
      try {
        const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
        if (hwm) peakRssKb = Math.max(peakRssKb, Number(hwm));
      } catch {
        // gone already
      }
    }, 25);
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sample);
      const ms = performance.now() - started;
      // dpgw reports its own peak exactly at exit (scripts/report-rss.cjs).
      if (existsSync(rssFile)) peakRssKb = Math.max(peakRssKb, JSON.parse(readFileSync(rssFile, 'utf8')).rssKb);
      resolve({ code, stdout, stderr, ms, peakRssKb, startedAt, endedAt: Date.now() });
    });
  });
}

/** A checkout's commit, for the table: what was compared, not where it was on this machine. */
function commitOf(checkout) {
  try {
    return execFileSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return checkout;
  }
}
