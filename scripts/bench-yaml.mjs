// npm run bench:yaml — the two YAML parsers dpgw carries, side by side (issue #35, §4):
// reading a provisioning manifest of 200 and of 2,000 data sets (bench:provision's manifest,
// inline schemas) in a cold process, as `dpgw provision` reads it, with
//   - js-yaml `load` (CORE_SCHEMA), what dpgw reads manifests and schema files with;
//   - `yaml` `parseDocument` with a LineCounter and unique keys, dpgw's reader of positions;
//   - `yaml` `parse` (the value, no Document kept), and `yaml`'s `Parser` alone (the tokens
//     and their offsets, what positions could be taken from, no values).
// Each variant is bundled and minified as dpgw bundles its chunks (esbuild, node20.19), so
// the process loads only that parser; the wall time is from process start to exit, and the
// parse itself is timed inside the process. Medians of RUNS runs, round-robin. Writes its
// section of docs/benchmarks.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeBenchSection } from './bench-doc.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const SIZES = [200, 2000];
const work = mkdtempSync(join(tmpdir(), 'dpgw-bench-yaml-'));

/** bench:provision's manifest of `count` data sets. */
function manifest(count) {
  const names = Array.from({ length: count }, (_, i) => `ds${String(i).padStart(4, '0')}`);
  const columns = (n) => `      dimensionFieldSpecs: [{ name: ${n}_id, dataType: STRING }]\n      metricFieldSpecs: [{ name: value, dataType: DOUBLE }]\n      dateTimeFieldSpecs: [{ name: time, dataType: LONG, notNull: false, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }]\n`;
  return `version: 1\ndataSets:\n${names.map((n) => `  - datasource: bench-library\n    dataset: ${n}\n    enablement: ${n}-readers\n    groups: [${n}-readers]\n    schema:\n      schemaName: ${n}\n${columns(n)}`).join('')}`;
}

// Each variant reads the file, parses it, and prints the parse's milliseconds (and a check that it read it all).
const variants = [
  { name: 'js-yaml `load` (CORE_SCHEMA)', role: 'dpgw reads manifests and schema files', source: "import { CORE_SCHEMA, load } from 'js-yaml'; const parse = (text, file) => load(text, { schema: CORE_SCHEMA, filename: file }).dataSets.length;" },
  {
    name: '`yaml` `parseDocument` (LineCounter, uniqueKeys)',
    role: 'dpgw reads positions (an error to place)',
    source: "import { LineCounter, parseDocument } from 'yaml'; const parse = (text) => { const lineCounter = new LineCounter(); const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true }); if (document.errors.length) throw document.errors[0]; return document.get('dataSets').items.length; };",
  },
  { name: '`yaml` `parse`', role: 'the value only', source: "import { parse as parseYaml } from 'yaml'; const parse = (text) => parseYaml(text, { uniqueKeys: true }).dataSets.length;" },
  { name: '`yaml` `Parser` (tokens only)', role: 'offsets, no values', source: "import { Parser } from 'yaml'; const parse = (text) => { let tokens = 0; for (const token of new Parser().parse(text)) tokens += token.type === 'document' ? 1 : 0; return tokens; };" },
  { name: 'no parser: the file read only', role: 'the floor', source: 'const parse = (text) => text.length;' },
];
const harness = "import { readFileSync } from 'node:fs'; const file = process.argv[2]; const text = readFileSync(file, 'utf8'); const started = performance.now(); const result = parse(text, file); process.stdout.write(JSON.stringify({ ms: performance.now() - started, result }));";

for (const [index, variant] of variants.entries()) {
  const entry = join(work, `variant-${index}.mjs`);
  writeFileSync(entry, `${variant.source}\n${harness}\n`);
  variant.bundle = join(work, `variant-${index}.bundle.mjs`);
  await build({ entryPoints: [entry], outfile: variant.bundle, bundle: true, platform: 'node', target: 'node20.19', format: 'esm', minify: true, legalComments: 'none', banner: { js: "import { createRequire as __dpgwCreateRequire } from 'node:module'; const require = __dpgwCreateRequire(import.meta.url);" }, nodePaths: [join(root, 'node_modules')], logLevel: 'warning' });
  variant.kb = statSync(variant.bundle).size / 1024;
}
const floorKb = variants.at(-1).kb;
const files = SIZES.map((count) => {
  const file = join(work, `manifest-${count}.yaml`);
  const text = manifest(count);
  writeFileSync(file, text);
  return { count, file, kb: Buffer.byteLength(text) / 1024 };
});

function once(bundle, file) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    // dpgw's V8 flags (bin/dpgw).
    const child = spawn(process.execPath, ['--max-semi-space-size=2', '--max-old-space-size=1024', bundle, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${bundle} exited ${code}: ${stderr}`));
      resolve({ wallMs: Number(process.hrtime.bigint() - started) / 1e6, ...JSON.parse(stdout) });
    });
  });
}

const samples = new Map();
for (let run = 0; run < RUNS; run++) {
  for (const file of files) {
    for (const variant of variants) {
      const key = `${variant.name}@${file.count}`;
      if (!samples.has(key)) samples.set(key, []);
      samples.get(key).push(await once(variant.bundle, file.file));
    }
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cells = (variant, file) => {
  const runs = samples.get(`${variant.name}@${file.count}`);
  return [median(runs.map((r) => r.wallMs)).toFixed(0), median(runs.map((r) => r.ms)).toFixed(0)];
};
const header = `| parser, as called | for | ${files.map((f) => `${f.count} data sets (${f.kb.toFixed(0)} KB): process ms | parse ms`).join(' | ')} | bundle KB above the floor |`;
const rows = variants.map((v) => `| ${v.name} | ${v.role} | ${files.map((f) => cells(v, f).join(' | ')).join(' | ')} | ${v === variants.at(-1) ? `(${v.kb.toFixed(1)} KB)` : (v.kb - floorKb).toFixed(0)} |`);
const table = [header, `|---|---|${files.map(() => '---:|---:|').join('')}---:|`, ...rows].join('\n');
console.log(table);
writeBenchSection(
  'bench:yaml',
  [
    '<!-- bench:yaml -->',
    '## The two YAML parsers (`npm run bench:yaml`)',
    '',
    `Medians of ${RUNS} cold processes each, round-robin, on Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ')}, ${new Date().toISOString().slice(0, 10)}: bench:provision's manifest (inline schemas) of 200 and of 2,000 data sets, read and parsed by a process that holds one parser, bundled and minified as dpgw's chunks are, with dpgw's V8 flags. "process ms" is from start to exit; "parse ms" the parse alone, timed inside.`,
    '',
    table,
    '<!-- /bench:yaml -->',
  ].join('\n'),
);
