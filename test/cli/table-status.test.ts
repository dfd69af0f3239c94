/**
 * `dpgw table status NAME` on the sandbox, as a user runs it: a table that consumes every
 * partition (exit 0), a lagging partition and a segment in ERROR with the server's reason
 * (exit 6), an unknown table (exit 9), --json, --watch until Ctrl-C, and a gateway that does
 * not pass one of the store's reads on.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { atTerminal, CTRL_C, screen } from '../helpers/at-terminal.js';
import { BIN, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const SCHEMA = 'examples/track/schema.yaml';
const TOPIC = 'mock-data-library.track.track';
const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

/** A sandbox with the track table created and consuming: 200 messages over three partitions. */
async function setUp() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const dpgw = (args: string[], extra: NodeJS.ProcessEnv = {}) => spawnDpgw(args, { env: { ...env, ...extra } });
  expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
  expect((await dpgw(['schema', 'push', SCHEMA])).code).toBe(0);
  const created = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA]);
  expect(created.code, created.stderr).toBe(0);
  const held = sandbox.store.stream!.partitions(TOPIC)!;
  return { sandbox, env, dpgw, held };
}

describe('dpgw table status', () => {
  it('a table that consumes every partition: exit 0, each partition consuming with the offset reached, the latest offset and no lag; the rows stored', async () => {
    const { dpgw, held } = await setUp();
    const result = await dpgw(['table', 'status', 'track']);
    expect(result.code, result.stderr).toBe(0);
    const total = held.reduce((sum, n) => sum + n, 0);
    expect(total).toBe(200);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`table track, topic ${TOPIC}: consuming 3 of 3 partitions; 200 rows stored`);
    expect(lines[1]).toMatch(/^PARTITION +CONSUMING +STATE +ROWS +OFFSET +LATEST +LAG$/);
    expect(lines.slice(2).map((line) => line.split(/ +/))).toEqual(held.map((count, partition) => [String(partition), 'yes', 'CONSUMING', String(count), String(count), String(count), '0']));
    expect(lines).toHaveLength(5);
  });

  it('a lagging partition and a segment in ERROR with its reason: exit 6, the lag in messages and the store\'s words, escaped', async () => {
    const { sandbox, dpgw, held } = await setUp();
    sandbox.store.partitionTrouble.set(
      'track',
      new Map([
        [1, { behind: 40 }],
        [2, { error: 'Caught exception while transitioning from OFFLINE to CONSUMING: java.lang.IllegalStateException: decoder failed\u001b[2J' }],
      ]),
    );
    const result = await dpgw(['table', 'status', 'track']);
    expect(result.code, result.stderr).toBe(6);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`table track, topic ${TOPIC}: consuming 2 of 3 partitions, the store reports errors; ${held[0]! + held[1]! - 40} rows stored`);
    const [zero, one, two] = lines.slice(2, 5).map((line) => line.split(/ +/));
    expect(zero).toEqual(['0', 'yes', 'CONSUMING', String(held[0]), String(held[0]), String(held[0]), '0']);
    expect(one).toEqual(['1', 'yes', 'CONSUMING', String(held[1]! - 40), String(held[1]! - 40), String(held[1]), '40']);
    expect(two).toEqual(['2', 'no', 'ERROR', '0', '-', String(held[2]), '-']);
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^error: partition 2: track__2__0__\d{8}T\d{4}Z on Server_127\.0\.0\.1_7000: Caught exception while transitioning from OFFLINE to CONSUMING: java\.lang\.IllegalStateException: decoder failed\\u001b\[2J$/)]));
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^error: table: Did not get any response from servers for segment: track__2__0__/)]));
    expect(result.stdout).not.toContain('\u001b');
  });

  it('an unknown table is exit 9 with one line', async () => {
    const { dpgw } = await setUp();
    const result = await dpgw(['table', 'status', 'no_such_table']);
    expect(result.code).toBe(9);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^dpgw: .*\/api\/internal\/olap\/tables\/no_such_table: the analytics store has no table "no_such_table" — /)]);
    const json = await dpgw(['table', 'status', 'no_such_table', '--json']);
    expect(json.code).toBe(9);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'TABLE_NOT_FOUND', exitCode: 9 } });
  });

  it('--json is one document: the verdict, each partition with its offsets and lag, the rows, the errors and what is unknown', async () => {
    const { sandbox, dpgw, held } = await setUp();
    const consuming = await dpgw(['table', 'status', 'track', '--json']);
    expect(consuming.code, consuming.stderr).toBe(0);
    expect(JSON.parse(consuming.stdout)).toEqual({
      table: 'track',
      topic: TOPIC,
      verdict: 'consuming',
      rows: 200,
      partitions: held.map((count, partition) => ({ partition, consuming: true, segment: expect.stringMatching(new RegExp(`^track__${partition}__0__`)), state: 'CONSUMING', rows: count, offset: String(count), latestOffset: String(count), lag: '0', errors: [] })),
      tableErrors: [],
      unknown: [],
      pause: { paused: false, consumingSegments: 3 },
      diagnosis: [],
    });
    sandbox.store.partitionTrouble.set('track', new Map([[0, { behind: 5 }]]));
    const lagging = JSON.parse((await dpgw(['table', 'status', 'track', '--json'])).stdout);
    // A lag alone is no error: the partition consumes, it is behind.
    expect(lagging).toMatchObject({ verdict: 'consuming', partitions: [{ partition: 0, consuming: true, lag: '5' }, { lag: '0' }, { lag: '0' }] });
    sandbox.store.partitionTrouble.set('track', new Map([[1, { error: 'boom' }]]));
    const failing = await dpgw(['table', 'status', 'track', '--json']);
    expect(failing.code).toBe(6);
    expect(JSON.parse(failing.stdout)).toMatchObject({ verdict: 'not-consuming', code: 'TABLE_NOT_CONSUMING', partitions: [{ consuming: true }, { consuming: false, state: 'ERROR', errors: [expect.stringMatching(/: boom$/)] }, { consuming: true }] });
  });

  it('--watch reads again until Ctrl-C, then exits 130 as health --watch does', async () => {
    const { env } = await setUp();
    const child = spawn(process.execPath, [BIN, 'table', 'status', 'track', '--watch', '1'], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    const twoReads = new Promise<void>((resolve) => child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      if ((stdout.match(/Ctrl-C stops/g) ?? []).length >= 2) resolve();
    }));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await twoReads;
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const blocks = stdout.split(/^read \S+; every 1 s, Ctrl-C stops$/m).filter((b) => b.trim() !== '');
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks.slice(0, 2)) expect(block.trim().split('\n')[0]).toBe(`table track, topic ${TOPIC}: consuming 3 of 3 partitions; 200 rows stored`);
  });

  it('--watch at a terminal refreshes in place, until Ctrl-C (exit 130)', async () => {
    const { env } = await setUp();
    const result = await atTerminal(['table', 'status', 'track', '--watch', '1'], { env, when: 'Ctrl-C stops', keys: CTRL_C });
    expect(result.code, screen(result.stdout)).toBe(130);
    // The screen is cleared before each read: what shows is one block, the table's.
    expect(result.stdout).toContain('\u001b[H\u001b[2J');
    expect(screen(result.stdout)).toContain(`table track, topic ${TOPIC}: consuming 3 of 3 partitions; 200 rows stored`);
  });

  it('a gateway that does not pass a read on: the rest is shown, and what is unknown says which read and what the gateway answered', async () => {
    const { sandbox, dpgw, held } = await setUp();
    sandbox.faults.update({ failures: [{ method: 'GET', path: '/api/internal/olap/debug/*', status: 404, times: 100 }, { method: 'POST', path: '/api/internal/olap/query/sql', status: 405, times: 100 }] });
    const result = await dpgw(['table', 'status', 'track']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`table track, topic ${TOPIC}: consuming 3 of 3 partitions; rows unknown`);
    expect(lines.slice(2, 5).map((line) => line.split(/ +/).slice(3))).toEqual(held.map((count) => ['-', String(count), String(count), '0']));
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^unknown: rows: POST http:\/\/127\.0\.0\.1:\d+\/api\/internal\/olap\/query\/sql answered 405: /)]));
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^unknown: segment errors: GET http:\/\/127\.0\.0\.1:\d+\/api\/internal\/olap\/debug\/tables\/track answered 404: /)]));
    expect(held).toHaveLength(3);

    // Neither the consuming segments nor the segment states: nothing tells whether it consumes (exit 3).
    sandbox.faults.update({ failures: [{ method: 'GET', path: '/api/internal/olap/tables/track/consumingSegmentsInfo', status: 404, times: 100 }, { method: 'GET', path: '/api/internal/olap/tables/track/externalview', status: 501, times: 100 }] });
    const blind = await dpgw(['table', 'status', 'track', '--json']);
    expect(blind.code).toBe(3);
    const document = JSON.parse(blind.stdout);
    expect(document).toMatchObject({ verdict: 'unknown', code: 'STORE_READS_NOT_EXPOSED' });
    expect(document.unknown.map((u: { read: string }) => u.read)).toEqual(['consuming segments', 'segment states']);
    // The latest offsets are still the topic's, from the brokers.
    expect(document.partitions.map((p: { latestOffset: string }) => p.latestOffset)).toEqual(held.map(String));
  });

  it('latest offsets unknown without the stream password, or with --stream-check off; the rest is shown', async () => {
    const { dpgw } = await setUp();
    const noPassword = await dpgw(['table', 'status', 'track'], { DPGW_STREAM_PASSWORD: '' });
    expect(noPassword.code, noPassword.stderr).toBe(0);
    expect(noPassword.stdout).toContain('unknown: latest offsets: no stream password for stream user dpgw-stream: set DPGW_STREAM_PASSWORD or --stream-password');
    const off = await dpgw(['table', 'status', 'track', '--stream-check', 'off', '--json']);
    // Only the brokers the run names: the table's own list (which the store's answer carries) is not asked.
    const noBrokers = await dpgw(['table', 'status', 'track'], { DPGW_BROKER_LIST: '' });
    expect(noBrokers.code, noBrokers.stderr).toBe(0);
    expect(noBrokers.stdout).toContain('unknown: latest offsets: no broker list: set --broker-list (dpgw asks only the brokers the run names, not those of the table the store holds)');
    // Brokers out of reach from here: unknown under auto (the default), an error under require.
    const away = await dpgw(['table', 'status', 'track', '--broker-list', '127.0.0.1:1']);
    expect(away.code, away.stderr).toBe(0);
    expect(away.stdout).toMatch(/^unknown: latest offsets: the broker cannot be reached from here \(127\.0\.0\.1:1: connection refused \(ECONNREFUSED\)\)$/m);
    const required = await dpgw(['table', 'status', 'track', '--broker-list', '127.0.0.1:1', '--stream-check', 'require', '--timeout', '5']);
    expect(required.code).toBe(5);
    expect(required.stderr).toMatch(/^dpgw: 127\.0\.0\.1:1: cannot read from the brokers: /m);
    const document = JSON.parse(off.stdout);
    expect(document).toMatchObject({ verdict: 'consuming', unknown: [{ read: 'latest offsets', why: 'not asked (--stream-check off)' }] });
    for (const partition of document.partitions) expect(Object.keys(partition)).not.toEqual(expect.arrayContaining(['latestOffset']));
    expect(document.partitions.map((p: { lag?: string }) => p.lag)).toEqual([undefined, undefined, undefined]);
  });

  it('the examples of docs/tables.md, "table status", run as written: each command with its exit code, each shown output as printed', async () => {
    const { dpgw } = await setUp();
    const page = readFileSync(join(ROOT, 'docs/tables.md'), 'utf8');
    const section = page.slice(page.indexOf('\n## table status\n'));
    const blocks = [...section.matchAll(/^```(sh|console)\n([\s\S]*?)^```$/gm)].map((m) => ({ kind: m[1]!, text: m[2]! }));
    // The section's last line deletes track_unreachable again, after the output shown for it: not run here.
    const commands = blocks.filter((b) => b.kind === 'sh').flatMap((b) => b.text.trimEnd().split('\n')).filter((line) => !line.startsWith('dpgw table delete '));
    expect(commands.length).toBeGreaterThanOrEqual(3);
    for (const line of commands) {
      const [command, comment = ''] = line.split(/\s+#\s*/);
      // --watch runs until Ctrl-C: the test above runs it.
      if (command!.includes('--watch')) continue;
      const result = await dpgw(command!.trim().split(/\s+/).slice(1));
      expect(result.code, `${line}\n${result.stderr}`).toBe(Number(/exit (\d+)/.exec(comment)?.[1] ?? 0));
    }
    const shown = blocks.filter((b) => b.kind === 'console');
    expect(shown).toHaveLength(2);
    // Segment names carry the minute the table was made.
    const minute = (text: string) => text.replace(/__\d{8}T\d{4}Z/g, '__<time>');
    for (const { text } of shown) {
      const [first, ...output] = text.split('\n');
      const result = await dpgw(first!.replace(/^\$ dpgw /, '').replace(/\s+#.*$/, '').split(/\s+/));
      expect(minute(result.stdout)).toBe(minute(output.join('\n')));
    }
    // The output shown for a lagging partition and a segment in ERROR is what the sandbox's store then answers.
    const [troubled] = [...section.matchAll(/^```text\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    sandboxes.current().store.partitionTrouble.set('track', new Map([[1, { behind: 40 }], [2, { error: 'Caught exception while transitioning from OFFLINE to CONSUMING' }]]));
    const result = await dpgw(['table', 'status', 'track']);
    expect(result.code).toBe(6);
    expect(minute(result.stdout)).toBe(minute(troubled!));
  });
});
