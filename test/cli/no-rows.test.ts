/**
 * Why a table has no rows (issue #47 §4), as a user meets it on the sandbox: `dpgw table status`
 * ends with one diagnosis line each — paused, lost to retention, the decoder dropping messages
 * (with the sample's reason), no partition consumed, brokers the store cannot reach — with its
 * numbers and the next step, exit 6; a failed consumption check of `table create` ends with the
 * same; `dpgw table pause|resume` ask at a terminal, need --yes in scripts, and have --dry-run.
 */
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { atTerminal, screen } from '../helpers/at-terminal.js';
import { spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const SCHEMA = 'examples/track/schema.yaml';
const TOPIC = 'mock-data-library.track.track';
const TOPIC_RE = TOPIC.replace(/\./g, '\\.');
const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

/** A sandbox with the track table created and consuming: 200 messages over three partitions. */
async function setUp() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const dpgw = (args: string[]) => spawnDpgw(args, { env });
  expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
  expect((await dpgw(['schema', 'push', SCHEMA])).code).toBe(0);
  const created = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA]);
  expect(created.code, created.stderr).toBe(0);
  const held = sandbox.store.stream!.partitions(TOPIC)!;
  const posts = (suffix: string) => sandbox.requestLog.of('gateway').filter((e) => e.method === 'POST' && e.path.endsWith(suffix));
  return { sandbox, env, dpgw, held, posts };
}

const diagnosis = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('diagnosis: '));

describe('dpgw table status: why a table has no rows', () => {
  it('a table that consumes and stores every message: exit 0, no diagnosis', async () => {
    const { dpgw } = await setUp();
    const result = await dpgw(['table', 'status', 'track']);
    expect(result.code, result.stderr).toBe(0);
    expect(diagnosis(result.stdout)).toEqual([]);
    expect(JSON.parse((await dpgw(['table', 'status', 'track', '--json'])).stdout)).toMatchObject({ verdict: 'consuming', pause: { paused: false }, diagnosis: [] });
  });

  it('messages that are not JSON: offsets pass them, rows do not come; the sample says why and the next step, exit 6', async () => {
    const { sandbox, dpgw, held } = await setUp();
    sandbox.broker!.produce(TOPIC, Array.from({ length: 6 }, (_, i) => ({ value: `hello ${i}` })));
    const result = await dpgw(['table', 'status', 'track']);
    expect(result.code, result.stderr).toBe(6);
    const passed = held.map((count, partition) => `partition ${partition}: ${count + 2} messages passed, ${count} rows stored`).join('; ');
    expect(diagnosis(result.stdout)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^diagnosis: the store's decoder drops messages of table track \\(${passed}; [1-6] of \\d+ sampled messages are not JSON objects \\(${TOPIC_RE}/\\d@\\d+: not JSON \\(.*\\)\\)\\); next: have the producers send one JSON object a message, or give table track the decoder of their format \\(the decoder\\.class\\.name key of its streamConfigs\\)$`,
        ),
      ),
    ]);
    const json = await dpgw(['table', 'status', 'track', '--json']);
    expect(json.code).toBe(6);
    expect(JSON.parse(json.stdout)).toMatchObject({ verdict: 'consuming', code: 'TABLE_ROWS_LOST', diagnosis: [{ finding: 'decoder-drops', partitions: [0, 1, 2], what: "the store's decoder drops messages of table track" }] });
  });

  it("messages with a schema registry's framing: the magic byte 0 and the schema id, and the decoder to give the table", async () => {
    const { sandbox, dpgw } = await setUp();
    sandbox.broker!.produce(TOPIC, [{ key: 'k', value: '\u0000\u0000\u0000\u0000\u0007{"id":1}' }]);
    const result = await dpgw(['table', 'status', 'track']);
    expect(result.code, result.stderr).toBe(6);
    expect(diagnosis(result.stdout)).toEqual([
      expect.stringMatching(/^diagnosis: the store's decoder drops messages of table track \(partition \d: \d+ messages passed, \d+ rows stored; 1 of \d+ sampled messages begin with the magic byte 0 of a schema registry's encoding \(.*@\d+: schema-registry framing \(schema id 7\): dpgw reads plain JSON messages\)\); next: the table's JSON decoder cannot read them: give table track the decoder of that encoding/),
    ]);
  });

  it('rows lost to retention: the topic\'s earliest offset past the store\'s next one, in numbers; pause and resume --consume-from smallest mend it', async () => {
    const { sandbox, dpgw, held, posts } = await setUp();
    sandbox.store.partitionTrouble.set('track', new Map([[1, { behind: 40 }]]));
    sandbox.broker!.deleteRecords(TOPIC, 1, held[1]! - 10);
    const result = await dpgw(['table', 'status', 'track']);
    expect(result.code, result.stderr).toBe(6);
    expect(diagnosis(result.stdout)).toEqual([
      `diagnosis: rows of table track lost to the topic's retention (partition 1: the store's next offset ${held[1]! - 40}, the topic's earliest ${held[1]! - 10}, 30 messages gone); next: dpgw table pause track, then dpgw table resume track --consume-from smallest (the store starts again at the earliest offset the topic holds; the messages before it are gone), and keep the topic's retention longer than a partition may stall`,
    ]);
    expect(JSON.parse((await dpgw(['table', 'status', 'track', '--json'])).stdout)).toMatchObject({ code: 'TABLE_ROWS_LOST', diagnosis: [{ finding: 'lost-to-retention', partitions: [1] }] });

    expect((await dpgw(['table', 'pause', 'track', '--yes'])).code).toBe(0);
    const resumed = await dpgw(['table', 'resume', 'track', '--yes', '--consume-from', 'smallest']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('✓ resumed the consumption of table track: the store makes a consuming segment for each partition and consumes again, from the earliest offset the topic holds');
    expect(posts('/resumeConsumption').map((e) => e.query)).toEqual([{ consumeFrom: 'smallest' }]);
    const mended = await dpgw(['table', 'status', 'track']);
    expect(mended.code, mended.stdout).toBe(0);
    expect(diagnosis(mended.stdout)).toEqual([]);
  });

  it('no partition consumed: the store\'s own words, the count and the next step', async () => {
    const { sandbox, dpgw } = await setUp();
    const broken = 'Caught exception while transitioning from OFFLINE to CONSUMING: java.lang.IllegalStateException: no decoder';
    sandbox.store.partitionTrouble.set('track', new Map([0, 1, 2].map((p) => [p, { error: broken }])));
    const result = await dpgw(['table', 'status', 'track']);
    expect(result.code).toBe(6);
    expect(diagnosis(result.stdout)).toEqual([
      expect.stringMatching(
        /^diagnosis: no partition of table track is consumed \(0 of 3 partitions consume; the store says: Did not get any response from servers for segment: track__0__0__\w+; track__0__0__\w+ on Server_127\.0\.0\.1_7000: Caught exception while transitioning from OFFLINE to CONSUMING: java\.lang\.IllegalStateException: no decoder; .*; and \d+ more\); next: check the stream settings the table carries \(dpgw table get track\), then the store's server log for the segments named$/,
      ),
    ]);
  });

  it('brokers the store cannot reach: its words, and dpgw\'s own reach said beside them; table create\'s failed consumption check ends with the same diagnosis', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const dpgw = (args: string[]) => spawnDpgw(args, { env });
    expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
    expect((await dpgw(['schema', 'push', SCHEMA])).code).toBe(0);
    // The table names brokers of another network: dpgw does not check them (--no-stream-check), the store cannot reach them.
    const created = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--broker-list', 'kafka-0.stream.internal:9092', '--no-stream-check', '--wait-consuming', '1']);
    // Exit 6, as table status's: the table exists and is unhealthy (issue #47 §4).
    expect(created.code).toBe(6);
    const unreachable = `the store cannot reach the brokers of table track \\(the store says: track__0__0__\\w+ on Server_127\\.0\\.0\\.1_7000: Exception while in work: org\\.apache\\.kafka\\.common\\.errors\\.TimeoutException: Timeout expired while fetching topic metadata \\(and 2 more like it\\); `;
    expect(created.stderr.split('\n').filter((line) => line.startsWith('dpgw:'))).toEqual([
      expect.stringMatching(new RegExp(`^dpgw: table track was created but does not consume topic ${TOPIC_RE}: consuming 0 of 3 partitions after 1 s: .* — diagnosis: ${unreachable}dpgw did not read the topic from here either \\(not read by the consumption check\\)\\); next: check the broker list the table carries`)),
    ]);
    expect(JSON.parse((await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--name', 'track_b', '--broker-list', 'kafka-0.stream.internal:9092', '--no-stream-check', '--wait-consuming', '1', '--json'])).stdout)).toMatchObject({
      error: { code: 'NOT_CONSUMING', details: { diagnosis: [{ finding: 'brokers-unreachable-from-store' }] } },
    });

    // table status reads the topic from here (--broker-list is the sandbox's own): said so, and the store's failure is still the finding.
    const status = await dpgw(['table', 'status', 'track']);
    expect(status.code).toBe(6);
    expect(diagnosis(status.stdout)).toEqual([expect.stringMatching(new RegExp(`^diagnosis: ${unreachable}from here dpgw read the topic's offsets \\(--broker-list\\): the way from the store to the brokers is what fails\\); next: `))]);
  });
});

describe('dpgw table pause and resume', () => {
  it('resume waits until the pause has committed its consuming segments (Pinot 0.11 resumed before that left partitions without one), then resumes', async () => {
    const { sandbox, dpgw, posts } = await setUp();
    expect((await dpgw(['table', 'pause', 'track', '--yes'])).code).toBe(0);
    // The store says twice that the pause is still committing a segment, then that it is done.
    const committing = { pauseFlag: true, consumingSegments: ['track__0__0__20261127T0000Z'] };
    sandbox.faults.update({ failures: [{ method: 'GET', path: '/api/internal/olap/tables/track/pauseStatus', status: 200, body: committing, times: 2 }] });
    sandbox.requestLog.clear();
    const resumed = await dpgw(['table', 'resume', 'track', '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const asked = sandbox.requestLog.of('gateway', '/api/internal/olap/tables/track/').map((e) => `${e.method} ${e.path.slice('/api/internal/olap/tables/track/'.length)}`);
    expect(asked).toEqual(['GET pauseStatus', 'GET pauseStatus', 'GET pauseStatus', 'POST resumeConsumption']);
    expect(posts('/resumeConsumption')).toHaveLength(1);
  });

  it('paused: status says so with the next step (exit 6); resumed: consuming again (exit 0)', async () => {
    const { dpgw, posts } = await setUp();
    const paused = await dpgw(['table', 'pause', 'track', '--yes']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stderr).toContain('✓ paused the consumption of table track: the store commits its consuming segments and consumes nothing until resumed');
    expect(paused.stderr).toContain('dpgw table resume track');
    expect(posts('/pauseConsumption')).toHaveLength(1);
    const status = await dpgw(['table', 'status', 'track']);
    expect(status.code).toBe(6);
    expect(diagnosis(status.stdout)).toEqual(["diagnosis: consumption of table track is paused (the store's pauseStatus: pauseFlag true, no segment consuming); next: dpgw table resume track"]);
    expect(JSON.parse((await dpgw(['table', 'status', 'track', '--json'])).stdout)).toMatchObject({ verdict: 'not-consuming', pause: { paused: true, consumingSegments: 0 }, diagnosis: [{ finding: 'paused', next: 'dpgw table resume track' }] });

    const resumed = await dpgw(['table', 'resume', 'track', '--yes', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ table: 'track', change: 'resume', request: { method: 'POST', path: '/api/internal/olap/tables/track/resumeConsumption' }, status: 200, response: { pauseFlag: false } });
    expect(posts('/resumeConsumption').map((e) => e.query)).toEqual([{}]);
    const again = await dpgw(['table', 'status', 'track']);
    expect(again.code, again.stdout).toBe(0);
    expect(diagnosis(again.stdout)).toEqual([]);
  });

  it('without a terminal and without --yes: exit 2, one line, nothing sent; --dry-run prints the POST and sends nothing', async () => {
    const { dpgw, posts } = await setUp();
    for (const change of ['pause', 'resume']) {
      const refused = await dpgw(['table', change, 'track']);
      expect(refused.code).toBe(2);
      expect(refused.stderr.trimEnd().split('\n')).toEqual([`dpgw: --yes: ${change === 'pause' ? 'pausing' : 'resuming'} the consumption of table track needs confirmation, and there is no terminal to ask on; nothing was sent — pass --yes to go ahead without asking: dpgw table ${change} track --yes`]);
      const json = JSON.parse((await dpgw(['table', change, 'track', '--json'])).stdout);
      expect(json).toMatchObject({ error: { code: 'CONFIRMATION_REQUIRED', exitCode: 2 } });
    }
    const dry = await dpgw(['table', 'resume', 'track', '--dry-run', '--consume-from', 'largest']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('POST /api/internal/olap/tables/track/resumeConsumption?consumeFrom=largest');
    expect(dry.stdout).toContain('dry run: nothing was sent');
    const missing = await dpgw(['table', 'pause', 'no_such_table', '--dry-run']);
    expect(missing.code).toBe(9);
    expect(posts('/pauseConsumption')).toEqual([]);
    expect(posts('/resumeConsumption')).toEqual([]);
  });

  it('at a terminal: asked first; no is exit 2 and nothing sent, yes pauses', async () => {
    const { env, posts } = await setUp();
    const no = await atTerminal(['table', 'pause', 'track'], { env, when: 'Pause the consumption of table track?', keys: 'n\\r' });
    expect(no.code, screen(no.stdout)).toBe(2);
    expect(screen(no.stdout)).toContain('the pause of table track was not confirmed; nothing was sent');
    expect(posts('/pauseConsumption')).toEqual([]);
    const yes = await atTerminal(['table', 'pause', 'track'], { env, when: 'Pause the consumption of table track?', keys: 'y\\r' });
    expect(yes.code, screen(yes.stdout)).toBe(0);
    expect(posts('/pauseConsumption')).toHaveLength(1);
  });

  it('resume --consume-from at a terminal: the question says what the offset given loses (largest: the messages skipped) or repeats (smallest)', async () => {
    const { env, posts } = await setUp();
    const largest = await atTerminal(['table', 'resume', 'track', '--consume-from', 'largest'], { env, when: 'Resume the consumption of table track', keys: 'n\\r' });
    expect(largest.code, screen(largest.stdout)).toBe(2);
    expect(screen(largest.stdout).replace(/\s+/g, ' ')).toContain("from the topic's latest offset: the messages after the offsets the store holds, up to the latest, are skipped and never stored");
    const smallest = await atTerminal(['table', 'resume', 'track', '--consume-from', 'smallest'], { env, when: 'Resume the consumption of table track', keys: 'n\\r' });
    expect(smallest.code, screen(smallest.stdout)).toBe(2);
    expect(screen(smallest.stdout).replace(/\s+/g, ' ')).toContain('from the earliest offset the topic holds: the messages it stored already are stored again');
    expect(posts('/resumeConsumption')).toEqual([]);
  });

  it('a table the store does not hold is exit 9; a gateway without the passthrough is exit 3, one line with the call an operator would send', async () => {
    const { sandbox, dpgw } = await setUp();
    const missing = await dpgw(['table', 'pause', 'no_such_table', '--yes']);
    expect(missing.code).toBe(9);
    expect(missing.stderr).toContain('Table no_such_table_REALTIME not found!');
    sandbox.faults.update({ failures: [{ method: 'POST', path: '/api/internal/olap/tables/track/pauseConsumption', status: 404, body: { status: 404, error: 'Not Found', message: 'No endpoint', path: '/api/internal/olap/tables/track/pauseConsumption' }, times: 5 }] });
    const bare = await dpgw(['table', 'pause', 'track', '--yes']);
    expect(bare.code).toBe(3);
    expect(bare.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^dpgw: the gateway does not pass the store's pause of consumption on \(POST http:\/\/127\.0\.0\.1:\d+\/api\/internal\/olap\/tables\/track\/pauseConsumption answered 404: No endpoint\); nothing changed — ask the platform team to pass it on, or an operator to send the store controller's POST \/tables\/track\/pauseConsumption$/),
    ]);
    expect(JSON.parse((await dpgw(['table', 'pause', 'track', '--yes', '--json'])).stdout)).toMatchObject({ error: { code: 'STORE_CONSUMPTION_NOT_EXPOSED', exitCode: 3 } });
  });
});
