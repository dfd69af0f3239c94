/**
 * A change the store refuses, planned against the real Pinot (#32 §4): a data set is
 * provisioned for real, then its manifest retypes a column. The plan must say what Pinot
 * itself says when the schema is sent — refused — block every step after the schema, exit
 * 2, and change nothing on Pinot.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { planDocument } from '../../src/provision/plan-format.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminEnv, startBackedGateway } from './backed-platform.js';

const kafka = inject('kafka');
const pinot = inject('pinot');
/** A name of its own, so this file neither needs nor disturbs the tables the other files provision from the track data set. */
const SCHEMA = 'track_refusal';
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startBackedGateway();
});
afterAll(() => sandbox?.close());

interface PlannedStep {
  step: string;
  action: string;
  reason: string;
  difference?: string[];
}

async function heldSchema(): Promise<Record<string, unknown>> {
  const response = await fetch(`${pinot.controller}/schemas/${SCHEMA}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** Requests that could change the platform: the plan reads, so it must send none. */
const changingRequests = () => sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET').length;

describe(`a refused change planned against Pinot ${pinot.version}`, () => {
  it('a column retyped INT → LONG: Pinot itself refuses the schema; the plan says refused, blocks the table and the steps after it, exits 2, and Pinot keeps the schema it had', async () => {
    const env = adminEnv(sandbox.gatewayUrl, { DPGW_STREAM_PASSWORD: kafka.streamPassword });
    const folder = env.DPGW_CONFIG_DIR!;
    const trackSchema = readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8').replace(/^schemaName: track$/m, `schemaName: ${SCHEMA}`);
    writeFileSync(join(folder, 'schema.yaml'), trackSchema);
    // Widening a column looks harmless, yet Pinot takes a schema again under its name only when every column it holds is kept as it is.
    const retypedSchema = trackSchema.replace('{ name: asset, dataType: INT }', '{ name: asset, dataType: LONG }');
    expect(retypedSchema).not.toBe(trackSchema);
    writeFileSync(join(folder, 'retyped.yaml'), retypedSchema);
    const manifest = (schemaFile: string) => {
      const file = join(folder, 'provision.yaml');
      // Its own enablement (so its own topic): this file's data set is its alone, whichever e2e file runs first.
      writeFileSync(file, `dataSets:\n  - { datasource: mock-data-library, dataset: track, enablement: track-refusal, groups: [track-readers], schema: ${schemaFile}, table: { name: ${SCHEMA} } }\n`);
      return file;
    };

    // The data set as it is before the change, provisioned for real.
    const provisioned = await spawnDpgw(['provision', manifest('schema.yaml'), '--json'], { env });
    expect(provisioned.code, provisioned.stderr).toBe(0);
    expect(JSON.parse(provisioned.stdout).dataSets[0].steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable changed', 'stream passed', 'sample skipped', 'schema changed', 'table changed', 'storage changed', 'consume passed']);
    const before = await heldSchema();
    expect(before.dimensionFieldSpecs).toContainEqual(expect.objectContaining({ name: 'asset', dataType: 'INT' }));

    const changingBefore = changingRequests();
    const planned = await spawnDpgw(['provision', manifest('retyped.yaml'), '--plan', '--json'], { env });
    expect(planned.code, planned.stderr).toBe(2);
    const document = JSON.parse(planned.stdout);
    expect(planDocument.safeParse(document).error).toBeUndefined();
    const steps = document.plan[0].steps as PlannedStep[];
    const schemaAt = steps.findIndex((s) => s.step === 'schema');
    const schemaStep = steps[schemaAt]!;
    expect(schemaStep.action).toBe('refused');
    expect(schemaStep.reason).toMatch(/\basset\b/);
    expect(schemaStep.difference).toEqual([expect.stringMatching(/^~ asset: INT[^"]*→ LONG/)]);
    // The run would send nothing of this data set, its enablement included: every other step is blocked.
    const others = steps.filter((s) => s !== schemaStep);
    expect(others.map((s) => s.step)).toEqual(expect.arrayContaining(['enable', 'table', 'storage', 'consume']));
    expect(others.map((s) => `${s.step} ${s.action}`)).toEqual(others.map((s) => `${s.step} blocked`));
    expect(document.actions).toMatchObject({ refused: 1, blocked: others.length });

    const human = await spawnDpgw(['provision', manifest('retyped.yaml'), '--plan'], { env });
    expect(human.code, human.stderr).toBe(2);
    expect(human.stdout).toMatch(/^ +\d+\. schema +refused\b.*\basset\b/m);
    expect(human.stdout).toMatch(/^ +\d+\. table +blocked\b/m);
    expect(human.stdout).toContain('refused: the run would fail (exit 2)');

    // --detailed-exitcode says "changes" with 7; a refused plan is 2 all the same, since the run would fail.
    const detailed = await spawnDpgw(['provision', manifest('retyped.yaml'), '--plan', '--detailed-exitcode'], { env });
    expect(detailed.code, detailed.stderr).toBe(2);

    // The plans sent nothing that changes the platform, and Pinot holds what it held.
    expect(changingRequests()).toBe(changingBefore);
    expect(await heldSchema()).toEqual(before);

    // What dpgw foresaw is what Pinot does: the retyped schema, sent to its controller directly
    // with override (replace the schema of that name), is refused as not backward-compatible.
    const sent = await fetch(`${pinot.controller}/schemas?override=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(parseYaml(retypedSchema)) });
    const answer = await sent.text();
    expect(sent.status, answer).toBe(400);
    expect(answer).toContain(`${SCHEMA} is not backward-compatible with the existing schema`);
    expect(await heldSchema()).toEqual(before);
  }, 240_000);
});
