// npm run bench:startup — cold start of the built binary next to `node -e 0`, and of
// `dpgw health` (start-up, loading got, one request to the sandbox) next to the same
// request made by a bare `node -e "fetch(…)"`. Runs the commands round-robin (so drift
// in machine load hits all alike), takes medians, prints the ratios, records them in
// docs/benchmarks.md and exits 1 when a goal is missed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';
import { writeBenchSection } from './bench-doc.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 21);
const bin = `${root}bin/dpgw`;
// The sandbox runs in a child process: in this one it would compete with the measured commands' parent.
const sandboxChild = spawnSandbox();
const gateway = await sandboxChild.ready;
const healthUrl = `${gateway}/api/health`;
const work = mkdtempSync(join(tmpdir(), 'dpgw-bench-startup-'));
// No credentials and no session: health sends no token, as a monitoring probe would.
const dpgwEnv = { PATH: process.env.PATH, HOME: work, DPGW_CONFIG_DIR: join(work, 'config'), XDG_CACHE_HOME: join(work, 'cache') };
const healthEnv = { ...dpgwEnv, DPGW_GATEWAY: gateway };
// The first start of a build (or of a command) compiles the bundles and writes V8's code
// caches; every later one runs from them (bin/dpgw). Measured apart, with a cache folder of
// their own, removed before each run (a CI runner's first start), so the other rows keep theirs.
const firstStartCache = join(work, 'first-start-cache');
const dropCodeCache = () => rmSync(firstStartCache, { recursive: true, force: true });
const firstStart = (env) => ({ ...env, XDG_CACHE_HOME: firstStartCache });
// Issue #35 §3.
const VERSION_GOAL = 1.1;
const HELP_GOAL = 1.15;
const HEALTH_GOAL = 1.5;
const cases = [
  { name: 'node -e 0', argv: ['-e', '0'], env: dpgwEnv },
  { name: 'dpgw --version', argv: [bin, '--version'], env: dpgwEnv, goal: VERSION_GOAL },
  { name: 'dpgw --help', argv: [bin, '--help'], env: dpgwEnv, goal: HELP_GOAL },
  { name: 'dpgw health --help', argv: [bin, 'health', '--help'], env: dpgwEnv, goal: HELP_GOAL },
  // --version and --help no longer load the start-up bundle (bin/answer.js); a command does.
  { name: 'dpgw config path', argv: [bin, 'config', 'path'], env: dpgwEnv },
  { name: 'dpgw config path, first start of a build', argv: [bin, 'config', 'path'], env: firstStart(dpgwEnv), before: dropCodeCache, against: 'dpgw config path' },
  { name: 'node -e "fetch(<gateway>/api/health)"', argv: ['-e', `fetch(${JSON.stringify(healthUrl)}).then((r) => r.text())`], env: healthEnv, reference: true },
  { name: 'dpgw health', argv: [bin, 'health', '--json'], env: healthEnv, goal: HEALTH_GOAL, against: 'node -e "fetch(<gateway>/api/health)"' },
  { name: 'dpgw health, first start of a build', argv: [bin, 'health', '--json'], env: firstStart(healthEnv), before: dropCodeCache, against: 'node -e "fetch(<gateway>/api/health)"' },
];

const samples = cases.map(() => []);
for (let i = 0; i < runs + 2; i++) {
  cases.forEach((c, index) => {
    c.before?.();
    const started = process.hrtime.bigint();
    const [command, ...args] = c.argv[0] === bin ? c.argv : [process.execPath, ...c.argv];
    const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...(c.env ? { env: c.env } : {}) });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.status !== 0) throw new Error(`${c.name} exited ${result.status}: ${result.stderr}`);
    if (i >= 2) samples[index].push(ms); // two warm-up rounds fill the page cache
  });
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
sandboxChild.process.kill();
const medians = new Map(cases.map((c, index) => [c.name, median(samples[index])]));
const rows = cases.map((c) => {
  const against = c.against ?? 'node -e 0';
  return { ...c, against, median: medians.get(c.name), ratio: medians.get(c.name) / medians.get(against) };
});

const table = [
  '| command | median ms | compared with | ratio | goal |',
  '|---|---:|---|---:|---:|',
  ...rows.map((r) => `| \`${r.name}\` | ${r.median.toFixed(1)} | ${r.name === r.against ? '' : `\`${r.against}\``} | ${r.name === r.against ? '' : `${r.ratio.toFixed(2)}×`} | ${r.goal ? `≤ ${r.goal}×` : ''} |`),
].join('\n');
console.log(table);

const section = [
  '<!-- bench:startup -->',
  '## Start-up (`npm run bench:startup`)',
  '',
  `Medians of ${runs} runs each, round-robin, on Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString().slice(0, 10)}.`,
  '',
  table,
  '',
  '`--version` and every help are written from text the build rendered (`bin/answer.js`), before',
  'commander or any bundle loads, by a node started without the heap flags. A command loads',
  'commander and the command tree (a CommonJS bundle, run from V8\'s code cache, which the first',
  'start of a build writes: its own row), then the commands (a second CommonJS bundle with every',
  'handler and the dependencies, run from a code cache of its own for each command, written by',
  'the command\'s first start, at its end); a handler and what only it uses (got, openid-client, yaml, chalk,',
  'ora, inquirer) run their module code when the command is dispatched to it. The rows are of',
  'starts after the first. `dpgw health` runs against a sandbox gateway (no latency added), without a',
  'session, like `node -e "fetch(…)"`. dpgw runs as a shell runs it: the file itself, through its',
  '`#!/bin/sh` line and `exec node …`.',
  '<!-- /bench:startup -->',
].join('\n');
writeBenchSection('bench:startup', section);

const missed = rows.filter((r) => r.goal !== undefined && r.ratio > r.goal);
if (missed.length > 0) {
  console.error(`goal missed: ${missed.map((r) => `${r.name} ${r.ratio.toFixed(2)}× > ${r.goal}×`).join(', ')}`);
  process.exitCode = 1;
}

function spawnSandbox() {
  const script = `import { startSandbox } from ${JSON.stringify(new URL('../dist/lib/sandbox/sandbox.js', import.meta.url).href)};
const sandbox = await startSandbox({});
process.stdout.write(sandbox.gatewayUrl + '\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').once('data', (line) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`the sandbox exited with ${code}`)));
  });
  return { process: child, ready };
}
