// npm run bench:startup — cold start of the built binary next to `node -e 0`.
// Runs the commands round-robin (so drift in machine load hits all alike), takes
// medians, prints the ratios and records them in docs/benchmarks.md.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 21);
const bin = `${root}bin/dpgw`;
const cases = [
  { name: 'node -e 0', argv: ['-e', '0'] },
  { name: 'dpgw --version', argv: [bin, '--version'] },
  { name: 'dpgw --help', argv: [bin, '--help'] },
  { name: 'dpgw health --help', argv: [bin, 'health', '--help'] },
];
const LIMIT = 1.3;

const samples = cases.map(() => []);
for (let i = 0; i < runs + 2; i++) {
  cases.forEach((c, index) => {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, c.argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.status !== 0) throw new Error(`${c.name} exited ${result.status}: ${result.stderr}`);
    if (i >= 2) samples[index].push(ms); // two warm-up rounds fill the page cache
  });
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const baseline = median(samples[0]);
const rows = cases.map((c, index) => ({ name: c.name, median: median(samples[index]), ratio: median(samples[index]) / baseline }));

const table = [
  '| command | median ms | ratio to `node -e 0` | limit |',
  '|---|---:|---:|---:|',
  ...rows.map((r, index) => `| \`${r.name}\` | ${r.median.toFixed(1)} | ${r.ratio.toFixed(2)}× | ${index === 0 ? '' : `${LIMIT}×`} |`),
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
  'Only commander and the command tree load for these (a CommonJS bundle); every handler and',
  'heavy module (got, openid-client, yaml, chalk, ora, inquirer) is imported by the command that runs.',
  '<!-- /bench:startup -->',
].join('\n');
const docPath = `${root}docs/benchmarks.md`;
let doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '# Benchmarks\n\nFigures written by the `npm run bench:*` scripts; re-run them to refresh.\n';
doc = /<!-- bench:startup -->[\s\S]*<!-- \/bench:startup -->/.test(doc)
  ? doc.replace(/<!-- bench:startup -->[\s\S]*<!-- \/bench:startup -->/, section)
  : `${doc.trimEnd()}\n\n${section}\n`;
writeFileSync(docPath, doc);

const over = rows.slice(1).filter((r) => r.ratio > LIMIT);
if (over.length > 0) {
  console.error(`over the ${LIMIT}× budget: ${over.map((r) => `${r.name} ${r.ratio.toFixed(2)}×`).join(', ')}`);
  process.exitCode = 1;
}
