/**
 * `dpgw init` (issue #36 §2) as users meet it: unattended with flags, guided at a real
 * pseudo-terminal, refusing to replace its files, and writing a manifest whose plan shows
 * the changes to make and whose run provisions the data set on the sandbox.
 */
import { mkdtempSync, readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadManifest } from '../../src/provision/manifest.js';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { atTerminal, CTRL_C, DOWN, ENTER, screen, SPACE, TAB } from '../helpers/at-terminal.js';
import { ROOT, runInProcess } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest();
const newFolder = () => join(mkdtempSync(join(tmpdir(), 'dpgw-init-')), 'track');

async function enabledTrack() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const enabled = await runInProcess(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP], env);
  expect(enabled.code, enabled.stderr).toBe(0);
  return { sandbox, env };
}

describe('dpgw init, unattended', () => {
  it('writes provision.yaml and the schema inferred from the topic; the plan exits 7 and the run provisions', async () => {
    const { sandbox, env } = await enabledTrack();
    const folder = newFolder();
    const mutations = () => sandbox.requestLog.of('gateway').filter((r) => r.method !== 'GET').length;
    const before = mutations();
    const result = await runInProcess(['init', folder, '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP, '--no-input'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(mutations()).toBe(before);
    expect(readdirSync(folder).sort()).toEqual(['provision-manifest.schema.json', 'provision.yaml', 'schema.yaml']);
    const manifestText = readFileSync(join(folder, 'provision.yaml'), 'utf8');
    // Its name: is the folder's, given (not left to the path), so its tables are provably its own and it may --prune.
    expect(parse(manifestText)).toEqual({
      version: 1,
      name: basename(folder),
      dataSets: [{ datasource: 'mock-data-library', dataset: 'track', enablement: 'track', groups: [TRACK_GROUP], schema: 'schema.yaml', table: { name: 'track', retentionDays: 7 } }],
    });
    // Chosen for the user: said beside the value.
    expect(manifestText).toMatch(/enablement: track {2}# the enablement track is enabled in/);
    expect(manifestText).toMatch(/name: track {2}# default: the data set's name/);
    expect(manifestText).toMatch(/schema: schema.yaml {2}# inferred from \d+ messages of topic /);
    expect((await loadManifest(join(folder, 'provision.yaml'))).problems).toEqual([]);
    // Valid against the JSON Schema editors check manifests with.
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync(join(ROOT, 'docs/provision-manifest.schema.json'), 'utf8')));
    expect(validate(parse(manifestText)), JSON.stringify(validate.errors)).toBe(true);
    expect(result.stderr).toContain(`next: dpgw provision ${folder}/provision.yaml --plan`);

    const plan = await runInProcess(['provision', join(folder, 'provision.yaml'), '--plan', '--detailed-exitcode', '--json'], env);
    expect(plan.code, plan.stderr).toBe(7);
    const steps = JSON.parse(plan.stdout).plan[0].steps as Array<{ step: string; action: string }>;
    expect(steps.filter((s) => s.step === 'schema' || s.step === 'table').map((s) => s.action)).toEqual(['create', 'create']);
    const run = await runInProcess(['provision', join(folder, 'provision.yaml')], env);
    expect(run.code, run.stderr).toBe(0);
    expect(sandbox.store.tables.has('track')).toBe(true);
  });

  it('a second init into the same folder is refused, exit 2, and leaves both files as they were', async () => {
    const { env } = await enabledTrack();
    const folder = newFolder();
    const argv = ['init', folder, '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP, '--no-input'];
    expect((await runInProcess(argv, env)).code).toBe(0);
    const files = ['provision.yaml', 'schema.yaml'].map((file) => readFileSync(join(folder, file), 'utf8'));
    const again = await runInProcess([...argv, '--table', 'other'], env);
    expect(again.code).toBe(2);
    // The folder once, the files by name: not the folder's path twice over.
    expect(again.stderr).toMatch(/^dpgw: [^ ]+: provision\.yaml and schema\.yaml exist: not replaced — pass --force/m);
    expect(['provision.yaml', 'schema.yaml'].map((file) => readFileSync(join(folder, file), 'utf8'))).toEqual(files);
    const forced = await runInProcess([...argv, '--table', 'other', '--force'], env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(parse(readFileSync(join(folder, 'provision.yaml'), 'utf8')).dataSets[0].table.name).toBe('other');
  });

  it('a data set not enabled yet: exit 2 naming --schema and --from-messages, nothing written; with --from-messages it writes, and the plan enables it', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const folder = newFolder();
    const refused = await runInProcess(['init', folder, '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', TRACK_GROUP], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("missing --schema <file>, --from-messages <file>, --infer-at-first-run — cannot read a sample of vessel's topic: vessel is not enabled yet");
    // The groups given are in the line to run, not asked for again as a placeholder.
    expect(refused.stderr).toContain(`dpgw enable --datasource mock-data-library --dataset vessel --group ${TRACK_GROUP}) and run init again`);
    expect(refused.stderr).not.toContain('<group>');
    expect(existsSync(folder)).toBe(false);

    const written = await runInProcess(['init', folder, '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', TRACK_GROUP, '--from-messages', 'examples/track/track-messages.jsonl', '--metric', 'asset'], env);
    expect(written.code, written.stderr).toBe(0);
    const schema = parse(readFileSync(join(folder, 'schema.yaml'), 'utf8'));
    expect(schema.schemaName).toBe('vessel');
    expect(schema.metricFieldSpecs.map((s: { name: string }) => s.name)).toContain('asset');
    const manifest = readFileSync(join(folder, 'provision.yaml'), 'utf8');
    expect(manifest).toMatch(/enablement: vessel {2}# default: the data set's name; new: the first run creates it/);
    const plan = await runInProcess(['provision', join(folder, 'provision.yaml'), '--plan', '--detailed-exitcode', '--json'], env);
    expect(plan.code, plan.stderr).toBe(7);
    const steps = JSON.parse(plan.stdout).plan[0].steps as Array<{ step: string; action: string }>;
    expect(steps.find((s) => s.step === 'enable')?.action).toBe('create');
  });

  it('--schema FILE: the schema copied beside the manifest as it is, the table named after it; a second init refused before anything is read', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const folder = newFolder();
    const argv = ['init', folder, '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', TRACK_GROUP, '--schema', 'examples/track/schema.yaml'];
    const result = await runInProcess(argv, env);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(folder, 'schema.yaml'), 'utf8')).toBe(readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8'));
    expect(readFileSync(join(folder, 'provision.yaml'), 'utf8')).toMatch(/^ {6}name: track {2}# default: the schema's name$/m);
    const requests = sandbox.requestLog.of('gateway').length;
    const again = await runInProcess(argv, env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/provision\.yaml and .*schema\.yaml exist: not replaced/);
    expect(sandbox.requestLog.of('gateway')).toHaveLength(requests);
  });

  it('without --datasource and --dataset and no terminal: exit 2 at once, no request', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const result = await runInProcess(['init', newFolder()], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('missing --datasource <name|id>, --dataset <name>');
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
  });
});

describe('dpgw init, guided at a terminal', () => {
  it('asks each value from the catalog and the topic, shows the columns, writes the files, prints the flags, and runs the plan when asked', async () => {
    const { env } = await enabledTrack();
    const folder = newFolder();
    const result = await atTerminal(['init', folder], {
      env,
      timeoutSeconds: 25,
      steps: [
        { when: 'Data source:', keys: ENTER },
        { when: 'Data set:', keys: 'track' },
        { when: '❯ track  (enabled in track)', keys: ENTER },
        { when: 'Enablement:', keys: ENTER },
        { when: 'Table name:', keys: `${TAB}-live${ENTER}` },
        { when: 'Metrics', keys: `${SPACE}${ENTER}` },
        { when: 'Retention in days:', keys: `\\x7f14${ENTER}` },
        { when: 'Run the plan now?', keys: ENTER },
      ],
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toMatch(/COLUMN +TYPE +SEEN AS/);
    expect(text).toMatch(/same without questions: dpgw init \S+ --datasource mock-data-library --dataset track --enablement track --table track-live --metric asset --retention-days 14/);
    const manifest = parse(readFileSync(join(folder, 'provision.yaml'), 'utf8'));
    expect(manifest.dataSets[0]).toMatchObject({ dataset: 'track', enablement: 'track', table: { name: 'track-live', retentionDays: 14 } });
    // The plan ran: its table shows the schema and the table to create.
    expect(text).toMatch(/schema +create/);
    expect(text).not.toContain('Time column');
  });

  it('a data set not enabled yet: says the topic cannot be read, asks for a file of messages instead, and declining the plan leaves the files', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const folder = newFolder();
    const result = await atTerminal(['init', folder], {
      env,
      timeoutSeconds: 25,
      steps: [
        { when: 'Data source:', keys: ENTER },
        { when: 'Data set:', keys: 'vessel' },
        { when: '❯ vessel  (not enabled)', keys: ENTER },
        { when: 'Enablement:', keys: ENTER },
        { when: 'Name of the new enablement:', keys: ENTER },
        { when: 'Groups that may read it', keys: `${TRACK_GROUP}${ENTER}` },
        { when: 'Take the schema from:', keys: `${DOWN}${ENTER}` },
        { when: '❯ examples/track/track-messages.jsonl', keys: ENTER },
        { when: 'Table name:', keys: ENTER },
        { when: 'Metrics', keys: ENTER },
        { when: 'Retention in days:', keys: ENTER },
        { when: 'Run the plan now?', keys: `n${ENTER}` },
      ],
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain(`warning: cannot read a sample of vessel's topic: vessel is not enabled yet, so it has no topic (to read it, stop here and enable it first: dpgw enable --datasource mock-data-library --dataset vessel --group ${TRACK_GROUP})`);
    expect(text).toContain(`same without questions: dpgw init ${folder} --datasource mock-data-library --dataset vessel --enablement vessel --group ${TRACK_GROUP} --from-messages examples/track/track-messages.jsonl --table vessel --retention-days 7`);
    expect(text).not.toContain('plan: nothing was sent');
    expect(parse(readFileSync(join(folder, 'provision.yaml'), 'utf8')).dataSets[0]).toMatchObject({ dataset: 'vessel', enablement: 'vessel', groups: [TRACK_GROUP] });
    expect(sandbox.requestLog.of('gateway').filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('messages with several time columns: offers each column whose values read as times, with its form, and the one chosen is the schema\'s date-time column', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const folder = newFolder();
    const messages = join(mkdtempSync(join(tmpdir(), 'dpgw-init-messages-')), 'orders.jsonl');
    writeFileSync(messages, Array.from({ length: 20 }, (_, i) => JSON.stringify({ placed: 1_764_000_000_000 + i * 60_000, day: `2025-11-${String(10 + (i % 10))}`, item: `sku-${i}` })).join('\n'));
    const result = await atTerminal(['init', folder, '--datasource', 'mock-data-library', '--dataset', 'vessel', '--enablement', 'vessel', '--group', TRACK_GROUP, '--from-messages', messages, '--table', 'orders', '--retention-days', '7'], {
      env,
      timeoutSeconds: 25,
      steps: [
        { when: 'Time column:', keys: `${DOWN}${ENTER}` },
        { when: 'Metrics', keys: ENTER },
        { when: 'Run the plan now?', keys: `n${ENTER}` },
      ],
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    // Both are offered, each with what its values hold; epoch integers first, as the inference ranks them.
    expect(text).toContain('placed  (LONG: epoch milliseconds, 2025-11-24 to 2025-11-24)');
    expect(text).toContain('day  (STRING: dates as text (yyyy-MM-dd), 2025-11-10 to 2025-11-19)');
    expect(text).toContain('--time-column day');
    const schemaFile = readdirSync(folder).find((file) => file.endsWith('.yaml') && file !== 'provision.yaml')!;
    const schema = parse(readFileSync(join(folder, schemaFile), 'utf8'));
    expect(schema.dateTimeFieldSpecs).toEqual([expect.objectContaining({ name: 'day', dataType: 'STRING', format: expect.stringContaining('SIMPLE_DATE_FORMAT') })]);
  });

  it('Ctrl-C at a question: exit 130, nothing written', async () => {
    const { env } = await enabledTrack();
    const folder = newFolder();
    const result = await atTerminal(['init', folder, '--datasource', 'mock-data-library'], { env, when: 'Data set:', keys: CTRL_C });
    expect(result.code, screen(result.stdout)).toBe(130);
    expect(existsSync(folder)).toBe(false);
  });
});
