/**
 * `dpgw table create` of a table the store holds, as `schema push` of a schema it holds: the
 * same request is settled (exit 0, one line, nothing sent), another is refused (exit 2) with
 * the difference and the way to apply it. The comparison comes before the stream and sample
 * checks: the sandbox's broker is stopped before each re-run, and `--stream-check require`
 * would fail on it, so a pass proves no broker was asked. The sandbox's request log proves
 * nothing was sent to the gateway.
 */
import { describe, expect, it } from 'vitest';
import { spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv, changesThePlatform } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';

const SCHEMA = 'examples/track/schema.yaml';
const CREATE = ['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--wait-consuming', '0'];
const sandboxes = sandboxPerTest({ topicDelayMs: 100 });

/** track enabled, its schema pushed and its table created; then the broker stopped, so a re-run that asks it fails. */
async function created() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const dpgw = (args: string[]) => spawnDpgw(args, { env: { ...env, DPGW_STREAM_CHECK: 'require' } });
  expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
  expect((await dpgw(['schema', 'push', SCHEMA])).code).toBe(0);
  const first = await dpgw(CREATE);
  expect(first.code, first.stderr).toBe(0);
  await sandbox.broker!.stop();
  const sentBefore = sandbox.requestLog.of('gateway').filter(changesThePlatform).length;
  const sentSince = () => sandbox.requestLog.of('gateway').filter(changesThePlatform).slice(sentBefore);
  return { sandbox, dpgw, sentSince };
}

describe('dpgw table create of a table the store holds', () => {
  it('the same request: exit 0, one line "matches the store", nothing sent, no broker asked', async () => {
    const { dpgw, sentSince } = await created();
    const again = await dpgw(CREATE);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('✓ table track matches the store; nothing was sent\n');
    expect(sentSince()).toEqual([]);
    const json = await dpgw([...CREATE, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ tableName: 'track', change: 'none', status: null });
    // --dry-run says the same, and would send nothing.
    const dry = await dpgw([...CREATE, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('table: table track matches the store');
    expect(dry.stdout).not.toContain('POST');
    expect(sentSince()).toEqual([]);
  });

  it("a table another manifest marked matches field for field: exit 0, nothing sent, and the line names its owner (its runs change it, its --prune deletes it)", async () => {
    const { sandbox, dpgw, sentSince } = await created();
    const held = sandbox.store.tables.get('track')!.definition;
    held.metadata = { customConfigs: { ...held.metadata?.customConfigs, 'dpgw.manifest': 'team-b', 'dpgw.manifest.named': 'true' } };
    const again = await dpgw(CREATE);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('✓ table track matches the store (it belongs to manifest team-b, whose runs change it and whose --prune deletes it); nothing was sent\n');
    expect(sentSince()).toEqual([]);
  });

  it('a field the store can update in place: exit 2, the difference, and provision as the way to apply it; nothing sent', async () => {
    const { dpgw, sentSince } = await created();
    const result = await dpgw([...CREATE, '--retention-days', '60']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('dpgw: table track exists and differs from this request: ~ segmentsConfig.retentionTimeValue: "7" → 60; nothing was sent');
    expect(result.stderr).toContain('dpgw provision with a manifest entry for its data set updates it in place');
    expect(result.stderr).toContain('another name with --name');
    expect(result.stderr).not.toContain('stream');
    const json = JSON.parse((await dpgw([...CREATE, '--retention-days', '60', '--json'])).stdout);
    expect(json.error).toMatchObject({ code: 'TABLE_DIFFERS', details: { difference: ['~ segmentsConfig.retentionTimeValue: "7" → 60'] } });
    const dry = await dpgw([...CREATE, '--retention-days', '60', '--dry-run']);
    expect(dry.code).toBe(2);
    expect(dry.stdout).toContain('table: refused: table track exists and differs from this request');
    expect(dry.stdout).not.toContain('POST');
    expect(sentSince()).toEqual([]);
  });

  it('a field that forces a replacement (the topic): exit 2, naming the field, docs/replacement.md and --adopt --allow-replace; nothing sent', async () => {
    const { dpgw, sentSince } = await created();
    const result = await dpgw([...CREATE, '--topic', 'mock-data-library.track.other']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('~ tableIndexConfig.streamConfigs["stream.mq.topic.name"]: "mock-data-library.track.track" → "mock-data-library.track.other"');
    expect(result.stderr).toMatch(/the stream topic \(.*\) cannot change in place \(docs\/replacement\.md\): dpgw provision --adopt --allow-replace with a manifest entry for its data set replaces it, losing its rows/);
    expect(sentSince()).toEqual([]);
  });
});
