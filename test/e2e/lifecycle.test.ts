/**
 * Deleting and pruning on the real Pinot (#33): a table deleted with `dpgw table delete` is
 * gone from Pinot's controller when the command ends, and the same manifest creates it again
 * under the same name right after; `provision --prune` deletes the data set a manifest no
 * longer lists — its table, then its schema — and nothing else.
 */
import { writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminEnv, pinotSchemaStatus, pinotTable, startBackedGateway } from './backed-platform.js';

const kafka = inject('kafka');
const pinot = inject('pinot');
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startBackedGateway();
});
afterAll(() => sandbox?.close());

/** A folder with a schema file per name (the track schema renamed) and a manifest writer. */
function workspace(schemas: string[]) {
  const env = adminEnv(sandbox.gatewayUrl, { DPGW_STREAM_PASSWORD: kafka.streamPassword });
  const folder = env.DPGW_CONFIG_DIR!;
  const track = readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8');
  for (const name of schemas) writeFileSync(join(folder, `${name}.yaml`), track.replace(/^schemaName: track$/m, `schemaName: ${name}`));
  // Enablements of its own (so topics of its own): this file's data sets are its alone, whichever e2e file runs first.
  const manifest = (name: string, entries: Array<[dataset: string, table: string]>) => {
    const file = join(folder, 'provision.yaml');
    writeFileSync(file, `name: ${name}\ndataSets:\n${entries.map(([dataset, table]) => `  - { datasource: mock-data-library, dataset: ${dataset}, enablement: lc-${dataset}, groups: [track-readers], schema: ${table}.yaml, table: { name: ${table} } }\n`).join('')}`);
    return file;
  };
  const dpgw = (args: string[]) => spawnDpgw(args, { env });
  return { manifest, dpgw };
}

const stepOf = (stdout: string, name: string) => (JSON.parse(stdout) as { dataSets: Array<{ steps: Array<{ step: string; action: string; status: string }> }> }).dataSets[0]!.steps.find((s) => s.step === name);

describe(`deleting on Pinot ${pinot.version}`, () => {
  it('table delete: gone from Pinot when the command ends, and created again under the same name right after; schema delete refused while the table uses it, as Pinot refuses it', async () => {
    const { manifest, dpgw } = workspace(['lc_again']);
    const file = manifest('lc-delete', [['vessel', 'lc_again']]);
    const first = await dpgw(['provision', file, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(((await pinotTable('lc_again')).REALTIME as { metadata: { customConfigs: Record<string, string> } }).metadata.customConfigs['dpgw.manifest']).toBe('lc-delete');

    // The schema a table uses: dpgw refuses before sending, and Pinot's own controller refuses it too (409).
    const inUse = await dpgw(['schema', 'delete', 'lc_again', '--yes', '--json']);
    expect(inUse.code).toBe(3);
    expect(JSON.parse(inUse.stdout).error).toMatchObject({ code: 'SCHEMA_IN_USE', details: { tables: ['lc_again'] } });
    const pinotRefusal = await fetch(`${pinot.controller}/schemas/lc_again`, { method: 'DELETE' });
    expect(pinotRefusal.status).toBe(409);
    expect(await pinotRefusal.text()).toContain('associated with table lc_again_REALTIME');

    const deleted = await dpgw(['table', 'delete', 'lc_again', '--yes', '--json']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout).steps[0]).toMatchObject({ step: 'table', action: 'delete', status: 'changed' });
    expect(await pinotTable('lc_again')).toEqual({});

    // Right after: the same manifest creates the table again.
    const again = await dpgw(['provision', file, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(stepOf(again.stdout, 'table')).toMatchObject({ action: 'create', status: 'changed' });
    expect(stepOf(again.stdout, 'consume')).toMatchObject({ status: 'passed' });
    expect(Object.keys(await pinotTable('lc_again'))).toEqual(['REALTIME']);

    // Cleaned up with dpgw: the table, then its schema.
    expect((await dpgw(['table', 'delete', 'lc_again', '--yes'])).code).toBe(0);
    const schemaDeleted = await dpgw(['schema', 'delete', 'lc_again', '--yes']);
    expect(schemaDeleted.code, schemaDeleted.stderr).toBe(0);
    expect(await pinotSchemaStatus('lc_again')).toBe(404);
    const missing = await dpgw(['table', 'delete', 'lc_again', '--yes']);
    expect(missing.code).toBe(9);
  }, 300_000);

  it('provision --prune: the data set the manifest no longer lists goes, table then schema; the plan converges after', async () => {
    const { manifest, dpgw } = workspace(['lc_kept', 'lc_pruned']);
    const both = await dpgw(['provision', manifest('lc-prune', [['vessel', 'lc_kept'], ['weather', 'lc_pruned']]), '--json']);
    expect(both.code, both.stderr).toBe(0);

    const file = manifest('lc-prune', [['vessel', 'lc_kept']]);
    const planned = await dpgw(['provision', file, '--plan', '--prune', '--detailed-exitcode', '--json']);
    expect(planned.code, planned.stderr).toBe(7);
    expect(JSON.parse(planned.stdout).prune.steps.map((s: { step: string; action: string }) => `${s.step} ${s.action}`)).toEqual(['table delete', 'schema delete']);
    expect(Object.keys(await pinotTable('lc_pruned'))).toEqual(['REALTIME']);

    const pruned = await dpgw(['provision', file, '--prune', '--yes', '--json']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(JSON.parse(pruned.stdout).prune.steps.map((s: { reason: string }) => s.reason)).toEqual([expect.stringMatching(/^table lc_pruned deleted/), expect.stringMatching(/^schema lc_pruned deleted/)]);
    expect(await pinotTable('lc_pruned')).toEqual({});
    expect(await pinotSchemaStatus('lc_pruned')).toBe(404);
    expect(Object.keys(await pinotTable('lc_kept'))).toEqual(['REALTIME']);

    const converged = await dpgw(['provision', file, '--plan', '--prune', '--detailed-exitcode']);
    expect(converged.code, converged.stdout).toBe(0);
  }, 300_000);
});
