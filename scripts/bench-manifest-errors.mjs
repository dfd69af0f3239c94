// npm run bench:manifest-errors — how long a large manifest takes to be refused, and how
// much memory that costs (issue #14: a 23 MB manifest ran 5 minutes before its first
// error). Two manifests of about 23 MB (115,000 data sets sharing one schema file), each
// with one problem in its last data set: a name the platform cannot take (found by the
// manifest's own checks) and a time column the schema lacks (found by filling the table
// template for every data set). Each run is the binary from process start to exit, with
// no platform at all: the problem must be found before any request. Writes
// docs/benchmarks.md, exits 1 when a goal is missed.
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdtempSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBenchSection } from './bench-doc.mjs';
import { measuredEnv } from './bench-env.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const DATA_SETS = Number(process.env.BENCH_DATA_SETS ?? 115_000);
const GOALS = { seconds: 30, rssMb: 1024 };
const work = mkdtempSync(join(tmpdir(), 'dpgw-bench-manifest-'));
copyFileSync(join(root, 'examples/track/schema.yaml'), join(work, 'schema.yaml'));

function manifest(name, last) {
  const file = join(work, name);
  const fd = openSync(file, 'w');
  writeSync(fd, 'dataSets:\n');
  let chunk = '';
  for (let i = 0; i < DATA_SETS - 1; i++) {
    const n = String(i).padStart(6, '0');
    chunk += `  - datasource: mock-data-library\n    dataset: ds${n}\n    enablement: ds${n}-readers\n    groups: [track-readers, analysts-${i % 10}]\n    schema: schema.yaml\n    table: { name: ds${n}, retentionDays: 5 }\n`;
    if (chunk.length > 1 << 20) {
      writeSync(fd, chunk);
      chunk = '';
    }
  }
  writeSync(fd, chunk + last);
  closeSync(fd);
  return file;
}

const cases = [
  { name: 'a name the platform cannot take', file: manifest('bad-name.yaml', '  - datasource: mock-data-library\n    dataset: "last data set"\n    schema: schema.yaml\n'), expect: /the data set name "last data set" has a space/ },
  { name: 'a time column the schema lacks', file: manifest('bad-column.yaml', '  - datasource: mock-data-library\n    dataset: last\n    schema: schema.yaml\n    table: { timeColumn: nope }\n'), expect: /data set last: time column "nope" is not a column of schema track/ },
];
const lastLine = (file) => readFileSync(file, 'utf8').split('\n').length - 1;

const rows = [];
for (const c of cases) {
  const rssFile = join(work, 'rss');
  const env = measuredEnv(work, rssFile, {
    DPGW_GATEWAY: 'http://127.0.0.1:9',
    DPGW_BROKER_LIST: '127.0.0.1:9',
    DPGW_REGISTRY_URL: 'http://127.0.0.1:9',
    DPGW_STREAM_USER: 'stream',
    DPGW_STREAM_PASSWORD: 'not-used',
  });

  const started = process.hrtime.bigint();
  const result = spawnSync(join(root, 'bin/dpgw'), ['provision', c.file], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rssMb = JSON.parse(readFileSync(rssFile, 'utf8')).rssKb / 1024;
  const problems = result.stderr.split('\n').filter((line) => line.startsWith('dpgw:'));
  const named = problems[0] ?? '';
  const atLine = new RegExp(`^dpgw: ${c.file.replace(/[.]/g, '\\.')}:(\\d+):`).exec(named)?.[1];
  rows.push({ ...c, seconds, rssMb, exit: result.status, found: c.expect.test(named), atLine: Number(atLine), lines: lastLine(c.file), size: statSync(c.file).size });
}

const table = [
  '| problem in the last data set | manifest | exit | refused after | peak RSS | named at |',
  '|---|---:|---:|---:|---:|---|',
  ...rows.map((r) => `| ${r.name} | ${(r.size / 1e6).toFixed(1)} MB, ${DATA_SETS.toLocaleString('en')} data sets | ${r.exit} | ${r.seconds.toFixed(1)} s (goal ≤ ${GOALS.seconds} s) | ${r.rssMb.toFixed(0)} MB (goal ≤ ${GOALS.rssMb} MB) | ${r.found ? `line ${r.atLine} of ${r.lines}` : 'not found'} |`),
].join('\n');
console.log(table);

const section = [
  '<!-- bench:manifest-errors -->',
  '## A large manifest refused (`npm run bench:manifest-errors`)',
  '',
  `Two manifests of ${DATA_SETS.toLocaleString('en')} data sets sharing one schema file, each with one problem in its last data set; \`dpgw provision\` from process start to exit, with no platform at all (nothing may be sent). Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString().slice(0, 10)}.`,
  '',
  table,
  '<!-- /bench:manifest-errors -->',
].join('\n');
writeBenchSection('bench:manifest-errors', section);

const missed = rows.flatMap((r) => [
  ...(r.exit !== 2 ? [`${r.name}: exit ${r.exit}, not 2`] : []),
  ...(!r.found || r.atLine < r.lines - 4 ? [`${r.name}: not named at the last data set`] : []),
  ...(r.seconds > GOALS.seconds ? [`${r.name}: ${r.seconds.toFixed(1)} s > ${GOALS.seconds} s`] : []),
  ...(r.rssMb > GOALS.rssMb ? [`${r.name}: ${r.rssMb.toFixed(0)} MB > ${GOALS.rssMb} MB`] : []),
]);
if (missed.length > 0) {
  console.error(`goal missed: ${missed.join('; ')}`);
  process.exitCode = 1;
}
