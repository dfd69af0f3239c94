/**
 * Inside a GitHub Actions workflow (GITHUB_ACTIONS=true), as a runner starts dpgw: manifest
 * problems and failed data sets are error annotations at their file, line and column
 * (relative to GITHUB_WORKSPACE), the plan or the run's summary is appended to the job's
 * step summary as Markdown, and the step's outputs get exit-code, changes and failed.
 * Outside a workflow none of it is written.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { runInProcess } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchemaBeside } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });
const entry = (dataset: string, extra = '') => `  - { datasource: mock-data-library, dataset: ${dataset}, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: ${dataset} }${extra} }\n`;

async function setUp(inWorkflow = true) {
  const sandbox = await sandboxes.start();
  const base = await adminPipelineEnv(sandbox);
  const workspace = base.DPGW_CONFIG_DIR!;
  trackSchemaBeside(workspace);
  const summaryFile = join(workspace, 'step-summary.md');
  const outputFile = join(workspace, 'step-output.txt');
  const env: NodeJS.ProcessEnv = { ...base, GITHUB_STEP_SUMMARY: summaryFile, GITHUB_OUTPUT: outputFile, GITHUB_WORKSPACE: workspace, ...(inWorkflow ? { GITHUB_ACTIONS: 'true' } : {}) };
  const manifest = (text: string) => {
    const file = join(workspace, 'provision.yaml');
    writeFileSync(file, text);
    return file;
  };
  const outputs = () => Object.fromEntries(readFileSync(outputFile, 'utf8').trim().split('\n').map((line) => line.split('=') as [string, string]));
  return { sandbox, env, workspace, summaryFile, outputFile, manifest, outputs };
}

const annotations = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('::error'));
/** The log's folded groups: title and lines. */
const groups = (stderr: string) => [...stderr.matchAll(/^::group::(.*)\n([\s\S]*?)^::endgroup::$/gm)].map((m) => ({ title: m[1]!, lines: m[2]!.trimEnd().split('\n') }));

describe('reports GitLab shows, and a plan for a pull-request comment', () => {
  it('--report junit= and codequality= for a manifest with problems: each problem at its path and line, the run still exit 2', async () => {
    const { env, manifest, workspace } = await setUp(false);
    const file = manifest(`dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [g], schema: track-schema.yaml, tabel: {} }\n  - { datasource: mock-data-library, dataset: vessel, groups: [g], schema: missing.yaml }\n`);
    const junit = join(workspace, 'junit.xml');
    const quality = join(workspace, 'gl-code-quality.json');
    const result = await runInProcess(['provision', file, '--report', `junit=${junit}`, '--report', `codequality=${quality}`], { ...env, CI_PROJECT_DIR: workspace });
    expect(result.code).toBe(2);
    const issues = JSON.parse(readFileSync(quality, 'utf8')) as Array<{ description: string; location: { path: string; lines: { begin: number } }; severity: string; fingerprint: string }>;
    expect(issues.map((i) => [i.location.path, i.location.lines.begin, i.severity])).toEqual([['provision.yaml', 2, 'major'], ['provision.yaml', 3, 'major']]);
    expect(issues[0]!.description).toContain('unknown key "tabel"');
    expect(new Set(issues.map((i) => i.fingerprint)).size).toBe(2);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuite name="dpgw provision [^"]+" tests="2" failures="2">/);
    expect(xml).toContain('<failure message="unknown key &quot;tabel&quot; (did you mean table?)">');
  });

  it('a plan with a refused schema: a failing test case for that data set, a passing one for the other; --format markdown prints the table and the diff', async () => {
    const { env, manifest, workspace } = await setUp(false);
    expect((await runInProcess(['provision', manifest(`dataSets:\n${entry('track')}`)], env)).code).toBe(0);
    const schema = readFileSync(join(workspace, 'track-schema.yaml'), 'utf8');
    writeFileSync(join(workspace, 'narrower.yaml'), schema.replace(/ {2}- \{ name: alt, dataType: DOUBLE \}\n|\n {2}- name: alt\n {4}dataType: DOUBLE/, ''));
    writeFileSync(join(workspace, 'weather.yaml'), schema.replace('schemaName: track', 'schemaName: weather'));
    const file = manifest(`dataSets:\n${entry('track').replace('track-schema.yaml', 'narrower.yaml')}${entry('weather').replace('track-schema.yaml', 'weather.yaml')}`);
    const junit = join(workspace, 'junit.xml');
    const planned = await runInProcess(['provision', file, '--plan', '--format', 'markdown', '--report', `junit=${junit}`], env);
    expect(planned.code).toBe(2);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/tests="2" failures="1"/);
    expect(xml).toMatch(/<testcase classname="[^"]+" name="mock-data-library\/track"[^>]*>\n {4}<failure message="schema: refused/);
    expect(xml).toMatch(/<testcase classname="[^"]+" name="mock-data-library\/weather"[^>]*\/>/);
    expect(planned.stdout).toMatch(/^\| track \| blocked \| blocked \| blocked \| refused \| blocked \| blocked \| blocked \| planned \|$/m);
    expect(planned.stdout).toContain('**track** — schema (refused)');
    expect(planned.stdout).toMatch(/```diff\n- alt: DOUBLE \(metric\)\n```/);
  });

  it('a report kind dpgw does not write: exit 2 naming the flag', async () => {
    const { env, manifest } = await setUp(false);
    const result = await runInProcess(['provision', manifest(`dataSets:\n${entry('track')}`), '--report', 'sarif=x.json'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--report.*"sarif=x\.json" is not junit=FILE or codequality=FILE/);
  });
});

describe('dpgw inside GitHub Actions', () => {
  it('manifest problems are error annotations at their file, line and column, relative to the workspace, all of them', async () => {
    const { env, manifest } = await setUp();
    const file = manifest(`dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [g], schema: track-schema.yaml, tabel: {} }\n  - { datasource: mock-data-library, dataset: vessel, groups: [g], schema: missing.yaml }\n`);
    const result = await runInProcess(['provision', file], env);
    expect(result.code).toBe(2);
    expect(annotations(result.stderr)).toEqual([
      expect.stringMatching(/^::error file=provision\.yaml,line=2,col=\d+,title=dpgw%3A dataSets\[0\]\.tabel::unknown key "tabel" \(did you mean table\?\)$/),
      expect.stringMatching(/^::error file=provision\.yaml,line=3,col=\d+,title=dpgw%3A dataSets\[1\]\.schema::schema file .*missing\.yaml does not exist$/),
    ]);
  });

  it('a plan: its actions as a Markdown table in the step summary, and exit-code, changes and failed as outputs', async () => {
    const { env, manifest, summaryFile, outputs } = await setUp();
    const result = await runInProcess(['provision', manifest(`dataSets:\n${entry('track')}`), '--plan'], env);
    expect(result.code, result.stderr).toBe(0);
    const summary = readFileSync(summaryFile, 'utf8');
    expect(summary).toContain('### dpgw provision --plan ');
    expect(summary).toContain('| data set | enable | stream | sample | schema | table | storage | consume | status |');
    expect(summary).toMatch(/^\| track \| create \| check \| check \| create \| create \| read \| wait \| planned \|$/m);
    expect(outputs()).toEqual({ 'exit-code': '0', changes: '3', failed: '0' });
    expect(annotations(result.stderr)).toEqual([]);
  });

  it('a run: each step\'s status in the summary; a failed data set is annotated at its entry', async () => {
    const { env, manifest, summaryFile, outputs } = await setUp();
    const file = manifest(`dataSets:\n${entry('track')}${entry('vessel', ', table: { name: vessel, topic: no.such.topic }').replace('table: { name: vessel }, ', '')}`);
    const result = await runInProcess(['provision', file], env);
    expect(result.code).toBe(1);
    expect(readFileSync(summaryFile, 'utf8')).toMatch(/^\| track \| changed \| passed \| passed \| changed \| changed \| changed \| passed \| done \|$/m);
    expect(annotations(result.stderr)).toEqual([expect.stringMatching(/^::error file=provision\.yaml,line=3,col=\d+,title=dpgw%3A data set vessel failed::table vessel would never consume: topic no\.such\.topic does not exist on the brokers$/)]);
    expect(outputs()).toMatchObject({ 'exit-code': '1', failed: '1' });
    expect(Number(outputs().changes)).toBeGreaterThan(0);
    // Each data set's progress is a folded group of its steps, written whole as it finishes.
    const folded = groups(result.stderr);
    expect(folded).toHaveLength(2);
    expect(folded.map((g) => g.title)).toEqual(expect.arrayContaining([expect.stringMatching(/^\[\d\/2\] track \(enablement track\): done in /), expect.stringMatching(/^\[\d\/2\] vessel \(enablement vessel\): failed in /)]));
    const vessel = folded.find((g) => g.title.includes('vessel'))!;
    expect(vessel.lines).toEqual([
      expect.stringMatching(/^ {2}enable +create +changed +created enablement vessel/),
      expect.stringMatching(/^ {2}stream +check +failed +.*no\.such\.topic/),
      ...['sample', 'schema', 'table', 'storage', 'consume'].map((step) => expect.stringMatching(new RegExp(`^  ${step} +blocked +blocked +blocked: the stream step failed$`))),
    ]);
  });

  it('outside a workflow: no annotation, and neither file is written even when their variables are set', async () => {
    const { env, manifest, summaryFile, outputFile } = await setUp(false);
    const result = await runInProcess(['provision', manifest('dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [g], schema: track-schema.yaml, tabel: {} }\n'), '--plan'], env);
    expect(result.code).toBe(2);
    expect(annotations(result.stderr)).toEqual([]);
    expect(result.stderr).not.toContain('::group::');
    expect(existsSync(summaryFile)).toBe(false);
    expect(existsSync(outputFile)).toBe(false);
  });
});
