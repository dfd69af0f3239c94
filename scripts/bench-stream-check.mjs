// npm run bench:stream-check — what the stream pre-flight and the consumption proof cost
// a `dpgw provision` of many data sets against the sandbox (gateway answering 20 ms after
// each request; its message stream answering at once). Three runs of the same manifest
// on fresh sandboxes, side by side: neither (--no-stream-check --wait-consuming 0), the
// pre-flight alone (--wait-consuming 0), and both (the default). Counted from the
// sandbox's broker: requests by API per run, so the pre-flight's promise — one sign-in
// per run, then one round trip to one broker per data set — is a figure, not a hope.
// Exits 1 when a goal is missed.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../dist/lib/sandbox/sandbox.js';
import { writeBenchSection } from './bench-doc.mjs';
import { measuredEnv, runBinary, sandboxAdminSettings } from './bench-env.mjs';

const DATA_SETS = Number(process.env.BENCH_DATA_SETS ?? 200);
const CONCURRENCY = 8;
const LATENCY_MS = 20;
/**
 * At most one Metadata round trip per data set, and the sign-in once per run. The memory
 * goal is what loading the stream client (@platformatic/kafka) costs once per run.
 */
const GOALS = { metadataPerDataSet: 1, signInsPerRun: 1, extraRssMb: 25 };

const names = Array.from({ length: DATA_SETS }, (_, i) => `ds${String(i).padStart(4, '0')}`);
const columns = (n) => `      dimensionFieldSpecs: [{ name: ${n}_id, dataType: STRING }]\n      metricFieldSpecs: [{ name: value, dataType: DOUBLE }]\n      dateTimeFieldSpecs: [{ name: time, dataType: LONG, notNull: false, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }]\n`;
const manifest = `version: 1\ndataSets:\n${names.map((n) => `  - datasource: bench-library\n    dataset: ${n}\n    enablement: ${n}-readers\n    groups: [${n}-readers]\n    schema:\n      schemaName: ${n}\n${columns(n)}`).join('')}`;

async function measure(label, flags) {
  const sandbox = await startSandbox({ seed: [{ name: 'bench-library', dataSets: names }], topicDelayMs: 0, faults: { latencyMs: LATENCY_MS }, streamBacklog: 10 });
  const work = mkdtempSync(join(tmpdir(), 'dpgw-bench-stream-'));
  const manifestFile = join(work, 'bench.yaml');
  writeFileSync(manifestFile, manifest);
  const rssFile = join(work, 'rss');
  const env = measuredEnv(work, rssFile, sandboxAdminSettings(sandbox));
  const started = process.hrtime.bigint();
  const result = await runBinary(['provision', manifestFile, '--concurrency', String(CONCURRENCY), '--json', '--quiet', ...flags], env);
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.code !== 0) {
    await sandbox.close();
    throw new Error(`${label}: provision failed with exit ${result.code}: ${result.stderr}`);
  }
  const summary = JSON.parse(result.stdout);
  const consuming = summary.dataSets.filter((d) => d.steps.some((s) => s.step === 'consume' && s.status === 'passed')).length;
  const counts = { ...sandbox.broker.requestCounts };
  const consumptionReads = sandbox.requestLog.of('gateway').filter((e) => e.path.endsWith('/consumingSegmentsInfo')).length;
  const rssMb = JSON.parse(readFileSync(rssFile, 'utf8')).rssKb / 1024;
  await sandbox.close();
  return { label, flags, wallMs, rssMb, counts, consuming, consumptionReads };
}

const runs = [];
for (const [label, flags] of [
  ['neither', ['--no-stream-check', '--wait-consuming', '0']],
  ['pre-flight', ['--wait-consuming', '0']],
  ['pre-flight and consumption (default)', []],
]) {
  runs.push(await measure(label, flags));
}
const [base] = runs;
const rows = runs.map((r) => [
  `${r.label}${r.flags.length ? ` (\`${r.flags.join(' ')}\`)` : ''}`,
  `${(r.wallMs / 1000).toFixed(2)} s`,
  `${r.wallMs === base.wallMs ? '—' : `+${((r.wallMs - base.wallMs) / DATA_SETS).toFixed(1)} ms`}`,
  `${r.rssMb.toFixed(1)} MB`,
  `${r.counts.SaslAuthenticate ? r.counts.SaslAuthenticate / 2 : 0} / ${((r.counts.Metadata ?? 0) - (r.counts.SaslAuthenticate ? 1 : 0)) / DATA_SETS}`,
  `${r.consuming} / ${r.consumptionReads}`,
]);
const table = [
  '| run | provision, start to exit | per data set, beyond "neither" | peak RSS | broker: sign-ins per run / Metadata per data set | tables reported consuming / consumption reads |',
  '|---|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.join(' | ')} |`),
].join('\n');
console.log(table);

writeBenchSection(
  'bench:stream-check',
  [
    '<!-- bench:stream-check -->',
    '## The stream pre-flight and the consumption proof (`npm run bench:stream-check`)',
    '',
    `\`dpgw provision\` of ${DATA_SETS} data sets, concurrency ${CONCURRENCY}, against fresh sandboxes whose gateway answers ${LATENCY_MS} ms after each request and whose message stream answers at once (3 partitions a topic). Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString().slice(0, 10)}. The broker's figures are the sandbox broker's own request counts. Goals: one sign-in per run, at most one Metadata round trip per data set, at most ${GOALS.extraRssMb} MB of peak RSS above "neither" (loading the stream client, once per run).`,
    '',
    table,
    '<!-- /bench:stream-check -->',
  ].join('\n'),
);

const missed = [];
for (const r of runs.slice(1)) {
  const signIns = (r.counts.SaslAuthenticate ?? 0) / 2;
  const metadataPerDataSet = ((r.counts.Metadata ?? 0) - 1) / DATA_SETS;
  if (signIns > GOALS.signInsPerRun) missed.push(`${r.label}: ${signIns} sign-ins`);
  if (metadataPerDataSet > GOALS.metadataPerDataSet) missed.push(`${r.label}: ${metadataPerDataSet} Metadata requests per data set`);
  if (r.rssMb - base.rssMb > GOALS.extraRssMb) missed.push(`${r.label}: peak RSS ${(r.rssMb - base.rssMb).toFixed(1)} MB above "neither"`);
}
if (runs[2].consuming !== DATA_SETS) missed.push(`${runs[2].consuming} of ${DATA_SETS} tables reported consuming`);
if (missed.length) {
  console.error(`goal missed: ${missed.join('; ')}`);
  process.exitCode = 1;
}
