// npm run bench:catalog — `dpgw catalog datasets` over 10,000 enabled data sets on the
// sandbox (100 enablements of 100 each), piped and with --json, against `node -e 0` and
// one bare fetch of the same listing (node's fetch, the token at hand, the records parsed
// and printed as --json prints them):
// medians of the wall time from process start to exit, the median of each round's ratio
// (the goal's figure), and dpgw's peak RSS. Writes its section of docs/benchmarks.md;
// exits 1 when a goal is missed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, URLSearchParams } from 'node:url';
import { startSandbox } from '../dist/lib/sandbox/sandbox.js';
import { writeBenchSection } from './bench-doc.mjs';
import { measuredEnv } from './bench-env.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const DATA_SETS = Number(process.env.BENCH_DATA_SETS ?? 10_000);
const PER_ENABLEMENT = 100;
const RUNS = Number(process.env.BENCH_RUNS ?? 11);
const GOALS = { ratio: 1.5, rssMb: 150 };

const names = Array.from({ length: DATA_SETS }, (_, i) => `ds${String(i).padStart(5, '0')}`);
const sandbox = await startSandbox({ seed: [{ name: 'bench-library', dataSets: names }], topicDelayMs: 0 });
const source = sandbox.catalog.listDataSources()[0];
for (let first = 0; first < DATA_SETS; first += PER_ENABLEMENT) {
  const enablement = sandbox.catalog.createEnablement(source.id, `readers-${first / PER_ENABLEMENT}`, [`group-${first / PER_ENABLEMENT}`]);
  for (const name of names.slice(first, first + PER_ENABLEMENT)) sandbox.catalog.enable(enablement.id, name);
}
await new Promise((resolve) => setTimeout(resolve, 50));
const admin = sandbox.users.find((u) => u.username === 'admin');
const form = new URLSearchParams({ username: admin.username, password: admin.password, client_secret: sandbox.clientSecret, client_id: sandbox.clientId, scope: 'openid', grant_type: 'password' });
const token = (await (await fetch(sandbox.tokenEndpoint, { method: 'POST', body: form })).json()).access_token;
const listing = `${sandbox.gatewayUrl}/api/v2/catalog/datasources/all/enablements/all/datasets`;
const work = mkdtempSync(join(tmpdir(), 'dpgw-bench-catalog-'));
const rssFile = join(work, 'rss');
const env = measuredEnv(work, rssFile, { DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_TOKEN: token });

/** One run from start to exit, as a shell runs it; returns ms, peak RSS (MB) and the bytes written. */
function once(command, args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => (bytes += chunk.length));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
      const { rssKb } = JSON.parse(readFileSync(rssFile, 'utf8'));
      resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, rssMb: rssKb / 1024, bytes });
    });
  });
}

// What a script needs to print what `--json` prints: since issue #48 each record carries its data source, its
// enablement with its groups, and its topic, so the floor of `--json` is the same three reads joined the same way.
const joinedFetch = `
const h = { headers: { authorization: 'Bearer ' + process.env.DPGW_TOKEN } };
const base = ${JSON.stringify(`${sandbox.gatewayUrl}/api/v2/catalog`)};
const get = (path) => fetch(base + path, h).then((r) => r.json());
Promise.all([get('/datasources'), get('/datasources/all/enablements/all/datasets')]).then(async ([sources, records]) => {
  const enablements = new Map();
  await Promise.all(sources.map(async (source) => { for (const e of await get('/datasources/' + source.id + '/enablements')) enablements.set(e.id, { source, e }); }));
  const joined = records.map((record) => {
    const href = record.links.find((link) => link.rel === 'self').href;
    const { source, e } = enablements.get(/enablements\\/([^/]+)\\/datasets/.exec(href)[1]);
    const labels = record.labels ?? {};
    const key = Object.keys(labels).find((k) => k.endsWith('/dataset'));
    return { ...record, dataSource: { id: source.id, name: source.name ?? null }, enablement: { id: e.id, name: e.name ?? null, groups: e.groups ?? [] }, topic: key ? labels[key] : null };
  });
  process.stdout.write(JSON.stringify(joined, null, 2));
});`;

/** Each dpgw case is held to the floor that prints what it prints (`floor`: the index of that case). */
const cases = [
  { name: '`node -e 0`', command: process.execPath, args: ['-e', '0'] },
  { name: 'bare fetch of the listing', command: process.execPath, args: ['-e', `fetch(${JSON.stringify(listing)}, { headers: { authorization: 'Bearer ' + process.env.DPGW_TOKEN } }).then((r) => r.json()).then((records) => process.stdout.write(JSON.stringify(records, null, 2)))`] },
  { name: 'bare fetch of the three reads, joined as `--json` prints them', command: process.execPath, args: ['-e', joinedFetch] },
  { name: '`dpgw catalog datasets` (piped table)', command: join(root, 'bin', 'dpgw'), args: ['catalog', 'datasets'], floor: 1 },
  { name: '`dpgw catalog datasets --json`', command: join(root, 'bin', 'dpgw'), args: ['catalog', 'datasets', '--json'], floor: 2 },
];
const samples = new Map(cases.map((c) => [c.name, []]));
// Round-robin, so a slow moment of the machine falls on every case alike.
for (let run = 0; run < RUNS; run++) for (const c of cases) samples.get(c.name).push(await once(c.command, c.args));
await sandbox.close();

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const figures = cases.map((c) => ({ name: c.name, ms: median(samples.get(c.name).map((s) => s.ms)), rssMb: median(samples.get(c.name).map((s) => s.rssMb)), kb: median(samples.get(c.name).map((s) => s.bytes)) / 1024 }));
// Each round's own ratio, dpgw over its floor run in the same round: a slow minute of the
// machine falls on both sides of a pair, where it moves one median more than the other.
const held = figures.map((f, i) => ({ ...f, floor: cases[i].floor })).filter((f) => f.floor !== undefined);
for (const f of held) {
  const floorSamples = samples.get(cases[f.floor].name);
  const ratios = samples.get(f.name).map((s, run) => s.ms / floorSamples[run].ms);
  f.ratio = median(ratios);
  f.spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
  f.ofMedians = f.ms / figures[f.floor].ms;
}
const rows = figures.map((f) => {
  const h = held.find((x) => x.name === f.name);
  return [f.name, f.ms.toFixed(0), f.rssMb.toFixed(0), f.kb.toFixed(0), h ? `${h.ofMedians.toFixed(2)}×` : '', h ? `${h.ratio.toFixed(2)}× (${h.spread})` : '', h ? `≤ ${GOALS.ratio}× time of ${h.floor === 1 ? 'the bare fetch' : 'the joined fetch'}, ≤ ${GOALS.rssMb} MB` : ''];
});
const table = ['| command | median ms | peak RSS MB | output KB | of its floor (medians) | of its floor (each round\'s pair: median, min–max) | goal |', '|---|---:|---:|---:|---:|---:|---:|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
console.log(table);
const missed = held.filter((f) => f.ratio > GOALS.ratio || f.rssMb > GOALS.rssMb);
writeBenchSection(
  'bench:catalog',
  [
    '<!-- bench:catalog -->',
    '## Catalog listing (`npm run bench:catalog`)',
    '',
    `Medians of ${RUNS} runs each, round-robin, on Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ')}, ${new Date().toISOString().slice(0, 10)}: ${DATA_SETS.toLocaleString('en')} enabled data sets in ${DATA_SETS / PER_ENABLEMENT} enablements on the sandbox, no latency added. The goal is held to the median of each round's ratio (dpgw over its floor in the same round); the ratio of the medians is beside it. dpgw runs as a shell runs it (\`bin/dpgw\`). The floors are \`node -e\` scripts with the same token: the table's is the one fetch of the listing, its records parsed and printed; \`--json\`'s, since its records carry their data source, enablement, groups and topic (issue #48), is the same three reads dpgw makes, joined the same way and printed.`,
    '',
    table,
    '',
    'dpgw asks the data sources, their enablements and the one listing of every enabled data set (3 GET requests here), joins them in memory and writes the table or the records.',
    '<!-- /bench:catalog -->',
  ].join('\n'),
);
if (missed.length) {
  console.error(`goal missed: ${missed.map((f) => f.name).join(', ')}`);
  process.exit(1);
}
