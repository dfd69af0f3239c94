/**
 * The store's own validation in the plan, against the real Pinot (issue #47 §3): a table whose
 * transform function Pinot cannot parse passes dpgw's local checks, and Pinot's
 * `POST /tableConfigs/validate` (TableConfigsRestletResource#validateConfig →
 * TableConfigUtils#validateIngestionConfig) refuses it. The plan says refused in Pinot's words at
 * the manifest's line, exits 2, and nothing is sent: no enablement, no schema, no table. A data
 * set beside it, with dpgw's own template and a table named otherwise than its schema, is judged
 * valid (the schema is sent under the table's name, as the call wants).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminEnv, pinotSchemaStatus, pinotTable, startBackedGateway } from './backed-platform.js';
import type { StepRecord as PlannedStep } from '../../src/provision/steps/step-record.js';

const kafka = inject('kafka');
const pinot = inject('pinot');
/** Names of its own, so this file neither needs nor disturbs the other files' tables. */
const REFUSED = 'track_store_refused';
const VALID_SCHEMA = 'track_store_valid';
const VALID_TABLE = 'track_store_valid_rt';
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startBackedGateway();
});
afterAll(() => sandbox?.close());

describe(`the plan validated by Pinot ${pinot.version}`, () => {
  it('a transform function Pinot cannot parse: refused by the plan at the manifest line, in Pinot words, exit 2, nothing sent', async () => {
    const env = adminEnv(sandbox.gatewayUrl, { DPGW_STREAM_PASSWORD: kafka.streamPassword });
    const folder = env.DPGW_CONFIG_DIR!;
    const schema = (name: string) => readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8').replace(/^schemaName: track$/m, `schemaName: ${name}`);
    writeFileSync(join(folder, 'refused-schema.yaml'), schema(REFUSED));
    writeFileSync(join(folder, 'valid-schema.yaml'), schema(VALID_SCHEMA));
    // dpgw's own template, with a second transform whose function Pinot does not have: its local checks read only the arguments.
    const template = readFileSync(join(ROOT, 'templates/realtime-table.yaml'), 'utf8').replace('      transformFunction: now()\n', '      transformFunction: now()\n    - columnName: objIdent\n      transformFunction: nosuchfunction(origin)\n');
    writeFileSync(join(folder, 'unknown-function.yaml'), template);
    const file = join(folder, 'provision.yaml');
    writeFileSync(
      file,
      [
        'dataSets:',
        `  - { datasource: mock-data-library, dataset: track, enablement: track-store-refused, groups: [track-readers], schema: refused-schema.yaml, table: { name: ${REFUSED}, template: unknown-function.yaml } }`,
        `  - { datasource: mock-data-library, dataset: track, enablement: track-store-valid, groups: [track-readers], schema: valid-schema.yaml, table: { name: ${VALID_TABLE} } }`,
        '',
      ].join('\n'),
    );

    const planned = await spawnDpgw(['provision', file, '--plan', '--json'], { env });
    expect(planned.code, planned.stderr).toBe(2);
    const [refused, valid] = JSON.parse(planned.stdout).plan as Array<{ steps: PlannedStep[] }>;
    const table = refused!.steps.find((s) => s.step === 'table')!;
    expect(table.action).toBe('refused');
    // Pinot's own words (TableConfigsRestletResource#validateConfig wraps TableConfigUtils#validateIngestionConfig's), at the table entry's line.
    expect(table.reason).toContain(`the store refuses table ${REFUSED} (${file}:2:`);
    expect(table.reason).toContain(`Invalid TableConfigs: ${REFUSED}. Invalid transform function 'nosuchfunction(origin)' for column 'objIdent'`);
    expect(refused!.steps.filter((s) => ['storage', 'consume'].includes(s.step)).map((s) => s.action)).toEqual(['blocked', 'blocked']);
    // dpgw's own table, named otherwise than its schema, is one Pinot takes.
    expect(valid!.steps.find((s) => s.step === 'table')).toMatchObject({ action: 'create' });
    expect(planned.stderr).not.toContain('not validated by the store');
    // Pinot 0.11 does not know notNull of a date-time column: its unrecognizedProperties, said at the schema file's line.
    const notNullLine = schema(VALID_SCHEMA).split('\n').indexOf('    notNull: false') + 1;
    expect(planned.stderr).toContain(`${join(folder, 'valid-schema.yaml')}:${notNullLine}:5: the store does not recognise the schema field dateTimeFieldSpecs[0].notNull (false)`);

    // Read-only: the validate calls are the only requests that are not reads, and Pinot holds nothing of either data set.
    const sent = sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET');
    expect(sent.map((e) => `${e.method} ${e.path} ${e.status}`).sort()).toEqual(['POST /api/internal/olap/tableConfigs/validate 200', 'POST /api/internal/olap/tableConfigs/validate 400']);
    for (const name of [REFUSED, VALID_TABLE]) expect(await pinotTable(name)).toEqual({});
    for (const name of [REFUSED, VALID_SCHEMA]) expect(await pinotSchemaStatus(name)).toBe(404);
  });
});
