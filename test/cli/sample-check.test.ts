/**
 * Sampled messages held against the schema before a table is sent (table create, provision
 * and its plan), as a user meets it on the sandbox: a column in the wrong case, a column no
 * message carries and a value of the wrong type are refused before any table request; a
 * schema that fits says how many messages it was held against.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const TRACK_SCHEMA = readFileSync('examples/track/schema.yaml', 'utf8');
const TOPIC = 'mock-data-library.track.track';
const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

async function setUp(options: SandboxOptions = {}) {
  const sandbox = await sandboxes.start(options);
  const env = await adminPipelineEnv(sandbox);
  const folder = env.DPGW_CONFIG_DIR!;
  const dpgw = (args: string[], extra: NodeJS.ProcessEnv = {}) => spawnDpgw(args, { env: { ...env, ...extra } });
  const schema = (name: string, text: string) => {
    writeFileSync(join(folder, name), text);
    return join(folder, name);
  };
  const tableRequests = () => sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET' && e.path.startsWith('/api/internal/olap/'));
  expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
  return { sandbox, env, folder, dpgw, schema, tableRequests };
}

const errorLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('dpgw:'));

describe('dpgw table create: the messages held against the schema', () => {
  it('a column in the wrong case is refused before the table, naming the field it likely meant; exit 2, nothing sent', async () => {
    const { dpgw, schema, tableRequests } = await setUp();
    const file = schema('slipped.yaml', TRACK_SCHEMA.replace('{ name: objType,', '{ name: objtype,'));
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', file, '--json']);
    expect(result.code).toBe(2);
    expect(errorLines(result.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^dpgw: .*slipped\\.yaml: schema track does not fit the messages of topic ${TOPIC.replace(/\./g, '\\.')}: column objtype: no sampled message carries it \\(did you mean objType\\?\\); table track would leave that column empty — fix the schema`)),
    ]);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'MESSAGES_DO_NOT_FIT', details: { missing: [{ column: 'objtype', likely: 'objType' }], mistyped: [] } });
    expect(tableRequests()).toEqual([]);
  });

  it('a column no message carries and a value of the wrong type: each named, with one example value and where it is', async () => {
    const { dpgw, schema, tableRequests } = await setUp();
    const file = schema('wrong.yaml', TRACK_SCHEMA.replace('{ name: origin, dataType: STRING }', '{ name: origin, dataType: INT }').replace('metricFieldSpecs:\n', 'metricFieldSpecs:\n  - { name: heading, dataType: DOUBLE }\n'));
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', file]);
    expect(result.code).toBe(2);
    const [line] = errorLines(result.stderr);
    expect(line).toContain('column heading: no sampled message carries it;');
    expect(line).toMatch(new RegExp(`column origin is INT, and the messages hold "(RADAR-NORTH|RADAR-SOUTH|AIS-COAST|SAT-7)" \\(${TOPIC.replace(/\./g, '\\.')}/\\d@\\d+\\)`));
    expect(line).toContain('table track would leave those columns empty');
    expect(tableRequests()).toEqual([]);
  });

  it("a schema held against another topic's messages: the line names the first five columns and counts the rest; --json lists every one", async () => {
    const { dpgw, schema, tableRequests } = await setUp();
    const columns = ['vesselName', 'imo', 'flag', 'draught', 'port', 'berth', 'eta'];
    const file = schema('vessel.yaml', `schemaName: track\ndimensionFieldSpecs:\n${columns.map((name) => `  - { name: ${name}, dataType: STRING }\n`).join('')}dateTimeFieldSpecs:\n  - { name: time, dataType: LONG, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }\n`);
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', file, '--json']);
    expect(result.code).toBe(2);
    const [line] = errorLines(result.stderr);
    expect(line).toContain('column port: no sampled message carries it; and 2 more (--json lists every one); table track would leave those columns empty');
    expect(line).not.toContain('column berth');
    expect(JSON.parse(result.stdout).error.details.missing.map((m: { column: string }) => m.column)).toEqual(expect.arrayContaining(columns));
    expect(tableRequests()).toEqual([]);
  });

  it('a schema that fits: one line with how many messages it was held against, and the fields it does not store; then the table', async () => {
    const { dpgw, schema } = await setUp();
    const file = schema('narrow.yaml', TRACK_SCHEMA.replace('  - { name: alt, dataType: DOUBLE }\n', ''));
    expect((await dpgw(['schema', 'push', file])).code).toBe(0);
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', file, '--sample', '30', '--wait-consuming', '0']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^messages checked: 30 messages of topic ${TOPIC.replace(/\./g, '\\.')} fit schema track; not stored \\(the schema lacks them\\): alt$`, 'm'));
    expect(result.stderr).toContain('✓ table track created');
  });

  it('--no-sample-check sends the table unchecked; a topic with no messages yet: one line says the check could not run, and the table is made', async () => {
    const slipped = TRACK_SCHEMA.replace('{ name: objType,', '{ name: objtype,');
    const off = await setUp();
    const file = off.schema('slipped.yaml', slipped);
    expect((await off.dpgw(['schema', 'push', file])).code).toBe(0);
    const unchecked = await off.dpgw(['table', 'create', '--dataset', 'track', '--schema', file, '--no-sample-check', '--wait-consuming', '0']);
    expect(unchecked.code, unchecked.stderr).toBe(0);
    expect(unchecked.stderr).not.toContain('messages checked');

    const empty = await setUp({ streamBacklog: 0 });
    const emptyFile = empty.schema('track.yaml', TRACK_SCHEMA);
    expect((await empty.dpgw(['schema', 'push', emptyFile])).code).toBe(0);
    const made = await empty.dpgw(['table', 'create', '--dataset', 'track', '--schema', emptyFile, '--wait-consuming', '0']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toMatch(/^warning: messages not held against the schema: topic mock-data-library\.track\.track holds no messages yet .*; the table is sent unchecked \(--no-sample-check turns the check off\)$/m);
    expect(made.stderr).toContain('✓ table track created');
  });
});

describe('dpgw provision: the sample step', () => {
  it('the plan runs the check: a misfit is refused there (exit 2), the schema and table blocked, nothing sent; the run refuses it the same way', async () => {
    const { dpgw, schema, folder, tableRequests } = await setUp();
    schema('slipped.yaml', TRACK_SCHEMA.replace('{ name: objType,', '{ name: objtype,'));
    const manifest = join(folder, 'provision.yaml');
    writeFileSync(manifest, `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: slipped.yaml, table: { name: track } }\n`);
    const planned = await dpgw(['provision', manifest, '--plan', '--json']);
    expect(planned.code, planned.stderr).toBe(2);
    const steps = JSON.parse(planned.stdout).plan[0].steps as Array<{ step: string; action: string; reason: string }>;
    expect(steps.map((s) => `${s.step} ${s.action}`)).toEqual(['enable none', 'stream check', 'sample refused', 'schema blocked', 'table blocked', 'storage blocked', 'consume blocked']);
    expect(steps[2]!.reason).toContain('column objtype: no sampled message carries it (did you mean objType?)');

    const run = await dpgw(['provision', manifest, '--json']);
    expect(run.code).toBe(2);
    const [result] = JSON.parse(run.stdout).dataSets;
    expect(result.steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable unchanged', 'stream passed', 'sample failed', 'schema blocked', 'table blocked', 'storage blocked', 'consume blocked']);
    expect(result.error).toMatchObject({ code: 'MESSAGES_DO_NOT_FIT' });
    expect(tableRequests()).toEqual([]);
  });

  it('a schema that fits: the plan says how many messages fit, and the run passes the step', async () => {
    const { dpgw, schema, folder } = await setUp();
    schema('track.yaml', TRACK_SCHEMA);
    const manifest = join(folder, 'provision.yaml');
    writeFileSync(manifest, `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track.yaml, table: { name: track } }\n`);
    const planned = await dpgw(['provision', manifest, '--plan']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/^ {2}3\. sample +check +\d+ messages of topic mock-data-library\.track\.track fit schema track$/m);
    const run = await dpgw(['provision', manifest, '--json', '--wait-consuming', '0']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).dataSets[0].steps[2]).toMatchObject({ step: 'sample', action: 'check', status: 'passed', facts: { messages: expect.any(Number) } });
  });
});
