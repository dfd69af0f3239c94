/**
 * A change that forces a replacement, on the real Pinot and Kafka (issue #47 §2). A table is
 * provisioned on the topic of its data set's enablement (A); then its manifest entry names
 * another topic of the same data set (`table.topic`: the topic of another enablement, B) —
 * how a team moves a table to a feed it shares with others. Pinot would take that PUT and go
 * on reading B from A's offsets (apache/pinot#7022), so dpgw plans `replace` with the rows
 * Pinot's broker counts, refuses the run without --allow-replace with nothing sent, and with
 * it deletes the table, waits until Pinot no longer holds it, creates it anew, and proves the
 * new table consumes B.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { planDocument } from '../../src/provision/plan-format.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminEnv, pinotTable, startBackedGateway } from './backed-platform.js';
import type { StepRecord as Step } from '../../src/provision/steps/step-record.js';
import { changesThePlatform } from '../helpers/sandbox-http.js';

const kafka = inject('kafka');
const pinot = inject('pinot');
/** Names of its own, so this file neither needs nor disturbs the other files' tables. */
const TABLE = 'track_replace';
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startBackedGateway();
});
afterAll(() => sandbox?.close());

/** The topic Pinot's own table config reads. */
async function pinotTopic(): Promise<unknown> {
  const held = (await pinotTable(TABLE)).REALTIME as { tableIndexConfig?: { streamConfigs?: Record<string, string> } } | undefined;
  return held?.tableIndexConfig?.streamConfigs?.['stream.kafka.topic.name'];
}

/** Requests that could change the platform; the broker's row count is a query that reads. */
// What changes the platform: the broker's row count is a query, and the plan's validate calls are read-only.
const changing = () => sandbox.requestLog.of('gateway').filter((e) => changesThePlatform(e) && !e.path.endsWith('/query/sql'));

describe(`a topic change on Pinot ${pinot.version} forces a replacement`, () => {
  it('plans replace with the rows Pinot holds, is refused without --allow-replace with nothing sent, and with it re-makes the table, which consumes the new topic', async () => {
    const env = adminEnv(sandbox.gatewayUrl, { DPGW_STREAM_PASSWORD: kafka.streamPassword });
    const folder = env.DPGW_CONFIG_DIR!;
    writeFileSync(join(folder, 'schema.yaml'), readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8').replace(/^schemaName: track$/m, `schemaName: ${TABLE}`));
    const file = join(folder, 'provision.yaml');
    const manifest = (topic?: string) =>
      writeFileSync(file, `name: replace-e2e\ndataSets:\n  - datasource: mock-data-library\n    dataset: track\n    enablement: track-replace-a\n    groups: [track-readers]\n    schema: schema.yaml\n    table: { name: ${TABLE}${topic ? `, topic: ${topic}` : ''} }\n`);
    const provision = (args: string[]) => spawnDpgw(['provision', file, ...args], { env });

    // Topic B: the same data set enabled in another enablement.
    const enabled = await spawnDpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', 'track-readers', '--enablement', 'track-replace-b', '--json'], { env });
    expect(enabled.code, enabled.stderr).toBe(0);
    const topicB = JSON.parse(enabled.stdout).topic as string;
    expect(topicB).toMatch(/track-replace-b/);

    manifest();
    const made = await provision(['--json']);
    expect(made.code, made.stderr).toBe(0);
    const topicA = JSON.parse(made.stdout).dataSets[0].topic as string;
    expect(await pinotTopic()).toBe(topicA);
    expect(topicA).not.toBe(topicB);

    manifest(topicB);
    const changingBefore = changing().length;
    const planned = await provision(['--plan', '--json', '--detailed-exitcode']);
    expect(planned.code, planned.stderr).toBe(7);
    const document = JSON.parse(planned.stdout);
    expect(planDocument.safeParse(document).error).toBeUndefined();
    const plannedTable = (document.plan[0].steps as Step[]).find((s) => s.step === 'table')!;
    expect(plannedTable.action).toBe('replace');
    expect(plannedTable.reason).toContain('the stream topic (tableIndexConfig.streamConfigs["stream.kafka.topic.name"]) cannot change in place');
    // Pinot's broker answered the count.
    expect(plannedTable.reason).toMatch(/rows stored: [\d,]+, lost with the table/);
    expect(plannedTable.difference).toContain(`~ tableIndexConfig.streamConfigs["stream.kafka.topic.name"]: "${topicA}" → "${topicB}"`);

    const refused = await provision(['--json']);
    expect(refused.code, refused.stderr).toBe(2);
    const dataSet = JSON.parse(refused.stdout).dataSets[0];
    expect(dataSet.error).toMatchObject({ code: 'REPLACE_NEEDED', message: expect.stringContaining('nothing of this data set was sent') });
    expect(changing().length).toBe(changingBefore);
    expect(await pinotTopic()).toBe(topicA);

    const replaced = await provision(['--allow-replace', '--json']);
    expect(replaced.code, replaced.stderr).toBe(0);
    const steps = JSON.parse(replaced.stdout).dataSets[0].steps as Step[];
    expect(steps.find((s) => s.step === 'table')).toMatchObject({ action: 'replace', status: 'changed', reason: expect.stringMatching(/^table track_replace replaced: deleted \(the store no longer holds it \(after [\d.]+ s\)\) and created anew/) });
    expect(steps.find((s) => s.step === 'consume')).toMatchObject({ status: 'passed', reason: expect.stringContaining(`of topic ${topicB}`) });
    expect(await pinotTopic()).toBe(topicB);
    // The table only: Pinot still holds the schema.
    expect((await fetch(`${pinot.controller}/schemas/${TABLE}`)).status).toBe(200);

    const after = await provision(['--plan', '--json', '--detailed-exitcode']);
    expect(after.code, after.stderr).toBe(0);
  }, 300_000);
});
