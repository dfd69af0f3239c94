/**
 * A forged line from the real Pinot (#44 §1): text the store holds — a schema's default
 * value and a table's custom config written straight to Pinot's controller, as anyone with
 * the store's API may — reaches a GitHub Actions log through `dpgw schema get` and
 * `dpgw table get` as one double-quoted value on its key's line; no line of dpgw's output
 * is a workflow command the runner would obey.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { spawnDpgw, type RunResult } from '../helpers/run-dpgw.js';
import { adminEnv, startBackedGateway } from './backed-platform.js';

const pinot = inject('pinot');
/** A name of its own, so this file neither needs nor disturbs the other files' tables. */
const NAME = 'forged_lines';
const ATTACK = 'first line\n::error title=ATTACK::x\n::add-mask::x';
let sandbox: Sandbox;

async function controller(method: string, path: string, body?: unknown): Promise<void> {
  const response = await fetch(`${pinot.controller}/${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
  if (!response.ok && method !== 'DELETE') throw new Error(`Pinot's controller answered ${method} /${path} with ${response.status}: ${await response.text()}`);
}

beforeAll(async () => {
  sandbox = await startBackedGateway();
  await controller('DELETE', `tables/${NAME}?type=offline`);
  await controller('DELETE', `schemas/${NAME}`);
  await controller('POST', 'schemas', {
    schemaName: NAME,
    dimensionFieldSpecs: [{ name: 'note', dataType: 'STRING', defaultNullValue: ATTACK }],
    dateTimeFieldSpecs: [{ name: 'time', dataType: 'LONG', format: '1:MILLISECONDS:EPOCH', granularity: '1:MILLISECONDS' }],
  });
  await controller('POST', 'tables', {
    tableName: NAME,
    tableType: 'OFFLINE',
    segmentsConfig: { schemaName: NAME, timeColumnName: 'time', replication: '1' },
    tenants: {},
    tableIndexConfig: { loadMode: 'MMAP' },
    metadata: { customConfigs: { note: ATTACK } },
  });
});
afterAll(async () => {
  await controller('DELETE', `tables/${NAME}?type=offline`);
  await controller('DELETE', `schemas/${NAME}`);
  await sandbox?.close();
});

/** Every line as the runner splits them: none starts with `::` (after whitespace) or holds `##[`. */
function expectNoWorkflowCommand(result: RunResult): void {
  for (const line of `${result.stdout}\n${result.stderr}`.split(/\r\n|\r|\n/)) {
    expect(line).not.toMatch(/^\s*::/);
    expect(line).not.toContain('##[');
  }
}

describe(`text Pinot ${pinot.version} holds, in a GitHub Actions log`, () => {
  it('schema get and table get show a multi-line value as one quoted line; no line is a workflow command', async () => {
    const env = { ...adminEnv(sandbox.gatewayUrl), GITHUB_ACTIONS: 'true' };
    const schema = await spawnDpgw(['schema', 'get', NAME], { env });
    expect(schema.code, schema.stderr).toBe(0);
    expectNoWorkflowCommand(schema);
    // The same value, read back from what was shown.
    expect(JSON.stringify(parseYaml(schema.stdout))).toContain(JSON.stringify(ATTACK));

    const table = await spawnDpgw(['table', 'get', NAME], { env });
    expect(table.code, table.stderr).toBe(0);
    expectNoWorkflowCommand(table);
    expect(JSON.stringify(parseYaml(table.stdout))).toContain(JSON.stringify(ATTACK));
  }, 120_000);
});
