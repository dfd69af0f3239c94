/**
 * Inside a GitHub Actions workflow (GITHUB_ACTIONS=true), as a runner starts dpgw: manifest
 * problems and failed data sets are error annotations at their file, line and column
 * (relative to GITHUB_WORKSPACE), the plan or the run's summary is appended to the job's
 * step summary as Markdown, and the step's outputs get exit-code, changes and failed.
 * Outside a workflow none of it is written. The summary and outputs are written at every
 * exit of provision, also one before a plan exists (a manifest refused, a sign-in failed).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVICE_ACCOUNT_CLIENT_ID, TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { cleanEnv, runInProcess, spawnDpgw } from '../helpers/run-dpgw.js';
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
    const summary = readFileSync(summaryFile, 'utf8');
    expect(summary).toMatch(/^\| track \| changed \| passed \| passed \| changed \| changed \| changed \| passed \| done \|$/m);
    // Why the failed step failed, under the table: a pull request's reader sees it without the log.
    expect(summary).toMatch(/^- \*\*vessel\*\* — stream \(failed\): .*no\.such\.topic/m);
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

/**
 * A step that stops before its plan or run exists (a manifest with problems, a refused
 * sign-in, a gateway out of reach) still gives the steps after it its outputs and the job
 * its summary: the built binary as the runner starts it.
 */
describe('inside GitHub Actions, a provision that stops before a plan', () => {
  /** A workspace of its own with the track schema, and the runner's variables pointing into it. */
  function workflow(extra: NodeJS.ProcessEnv = {}) {
    const workspace = mkdtempSync(join(tmpdir(), 'dpgw-workspace-'));
    trackSchemaBeside(workspace);
    const summaryFile = join(workspace, 'step-summary.md');
    const outputFile = join(workspace, 'step-output.txt');
    // The stream settings a table needs, pointing nowhere: these runs stop before any connection.
    const stream = { DPGW_BROKER_LIST: '127.0.0.1:1', DPGW_REGISTRY_URL: 'http://127.0.0.1:1', DPGW_STREAM_USER: 'pipeline', DPGW_STREAM_CHECK: 'off' };
    const env = { ...cleanEnv(), ...stream, GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace, GITHUB_STEP_SUMMARY: summaryFile, GITHUB_OUTPUT: outputFile, ...extra };
    const manifest = (text: string) => {
      const file = join(workspace, 'provision.yaml');
      writeFileSync(file, text);
      return file;
    };
    return { env, summaryFile, outputFile, manifest, workspace };
  }
  const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/; // eslint-disable-line no-control-regex -- what must not reach the summary

  it('a manifest with problems (exit 2): outputs exit-code=2, changes=0, failed = the data sets with a problem; the summary lists every problem at its place, escaped', async () => {
    const { env, summaryFile, outputFile, manifest } = workflow();
    const file = manifest(
      'dataSets:\n' +
        '  - { datasource: mock-data-library, dataset: track, groups: [g], schema: track-schema.yaml, tabel: {} }\n' +
        '  - { datasource: mock-data-library, dataset: "bad|*name*<b>\\e[2J", groups: [g], schema: track-schema.yaml }\n' +
        `  - { datasource: mock-data-library, dataset: vessel, groups: [g], schema: track-schema.yaml }\n`,
    );
    const result = await spawnDpgw(['provision', file, '--plan'], { env });
    expect(result.code, result.stderr).toBe(2);
    expect(annotations(result.stderr)).toHaveLength(2);
    expect(readFileSync(outputFile, 'utf8')).toBe('exit-code=2\nchanges=0\nfailed=2\n');
    const summary = readFileSync(summaryFile, 'utf8');
    expect(summary).not.toMatch(CONTROL);
    expect(summary.split('\n')).toEqual([
      `### dpgw provision --plan ${file}: the manifest was refused: 2 problems (exit 2)`,
      '',
      String.raw`- provision.yaml:2:94: dataSets\[0\].tabel: unknown key "tabel" (did you mean table?)`,
      // The name's pipe, emphasis and tag are shown as written; its escape character as \u001b, never sent to the page.
      String.raw`- provision.yaml:3:47: dataSets\[1\].dataset: the data set name "bad\|\*name\*\<b\>\\u001b\[2J" has '\|' at position 4: use letters, digits, '.', '-' and '\_', starting with a letter or digit`,
      '',
    ]);
  });

  it('each run appends its own summary and outputs, as the runner expects of the steps of a job', async () => {
    const { env, summaryFile, outputFile, manifest } = workflow();
    const file = manifest('dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [g], schema: track-schema.yaml, tabel: {} }\n');
    expect((await spawnDpgw(['provision', file], { env })).code).toBe(2);
    expect((await spawnDpgw(['provision', file, '--plan'], { env })).code).toBe(2);
    expect(readFileSync(outputFile, 'utf8')).toBe('exit-code=2\nchanges=0\nfailed=1\n'.repeat(2));
    expect(readFileSync(summaryFile, 'utf8').match(/^### .*$/gm)).toEqual([`### dpgw provision ${file}: the manifest was refused: 1 problem (exit 2)`, `### dpgw provision --plan ${file}: the manifest was refused: 1 problem (exit 2)`]);
  });

  it('the gateway out of reach (exit 5): the outputs say 5 and the summary the error, no token in either', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const { env, summaryFile, outputFile, manifest } = workflow({ DPGW_GATEWAY: `http://127.0.0.1:${closed}`, DPGW_TOKEN: 'never-written-token-5150', DPGW_TIMEOUT: '1' });
    const result = await spawnDpgw(['provision', manifest(`dataSets:\n${entry('track')}`), '--plan'], { env });
    expect(result.code, result.stderr).toBe(5);
    expect(readFileSync(outputFile, 'utf8')).toBe('exit-code=5\nchanges=0\nfailed=0\n');
    const summary = readFileSync(summaryFile, 'utf8');
    expect(summary).toMatch(/^### dpgw provision --plan \S+: a server could not be reached \(exit 5\)\n\n- .*127\.0\.0\.1:\d+.*\n$/);
    expect(summary + readFileSync(outputFile, 'utf8')).not.toContain('never-written-token-5150');
  });

  it('a sign-in the identity provider refuses (exit 4): the outputs say 4, and the wrong secret is written nowhere', async () => {
    const sandbox = await sandboxes.start();
    const base = await adminPipelineEnv(sandbox);
    const { env, summaryFile, outputFile, manifest } = workflow({
      ...base,
      DPGW_TOKEN: '',
      DPGW_AUTH_URL: sandbox.authUrl,
      DPGW_REALM: sandbox.realm,
      DPGW_GRANT: 'client-credentials',
      DPGW_CLIENT_ID: SERVICE_ACCOUNT_CLIENT_ID,
      DPGW_CLIENT_SECRET: 'not-the-client-secret-4444',
    });
    const result = await spawnDpgw(['provision', manifest(`dataSets:\n${entry('track')}`), '--plan'], { env });
    expect(result.code, result.stderr).toBe(4);
    expect(readFileSync(outputFile, 'utf8')).toBe('exit-code=4\nchanges=0\nfailed=0\n');
    const summary = readFileSync(summaryFile, 'utf8');
    expect(summary).toMatch(/^### dpgw provision --plan \S+: the sign-in failed \(exit 4\)\n\n- .+\n$/);
    expect(summary + result.stdout + result.stderr).not.toContain('not-the-client-secret-4444');
  });

  it('a plan whose report cannot be written: the plan\'s summary and outputs, once, with the exit the step ends with', async () => {
    const { env, summaryFile, outputFile, manifest, workspace } = await setUp();
    const result = await spawnDpgw(['provision', manifest(`dataSets:\n${entry('track')}`), '--plan', '--report', `junit=${join(workspace, 'no-such-folder', 'junit.xml')}`], { env });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/cannot write \S+junit\.xml: its folder does not exist/);
    expect(readFileSync(outputFile, 'utf8')).toBe('exit-code=2\nchanges=3\nfailed=0\n');
    expect(readFileSync(summaryFile, 'utf8').match(/^### .*$/gm)).toEqual([expect.stringMatching(/^### dpgw provision --plan \S+: changes to make$/)]);
  });
});
