/**
 * `dpgw export` against the real Pinot (#33 §3): a data set provisioned for real, with a
 * retention and a table name of its own, exported from what Pinot's controller lists and
 * returns; the export is proven by its plan — "no changes", exit 0 with --detailed-exitcode,
 * and nothing sent that changes anything.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminEnv, startBackedGateway } from './backed-platform.js';

const kafka = inject('kafka');
const pinot = inject('pinot');
/** A name of its own, so this file neither needs nor disturbs the tables other files provision from the track data set. */
const TABLE = 'track_exported';
const ENABLEMENT = 'track-export';
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startBackedGateway();
});
afterAll(() => sandbox?.close());

const changingRequests = () => sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET').length;

describe(`dpgw export from Pinot ${pinot.version}`, () => {
  it('a provisioned data set with its own retention and table name, exported: the export plans no changes on Pinot and sends nothing that changes it', async () => {
    const env = adminEnv(sandbox.gatewayUrl, { DPGW_STREAM_PASSWORD: kafka.streamPassword });
    const folder = env.DPGW_CONFIG_DIR!;
    // Its own enablement (so its own topic) and schema: this file's data set is its alone, whichever e2e file runs first.
    writeFileSync(join(folder, 'schema.yaml'), readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8').replace('schemaName: track', `schemaName: ${TABLE}`));
    const manifest = join(folder, 'provision.yaml');
    writeFileSync(manifest, `name: ${ENABLEMENT}\ndataSets:\n  - { datasource: mock-data-library, dataset: track, enablement: ${ENABLEMENT}, groups: [track-readers], schema: schema.yaml, table: { name: ${TABLE}, retentionDays: 30 } }\n`);
    const provisioned = await spawnDpgw(['provision', manifest], { env });
    expect(provisioned.code, provisioned.stderr).toBe(0);
    // Pinot's own listing holds the table (the gateway passes it on).
    const listed = (await (await fetch(`${pinot.controller}/tables`)).json()) as { tables: string[] };
    expect(listed.tables).toContain(TABLE);

    const out = join(folder, 'exported');
    const changingBefore = changingRequests();
    const exported = await spawnDpgw(['export', '--output', out, '--table', TABLE, '--json'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ tables: [{ table: TABLE, schema: TABLE, dataset: 'track', enablement: ENABLEMENT, datasource: 'mock-data-library' }], leftOut: [] });
    expect(readdirSync(out).sort()).toEqual(['provision-manifest.schema.json', 'provision.yaml', `${TABLE}.schema.yaml`]);
    expect(parseYaml(readFileSync(join(out, 'provision.yaml'), 'utf8')).dataSets).toEqual([
      // The table's name is its schema's (the default), so the export leaves it out.
      { datasource: 'mock-data-library', dataset: 'track', enablement: ENABLEMENT, groups: ['track-readers'], schema: `${TABLE}.schema.yaml`, table: { retentionDays: 30 } },
    ]);
    for (const file of readdirSync(out)) expect(readFileSync(join(out, file), 'utf8'), file).not.toContain(kafka.streamPassword);

    const planned = await spawnDpgw(['provision', join(out, 'provision.yaml'), '--plan', '--detailed-exitcode', '--json'], { env });
    expect(planned.code, `${planned.stderr}\n${planned.stdout}`).toBe(0);
    const steps = JSON.parse(planned.stdout).plan[0].steps as Array<{ step: string; action: string }>;
    expect(steps.filter((s) => ['enable', 'schema', 'table'].includes(s.step)).map((s) => `${s.step} ${s.action}`)).toEqual(['enable none', 'schema none', 'table none']);
    // Export and plan together sent nothing that changes the platform.
    expect(changingRequests()).toBe(changingBefore);
  }, 240_000);
});
