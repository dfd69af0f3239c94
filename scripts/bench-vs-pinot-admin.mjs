// npm run bench:vs-pinot-admin — dpgw next to the tool a Pinot user has today, on the
// end-to-end tier's real Keycloak, Kafka and Pinot. The same 20 schema+table pairs go to
// the same Pinot controller: once with pinot-admin (`PinotAdministrator AddTable
// -schemaFile … -tableConfigFile … -exec`, one JVM per pair, as its users run it), once
// with `dpgw provision` through the backed gateway (enable, schema, table, storage touch:
// more work per table). Also one table each, as a person at a terminal feels it. Prints
// wall times, their ratio, each tool's peak RSS and HTTP calls; writes docs/benchmarks.md;
// exits 1 when dpgw is not at least 10× faster for the 20 tables.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load as loadYaml } from 'js-yaml';
import { startSandbox } from '../dist/lib/sandbox/sandbox.js';
import { KEYCLOAK_VERSION, javaHome, startKeycloak } from './platform/keycloak.mjs';
import { startKafka } from './platform/kafka.mjs';
import { PINOT_VERSION, pinotLibraries, startPinot } from './platform/pinot.mjs';
import { writeBenchSection } from './bench-doc.mjs';
import { kafkaStream, pinotStore } from './platform/backing.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const PAIRS = 20;
const GOAL = 10;
const GROUP = 'bench-readers';
const work = mkdtempSync(join(tmpdir(), 'dpgw-vs-pinot-admin-'));
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

  // Every call to the controller passes a counter, from either tool.
  const controllerCalls = { count: 0 };
  const controllerProxy = http.createServer((request, response) => {
    controllerCalls.count++;
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

  const name = (tool, i) => `${tool}_${String(i).padStart(2, '0')}`;
  const adminNames = [...Array.from({ length: PAIRS }, (_, i) => name('pa', i)), 'pa_single'];
  const dpgwNames = [...Array.from({ length: PAIRS }, (_, i) => name('dp', i)), 'dp_single'];
  // A second set for dpgw at a higher concurrency than its default.
  const wideNames = Array.from({ length: PAIRS }, (_, i) => name('dw', i));
  const issuer = `${keycloak.authUrl}/auth/realms/${keycloak.realm}`;
  const gateway = await startSandbox({
    topicDelayMs: 0,
    seed: [{ name: 'bench-library', dataSets: [...adminNames, ...dpgwNames, ...wideNames] }],
    backing: {
      identity: { issuer, jwksUri: `${issuer}/protocol/openid-connect/certs` },
      stream: await kafkaStream(kafka),
      store: pinotStore(`http://127.0.0.1:${proxyPort}`),
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
  const dpgw = (args, extra = {}) => run(join(root, 'bin/dpgw'), args, { env: { ...env, NODE_OPTIONS: `--require=${JSON.stringify(join(root, 'scripts/report-rss.cjs'))}`, ...extra } });

  // The same schema for every pair (the track example's columns), under each pair's name.
  const track = loadYaml(readFileSync(join(root, 'examples/track/schema.yaml'), 'utf8'));
  const schemaFile = (schemaName) => {
    const file = join(work, `${schemaName}.schema.json`);
    writeFileSync(file, JSON.stringify({ ...track, schemaName }, null, 2));
    return file;
  };

  // pinot-admin's inputs, made untimed: each data set enabled (its topic on Kafka), and
  // its table definition as dpgw fills it, with the real stream password in place of the mask.
  const login = await dpgw(['login', '--quiet']);
  if (login.code !== 0) throw new Error(`dpgw login: ${login.stderr}`);
  for (const dataset of adminNames) {
    const enabled = await dpgw(['enable', '--datasource', 'bench-library', '--dataset', dataset, '--group', GROUP, '--quiet']);
    if (enabled.code !== 0) throw new Error(`dpgw enable ${dataset}: ${enabled.stderr}`);
    const rendered = await dpgw(['table', 'render', '--dataset', dataset, '--schema', schemaFile(dataset), '--json']);
    if (rendered.code !== 0) throw new Error(`dpgw table render ${dataset}: ${rendered.stderr}`);
    const table = JSON.parse(rendered.stdout);
    withStreamPassword(table, kafka.streamUser, kafka.streamPassword);
    writeFileSync(join(work, `${dataset}.table.json`), JSON.stringify(table, null, 2));
  }
  const java = join(javaHome(), 'bin', 'java');
  const opens = ['java.base/java.lang', 'java.base/java.nio', 'java.base/sun.nio.ch', 'java.base/java.util', 'java.base/java.lang.reflect'].flatMap((p) => ['--add-opens', `${p}=ALL-UNNAMED`]);
  const addTable = (dataset) =>
    run(java, [...opens, '-cp', `${lib}/*`, 'org.apache.pinot.tools.admin.PinotAdministrator', 'AddTable', '-schemaFile', join(work, `${dataset}.schema.json`), '-tableConfigFile', join(work, `${dataset}.table.json`), '-controllerHost', '127.0.0.1', '-controllerPort', String(proxyPort), '-exec'], { env: { PATH: process.env.PATH, HOME: work } });

  // pinot-admin: 20 pairs, one JVM each, one after the other as a shell loop runs them.
  controllerCalls.count = 0;
  let adminRss = 0;
  const adminStarted = performance.now();
  for (const dataset of adminNames.slice(0, PAIRS)) {
    const result = await addTable(dataset);
    if (result.code !== 0) throw new Error(`pinot-admin AddTable ${dataset} exited ${result.code}: ${result.stdout}\n${result.stderr}`);
    adminRss = Math.max(adminRss, result.peakRssKb);
  }
  const adminMs = performance.now() - adminStarted;
  const adminCalls = controllerCalls.count;

  // dpgw: the same 20 pairs in one manifest, the whole workflow, signing in included.
  const manifestOf = (names) => {
    const file = join(work, `provision-${names[0]}.yaml`);
    writeFileSync(file, `version: 1\ndataSets:\n${names.map((dataset) => `  - { datasource: bench-library, dataset: ${dataset}, groups: [${GROUP}], schema: ${schemaFile(dataset)} }\n`).join('')}`);
    return file;
  };
  const manifest = manifestOf(dpgwNames.slice(0, PAIRS));
  controllerCalls.count = 0;
  gateway.requestLog.clear();
  // A token cache of its own: the run signs in, as in a pipeline.
  const provisioned = await dpgw(['provision', manifest, '--json', '--quiet'], { XDG_CACHE_HOME: join(work, 'cache-of-the-run') });
  if (provisioned.code !== 0) throw new Error(`dpgw provision exited ${provisioned.code}: ${provisioned.stderr}`);
  const dpgwMs = provisioned.ms;
  const dpgwGatewayLog = gateway.requestLog.of('gateway');
  const dpgwGatewayCalls = dpgwGatewayLog.length;
  // Where dpgw's time goes: what the gateway (and the systems behind it) took per kind of request.
  const kinds = [
    ['POST enablement', (e) => e.method === 'POST' && e.path.endsWith('/enablements')],
    ['PUT enable (topic on Kafka)', (e) => e.method === 'PUT'],
    ['GET listing until the topic', (e) => e.method === 'GET' && /\/enablements\/[^/]+\/datasets$/.test(e.path)],
    ['POST schema (Pinot)', (e) => e.path.endsWith('/schemas')],
    ['POST table (Pinot)', (e) => e.path.endsWith('/tables')],
    ['GET storage', (e) => e.path.includes('/storages/')],
  ];
  const breakdown = kinds.map(([label, test]) => {
    const matching = dpgwGatewayLog.filter(test);
    return `${label} ${matching.length} × ${(matching.reduce((sum, e) => sum + (e.durationMs ?? 0), 0) / Math.max(1, matching.length)).toFixed(0)} ms`;
  });
  const dpgwControllerCalls = controllerCalls.count;

  const wide = await dpgw(['provision', manifestOf(wideNames), '--concurrency', '8', '--json', '--quiet'], { XDG_CACHE_HOME: join(work, 'cache-of-the-wide-run') });
  if (wide.code !== 0) throw new Error(`dpgw provision --concurrency 8 exited ${wide.code}: ${wide.stderr}`);

  // One table each, as at a terminal: AddTable (schema and table, one JVM) against
  // `dpgw schema push` then `dpgw table create` (signed in before, like the person is).
  const enabled = await dpgw(['enable', '--datasource', 'bench-library', '--dataset', 'dp_single', '--group', GROUP, '--quiet']);
  if (enabled.code !== 0) throw new Error(`dpgw enable dp_single: ${enabled.stderr}`);
  const singleAdmin = await addTable('pa_single');
  if (singleAdmin.code !== 0) throw new Error(`pinot-admin AddTable pa_single exited ${singleAdmin.code}`);
  const pushed = await dpgw(['schema', 'push', schemaFile('dp_single'), '--quiet']);
  const created = await dpgw(['table', 'create', '--dataset', 'dp_single', '--schema', schemaFile('dp_single'), '--quiet']);
  if (pushed.code !== 0 || created.code !== 0) throw new Error(`dpgw schema push / table create: ${pushed.stderr}${created.stderr}`);

  // Both tools really made every table.
  const tables = (await (await fetch(`${pinot.controller}/tables`)).json()).tables ?? [];
  const missing = [...adminNames, ...dpgwNames, ...wideNames].filter((t) => !tables.includes(t));
  if (missing.length) throw new Error(`tables missing on the controller: ${missing.join(', ')}`);

  const ratio = adminMs / dpgwMs;
  const rows = [
    ['20 schema+table pairs, wall time', `${(adminMs / 1000).toFixed(1)} s`, `${(dpgwMs / 1000).toFixed(2)} s`],
    ['ratio (pinot-admin / dpgw)', '', `**${ratio.toFixed(1)}×** (goal ≥ ${GOAL}×)`],
    ['dpgw with `--concurrency 8` (default 4)', '', `${(wide.ms / 1000).toFixed(2)} s: ${(adminMs / wide.ms).toFixed(1)}×`],
    ['processes', `${PAIRS} JVMs`, '1 node'],
    ['peak RSS (largest process)', `${(adminRss / 1024).toFixed(0)} MB`, `${(provisioned.peakRssKb / 1024).toFixed(0)} MB`],
    ['HTTP calls', `${adminCalls} to the controller`, `${dpgwGatewayCalls} to the gateway (and the sign-in at Keycloak); the gateway made ${dpgwControllerCalls} to the controller`],
    ['dpgw requests, count × mean time at the gateway', '', breakdown.join('; ')],
    ['one table at a terminal', `AddTable: ${(singleAdmin.ms / 1000).toFixed(2)} s`, `schema push + table create: ${((pushed.ms + created.ms) / 1000).toFixed(2)} s (${(pushed.ms / 1000).toFixed(2)} + ${(created.ms / 1000).toFixed(2)})`],
  ];
  const table = ['| measure | pinot-admin | dpgw |', '|---|---:|---:|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  console.log(table);
  const section = [
    '<!-- bench:vs-pinot-admin -->',
    '## Next to pinot-admin (`npm run bench:vs-pinot-admin`)',
    '',
    `The same ${PAIRS} schema+table pairs (the track example's schema under ${PAIRS} names, the table definitions dpgw fills) on one real Pinot ${PINOT_VERSION} controller, with Keycloak ${KEYCLOAK_VERSION} and Kafka ${kafka.version} behind the backed gateway. pinot-admin: \`PinotAdministrator AddTable -schemaFile … -tableConfigFile … -exec\`, one JVM per pair, one after the other, on OpenJDK 17 with the e2e tier's Pinot jars (its topics made beforehand, untimed). dpgw: one \`dpgw provision\` of ${PAIRS} data sets (enable and wait for the topic, schema, table, storage touch; signing in included), default concurrency. Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString().slice(0, 10)}.`,
    '',
    table,
    '<!-- /bench:vs-pinot-admin -->',
  ].join('\n');
  writeBenchSection('bench:vs-pinot-admin', section);
  if (ratio < GOAL) {
    console.error(`goal missed: dpgw ${ratio.toFixed(1)}× faster, not ${GOAL}×`);
    exitCode = 1;
  }
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  await Promise.allSettled(running.reverse().map((c) => c.stop()));
}
process.exit(exitCode);

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
      resolve({ code, stdout, stderr, ms, peakRssKb });
    });
  });
}
