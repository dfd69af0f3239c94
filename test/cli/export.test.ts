/** dpgw export as a user runs it: the built binary against the sandbox, and the export proven by planning it. */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { BIN, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchemaBeside } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

/** Two data sets: track as dpgw makes it by default; vessel with a retention of its own and a table name that is not its schema's. */
const twoDataSets = `name: platform
dataSets:
  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml }
  - { datasource: mock-data-library, dataset: vessel, enablement: fleet, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: vessel_positions, retentionDays: 30 } }
`;

async function setUp(options: SandboxOptions = {}) {
  const sandbox = await sandboxes.start(options);
  const env = await adminPipelineEnv(sandbox);
  const folder = env.DPGW_CONFIG_DIR!;
  const dpgw = (args: string[], extra: NodeJS.ProcessEnv = {}) => spawnDpgw(args, { env: { ...env, ...extra } });
  const provisioned = async (text = twoDataSets, extra: NodeJS.ProcessEnv = {}) => {
    const file = join(folder, 'provision.yaml');
    writeFileSync(file, text);
    trackSchemaBeside(folder);
    const result = await dpgw(['provision', file, '--wait-consuming', '0'], extra);
    expect(result.code, result.stderr).toBe(0);
  };
  const changing = () => sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET');
  /** The dpgw.manifest mark a table carries: the manifest that provisioned it, where provision marks tables (#33 §2). */
  const markOf = (table: string) => sandbox.store.tables.get(table)?.definition.metadata?.customConfigs?.['dpgw.manifest'];
  return { sandbox, env, folder, dpgw, provisioned, changing, markOf, out: join(folder, 'exported') };
}

/** The proof of an export: its plan finds nothing to change, and sends nothing that would change anything. */
async function expectNoChanges(context: Awaited<ReturnType<typeof setUp>>, manifest: string) {
  const before = context.changing().length;
  const planned = await context.dpgw(['provision', manifest, '--plan', '--detailed-exitcode', '--json']);
  expect(planned.code, `${planned.stderr}\n${planned.stdout}`).toBe(0);
  expect(context.changing().length).toBe(before);
  return JSON.parse(planned.stdout) as { plan: Array<{ dataset: string; table: string; steps: Array<{ step: string; action: string }> }> };
}

/**
 * A manifest whose tables carry the mark fleet-ops: the file fleet-ops.yaml (provision marks its tables with the
 * manifest's name, its file's by default, #33 §2), whose tables' template carries the same mark (for a provision
 * that does not mark tables yet).
 */
function fleetOps(folder: string, entries: string): string {
  const template = readFileSync(join(ROOT, 'templates/realtime-table.yaml'), 'utf8').replace('customConfigs: {}', 'customConfigs: { dpgw.manifest: fleet-ops }');
  writeFileSync(join(folder, 'marked-table.yaml'), template);
  trackSchemaBeside(folder);
  const file = join(folder, 'fleet-ops.yaml');
  writeFileSync(file, `name: fleet-ops\ndataSets:\n${entries}`);
  return file;
}
const marked = (dataset: string) => `  - { datasource: mock-data-library, dataset: ${dataset}, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: ${dataset}, template: marked-table.yaml } }\n`;

describe('dpgw export', () => {
  it('the examples of docs/export.md, as written, in sh with dpgw on the PATH, after the provision the page names', async () => {
    const { env, dpgw } = await setUp();
    const provisioned = await dpgw(['provision', join(ROOT, 'examples/track/provision.yaml'), '--wait-consuming', '0']);
    expect(provisioned.code, provisioned.stderr).toBe(0);
    const page = readFileSync(join(ROOT, 'docs/export.md'), 'utf8');
    const block = /After `dpgw provision[^\n]*\n\n```sh\n([\s\S]*?)```/.exec(page)![1]!;
    const lines = block.trim().split('\n');
    expect(lines).toHaveLength(4);
    // `npm install --global dpgw` puts `dpgw` on the PATH: here, a link to this build.
    const bin = mkdtempSync(join(tmpdir(), 'dpgw-bin-'));
    symlinkSync(BIN, join(bin, 'dpgw'));
    const workspace = mkdtempSync(join(tmpdir(), 'dpgw-export-'));
    for (const line of lines) {
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile('sh', ['-c', line], { cwd: workspace, env: { ...env, PATH: `${bin}:${process.env.PATH}` } }, (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })),
      );
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
    }
    expect(parseYaml(readFileSync(join(workspace, 'exported/provision.yaml'), 'utf8')).dataSets.map((d: { dataset: string }) => d.dataset)).toEqual(['track']);
    // examples/track/provision.yaml gives its name (name: track), so the export keeps it and its plan is the same owner's.
    expect(parseYaml(readFileSync(join(workspace, 'track-only/provision.yaml'), 'utf8'))).toMatchObject({ name: 'track', dataSets: [{ dataset: 'track' }] });
  });

  it('writes a manifest and a schema file per table whose plan is "no changes", with only what differs from the defaults', async () => {
    const context = await setUp();
    const { dpgw, provisioned, out, changing } = context;
    await provisioned();
    const before = changing().length;
    const logged = context.sandbox.requestLog.of('gateway').length;
    const result = await dpgw(['export', '--output', out]);
    expect(result.code, result.stderr).toBe(0);
    // Export reads only, and the schema the two tables share once.
    expect(changing().length).toBe(before);
    expect(context.sandbox.requestLog.of('gateway').slice(logged).filter((e) => e.path === '/api/internal/olap/schemas/track')).toHaveLength(1);
    expect(result.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^wrote .*track\.schema\.yaml$/), expect.stringMatching(/^wrote .*vessel_positions\.schema\.yaml$/), expect.stringMatching(/^wrote .*provision-manifest\.schema\.json$/), expect.stringMatching(/^wrote .*provision\.yaml$/)]);
    expect(result.stderr).not.toContain('warning');
    expect(readdirSync(out).sort()).toEqual(['provision-manifest.schema.json', 'provision.yaml', 'track.schema.yaml', 'vessel_positions.schema.yaml']);

    const manifest = parseYaml(readFileSync(join(out, 'provision.yaml'), 'utf8'));
    // name: only to keep the mark the tables carry, where provision marks them (#33 §2): else its plan would re-mark them.
    const mark = context.markOf('track');
    expect(context.markOf('vessel_positions')).toBe(mark);
    expect(manifest).toEqual({
      version: 1,
      ...(mark === undefined ? {} : { name: mark }),
      dataSets: [
        // The defaults are left out: the enablement named after the data set, the table after its schema, the retention of the settings, the one time column.
        { datasource: 'mock-data-library', dataset: 'track', groups: [TRACK_GROUP], schema: 'track.schema.yaml' },
        { datasource: 'mock-data-library', dataset: 'vessel', enablement: 'fleet', groups: [TRACK_GROUP], schema: 'vessel_positions.schema.yaml', table: { name: 'vessel_positions', retentionDays: 30 } },
      ],
    });
    const schema = parseYaml(readFileSync(join(out, 'track.schema.yaml'), 'utf8'));
    expect(schema.schemaName).toBe('track');
    expect(schema.dateTimeFieldSpecs).toEqual([{ name: 'time', dataType: 'LONG', notNull: false, format: '1:MILLISECONDS:EPOCH', granularity: '1:MILLISECONDS' }]);

    const { plan } = await expectNoChanges(context, join(out, 'provision.yaml'));
    expect(plan.map((p) => `${p.dataset} ${p.table}`)).toEqual(['track track', 'vessel vessel_positions']);
    for (const dataSet of plan) expect(dataSet.steps.filter((s) => ['enable', 'schema', 'table'].includes(s.step)).map((s) => `${s.step} ${s.action}`)).toEqual(['enable none', 'schema none', 'table none']);
  });

  it('tables a manifest without name: marked: kept by an export into a folder of that name; elsewhere no name: is written and a warning says how to take them', async () => {
    const context = await setUp();
    const { dpgw, provisioned, folder, markOf } = context;
    await provisioned(twoDataSets.replace('name: platform\n', ''));
    // The manifest was the config folder's provision.yaml: its tables carry that folder's name, taken, not given.
    const mark = basename(folder);
    expect(markOf('track')).toBe(mark);
    const elsewhere = join(folder, 'exported');
    const warned = await dpgw(['export', '-o', elsewhere]);
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toContain(`warning: the tables carry the mark ${mark}, a name their manifest took from its file or folder, which no name: can keep: this manifest manages them from a folder named ${mark} (\`dpgw export --output ${mark}\`), or give it a name: of its own and run it once with --adopt`);
    expect(parseYaml(readFileSync(join(elsewhere, 'provision.yaml'), 'utf8')).name).toBeUndefined();
    expect((await dpgw(['provision', join(elsewhere, 'provision.yaml'), '--plan'])).code).toBe(2);

    const kept = join(folder, 'kept', mark);
    const result = await dpgw(['export', '-o', kept]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('warning');
    expect(parseYaml(readFileSync(join(kept, 'provision.yaml'), 'utf8')).name).toBeUndefined();
    await expectNoChanges(context, join(kept, 'provision.yaml'));
  });

  it("tables made with a tenant other than this run's: the manifest's settings say it, and the plan without it is still no changes", async () => {
    const context = await setUp();
    const { dpgw, provisioned, out } = context;
    await provisioned(twoDataSets, { DPGW_BROKER_TENANT: 'Analytics' });
    const result = await dpgw(['export', '-o', out, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ settings: { brokerTenant: 'Analytics' }, leftOut: [] });
    expect(parseYaml(readFileSync(join(out, 'provision.yaml'), 'utf8')).settings).toEqual({ brokerTenant: 'Analytics' });
    await expectNoChanges(context, join(out, 'provision.yaml'));
  });

  it('--json lists the files, the tables with their data sets, and the tables left out', async () => {
    const { dpgw, provisioned, out } = await setUp();
    await provisioned();
    const result = await dpgw(['export', '-o', out, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const document = JSON.parse(result.stdout);
    expect(document.files).toEqual([join(out, 'track.schema.yaml'), join(out, 'vessel_positions.schema.yaml'), join(out, 'provision-manifest.schema.json'), join(out, 'provision.yaml')]);
    expect(document.tables).toEqual([
      { table: 'track', schema: 'track', schemaFile: 'track.schema.yaml', datasource: 'mock-data-library', dataset: 'track', enablement: 'track', topic: 'mock-data-library.track.track' },
      { table: 'vessel_positions', schema: 'track', schemaFile: 'vessel_positions.schema.yaml', datasource: 'mock-data-library', dataset: 'vessel', enablement: 'fleet', topic: 'mock-data-library.fleet.vessel' },
    ]);
    expect(document.leftOut).toEqual([]);
    expect(document.settings).toEqual({});
  });

  it('--dataset and --table choose the tables; the chosen export plans no changes too', async () => {
    const context = await setUp();
    const { dpgw, provisioned, out } = context;
    await provisioned();
    const byDataSet = await dpgw(['export', '-o', join(out, 'vessel'), '--dataset', 'vessel', '--json']);
    expect(byDataSet.code, byDataSet.stderr).toBe(0);
    expect(JSON.parse(byDataSet.stdout).tables.map((t: { table: string }) => t.table)).toEqual(['vessel_positions']);
    expect((await expectNoChanges(context, join(out, 'vessel', 'provision.yaml'))).plan.map((p) => p.dataset)).toEqual(['vessel']);

    const byTable = await dpgw(['export', '-o', join(out, 'track'), '--table', 'track', '--json']);
    expect(byTable.code, byTable.stderr).toBe(0);
    expect(JSON.parse(byTable.stdout).tables.map((t: { table: string }) => t.table)).toEqual(['track']);
    expect(readdirSync(join(out, 'track')).sort()).toEqual(['provision-manifest.schema.json', 'provision.yaml', 'track.schema.yaml']);

    const both = await dpgw(['export', '-o', join(out, 'both'), '--table', 'track', '--table', 'vessel_positions', '--json']);
    expect(JSON.parse(both.stdout).tables).toHaveLength(2);

    const none = await dpgw(['export', '-o', join(out, 'none'), '--dataset', 'weather']);
    expect(none.code).toBe(9);
    expect(none.stderr).toMatch(/^dpgw: --dataset: no table to export for --dataset weather; nothing was written/m);
    expect(existsSync(join(out, 'none'))).toBe(false);

    const unknown = await dpgw(['export', '-o', join(out, 'unknown'), '--table', 'nosuch', '--json']);
    expect(unknown.code).toBe(9);
    expect(JSON.parse(unknown.stdout).error.code).toBe('TABLE_NOT_FOUND');
  });

  it('a table that cannot be mapped back to a data set is named in one warning with its reason, and left out', async () => {
    const context = await setUp();
    const { sandbox, dpgw, provisioned, out, folder } = context;
    await provisioned();
    // A topic on the stream that no data set carries (an operator's own), and a table that consumes it.
    sandbox.catalog.topics.add('something.unknown');
    const create = (name: string, ...flags: string[]) => dpgw(['table', 'create', '--dataset', 'track', '--schema', join(folder, 'track-schema.yaml'), '--name', name, '--no-stream-check', '--wait-consuming', '0', ...flags]);
    const odd = await create('odd', '--topic', 'something.unknown');
    expect(odd.code, odd.stderr).toBe(0);
    // A table of another stream product than this run's (stream.kafka.* keys where the run reads stream.mq.*).
    const other = await create('other_stream', '--stream-type', 'kafka');
    expect(other.code, other.stderr).toBe(0);
    const result = await dpgw(['export', '-o', out, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('warning'));
    expect(warnings).toEqual(['warning: left out 2 tables dpgw cannot write back as a manifest entry: odd (its topic something.unknown is the topic of no data set in the catalog); other_stream (its stream type is "kafka", not this run\'s mq (--stream-type))']);
    const document = JSON.parse(result.stdout);
    expect(document.leftOut).toEqual([
      { table: 'odd', reason: 'its topic something.unknown is the topic of no data set in the catalog' },
      { table: 'other_stream', reason: 'its stream type is "kafka", not this run\'s mq (--stream-type)' },
    ]);
    expect(document.tables.map((t: { table: string }) => t.table)).toEqual(['track', 'vessel_positions']);
    expect(readFileSync(join(out, 'provision.yaml'), 'utf8')).not.toContain('odd');
    await expectNoChanges(context, join(out, 'provision.yaml'));
  });

  it('writes no secret: the stream password is in no file, and the manifest names none', async () => {
    const { sandbox, dpgw, provisioned, out } = await setUp();
    await provisioned();
    const result = await dpgw(['export', '-o', out, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(sandbox.stream.password);
    for (const file of readdirSync(out)) {
      const text = readFileSync(join(out, file), 'utf8');
      // The manifest's JSON Schema names the keys (clientSecret, streamPassword), no value: the file the package ships.
      if (file === 'provision-manifest.schema.json') {
        expect(text).toBe(readFileSync(join(ROOT, 'docs/provision-manifest.schema.json'), 'utf8'));
        continue;
      }
      expect(text, file).not.toContain(sandbox.stream.password);
      expect(text, file).not.toMatch(/password|secret|token/i);
    }
  });

  it('refuses to overwrite an earlier export without --force (exit 2, one line), and replaces it with --force', async () => {
    const { dpgw, provisioned, out } = await setUp();
    await provisioned();
    mkdirSync(out);
    writeFileSync(join(out, 'provision.yaml'), '# mine\n');
    const refused = await dpgw(['export', '-o', out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toEqual([`dpgw: --output: ${join(out, 'provision.yaml')} exists: not overwritten — pass --force to replace it, or choose another folder`]);
    expect(readFileSync(join(out, 'provision.yaml'), 'utf8')).toBe('# mine\n');
    expect(readdirSync(out)).toEqual(['provision.yaml']);

    // A schema file of an earlier export without its manifest: refused as well, before anything is written.
    const other = join(out, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'vessel_positions.schema.yaml'), '# mine\n');
    const refusedSchema = await dpgw(['export', '-o', other]);
    expect(refusedSchema.code).toBe(2);
    expect(refusedSchema.stderr).toContain(`${join(other, 'vessel_positions.schema.yaml')} exists: not overwritten`);
    expect(readdirSync(other)).toEqual(['vessel_positions.schema.yaml']);

    const forced = await dpgw(['export', '-o', out, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(out, 'provision.yaml'), 'utf8')).toContain('dataset: track');
  });

  it('--manifest NAME exports the tables that manifest manages, and writes name: NAME', async () => {
    const { dpgw, provisioned, out, folder } = await setUp();
    await provisioned(`dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml }\n`);
    const fleet = await dpgw(['provision', fleetOps(folder, marked('vessel')), '--wait-consuming', '0']);
    expect(fleet.code, fleet.stderr).toBe(0);
    const result = await dpgw(['export', '-o', out, '--manifest', 'fleet-ops', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).tables.map((t: { table: string }) => t.table)).toEqual(['vessel']);
    const manifest = parseYaml(readFileSync(join(out, 'provision.yaml'), 'utf8'));
    expect(manifest).toMatchObject({ name: 'fleet-ops', dataSets: [{ dataset: 'vessel', table: { name: 'vessel' } }] });

    const refused = await dpgw(['export', '-o', join(out, 'x'), '--manifest', 'a b']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^dpgw: --manifest: "a b" is no manifest name/m);

    // A name no table carries: not found, and the hint lists the marks the store's tables do carry, the nearest first.
    const typo = await dpgw(['export', '-o', join(out, 'y'), '--manifest', 'fleet-opz']);
    expect(typo.code).toBe(9);
    expect(typo.stderr).toMatch(/^dpgw: --manifest: no table to export for --manifest fleet-opz; nothing was written — did you mean "fleet-ops"\? the store's tables carry the marks .*\bfleet-ops\b.*: pass one to --manifest$/m);
    const unlike = await dpgw(['export', '-o', join(out, 'y'), '--manifest', 'zzz', '--json']);
    expect(unlike.code).toBe(9);
    expect(JSON.parse(unlike.stdout).error.hint).toMatch(/^the store's tables carry the marks .*\bfleet-ops\b.*: pass one to --manifest$/);
  });

  it('--manifest that no table carries: a mark that is no manifest name is listed quoted, never as marks it only looks like', async () => {
    const { dpgw, provisioned, out, sandbox } = await setUp();
    await provisioned(`dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml }\n`);
    // A table another team marked by hand: its mark reads as two manifest names in a comma list, one of them the asked name's neighbour.
    const held = sandbox.store.tables.get('track')!.definition;
    held.metadata = { customConfigs: { 'dpgw.manifest': 'fleet-ops, payments', 'dpgw.manifest.named': 'true' } };
    const result = await dpgw(['export', '-o', join(out, 'y'), '--manifest', 'fleet-opz', '--json']);
    expect(result.code).toBe(9);
    expect(JSON.parse(result.stdout).error.hint).toBe('the store\'s tables carry the mark "fleet-ops, payments": pass one to --manifest');
  });

  it('a gateway that does not list the store\'s tables: one line, exit 3, nothing written', async () => {
    const { dpgw, out, sandbox } = await setUp();
    sandbox.faults.update({ failures: [{ method: 'GET', path: '/api/internal/olap/tables', status: 404, body: { timestamp: '2026-01-01T00:00:00Z', status: 404, error: 'Not Found', message: 'No static resource api/internal/olap/tables.', path: '/api/internal/olap/tables' } }] });
    const result = await dpgw(['export', '-o', out]);
    expect(result.code).toBe(3);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^dpgw: this gateway does not list the analytics store's tables: GET \S+\/api\/internal\/olap\/tables answered 404/);
    expect(existsSync(out)).toBe(false);
  });
});
