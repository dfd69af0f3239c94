/**
 * The stream end to end on the sandbox, as a user meets it: the stream pre-flight before
 * a table (table create and provision), and the proof after it that the store consumes
 * every partition — or the first error the store reports.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const SCHEMA = 'examples/track/schema.yaml';
const TOPIC = 'mock-data-library.track.track';
const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

async function setUp(options: SandboxOptions = {}) {
  const sandbox = await sandboxes.start(options);
  const env = await adminPipelineEnv(sandbox);
  const dpgw = (args: string[], extra: NodeJS.ProcessEnv = {}) => spawnDpgw(args, { env: { ...env, ...extra } });
  const tablePosts = () => sandbox.requestLog.of('gateway').filter((e) => e.method === 'POST' && e.path === '/api/internal/olap/tables');
  const mutations = () => sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET');
  const ready = async () => {
    expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
    expect((await dpgw(['schema', 'push', SCHEMA])).code).toBe(0);
  };
  const manifest = (text: string) => {
    const file = join(env.DPGW_CONFIG_DIR!, 'provision.yaml');
    writeFileSync(file, text);
    return file;
  };
  return { sandbox, env, dpgw, tablePosts, mutations, ready, manifest };
}

const errorLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('dpgw:'));

describe('dpgw table create: the stream pre-flight', () => {
  it('a wrong stream password is refused before the table, with exit 4 and nothing sent; the right one makes a table that consumes', async () => {
    const { sandbox, dpgw, tablePosts, ready } = await setUp();
    await ready();
    const refused = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA], { DPGW_STREAM_PASSWORD: 'not-the-stream-password' });
    expect(refused.code).toBe(4);
    expect(errorLines(refused.stderr)).toEqual([
      `dpgw: ${sandbox.stream.brokerList}: table track would never consume: the brokers refused stream user dpgw-stream (SASL SCRAM-SHA-512) — check --stream-user and the stream password (--stream-password or DPGW_STREAM_PASSWORD); the table was not sent; where dpgw cannot reach the brokers the store reaches, pass --stream-check off`,
    ]);
    expect(refused.stdout + refused.stderr).not.toContain('not-the-stream-password');
    expect(tablePosts()).toHaveLength(0);
    expect(sandbox.broker!.refusals).toEqual(['wrong password']);

    const created = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--json']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ tableName: 'track', topic: TOPIC, stream: { checked: true, partitions: 3 }, consumption: { state: 'consuming', consuming: 3, partitions: 3 } });
    // Each partition's offset is what the topic holds: 200 messages over three partitions.
    const offsets = JSON.parse(created.stdout).consumption.offsets as Record<string, string>;
    expect(Object.keys(offsets).sort()).toEqual(['0', '1', '2']);
    expect(Object.values(offsets).reduce((sum, n) => sum + Number(n), 0)).toBe(200);
    expect(tablePosts()).toHaveLength(1);
  });

  it('an unknown topic (exit 1) and, with --stream-check require, unreachable brokers (exit 5) are one line each, before the table', async () => {
    const { dpgw, tablePosts, ready } = await setUp();
    await ready();
    const missing = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--topic', 'no.such.topic']);
    expect(missing.code).toBe(1);
    expect(errorLines(missing.stderr)).toEqual([expect.stringMatching(/: table track would never consume: topic no\.such\.topic does not exist on the brokers — .*the table was not sent/)]);
    // The topic came from --topic: the hint points at that name, not at passing --topic again.
    expect(missing.stderr).toContain("check the topic's name: the data set's topic label (dpgw enable waits for it), or the one given with --topic");
    const unreachable = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--broker-list', '127.0.0.1:1', '--timeout', '5', '--stream-check', 'require']);
    expect(unreachable.code).toBe(5);
    expect(errorLines(unreachable.stderr)).toEqual([expect.stringMatching(/^dpgw: 127\.0\.0\.1:1: table track would never consume: cannot read from the brokers: Connection to 127\.0\.0\.1:1 failed/)]);
    expect(tablePosts()).toHaveLength(0);
  });

  it('--no-stream-check says so; a table whose brokers the store cannot reach is created and reported as not consuming (exit 6), the diagnosis saying why', async () => {
    const { dpgw, tablePosts, ready } = await setUp();
    await ready();
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--broker-list', 'kafka-0.stream.internal:9092', '--no-stream-check', '--wait-consuming', '2']);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(`warning: stream not checked (--stream-check off): nothing tells whether the store can consume topic ${TOPIC} before the table is sent`);
    expect(result.stderr).toContain(`✓ table track created for topic ${TOPIC}`);
    expect(errorLines(result.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^dpgw: table track was created but does not consume topic ${TOPIC.replace(/\./g, '\\.')}: consuming 0 of 3 partitions after 2 s: partition 0: NOT_CONSUMING on Server_127\\.0\\.0\\.1_7000 — diagnosis: the store cannot reach the brokers of table track \\(the store says: `)),
    ]);
    expect(tablePosts()).toHaveLength(1);
  });

  it('a gateway without the consuming-segments read: "consumption not checked", never "consuming"; --wait-consuming 0 asks nothing', async () => {
    const { sandbox, dpgw, ready } = await setUp({ faults: { failures: [{ method: 'GET', path: '/api/internal/olap/tables/*', status: 404, times: 100 }] } });
    await ready();
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/warning: table track: consumption not checked: the gateway does not pass on the store's consuming segments \(404/);
    expect(result.stderr).not.toContain('is consuming');
    const asked = () => sandbox.requestLog.of('gateway').filter((e) => e.path.endsWith('/consumingSegmentsInfo')).length;
    const before = asked();
    const quiet = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--name', 'track_quiet', '--wait-consuming', '0', '--json']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(JSON.parse(quiet.stdout).consumption).toEqual({ state: 'not-checked', why: 'not asked (--wait-consuming 0)' });
    expect(asked()).toBe(before);
  });
});

describe('--stream-check auto, require, off: brokers out of reach from here', () => {
  /** The table names the broker as the store's servers do inside the platform: the sandbox's store reaches it, dpgw cannot resolve it. */
  const inCluster = (sandbox: { inClusterBrokerList?: string }) => ({ DPGW_BROKER_LIST: sandbox.inClusterBrokerList! });
  const skippedWarning = /^warning: stream pre-flight skipped: the broker cannot be reached from here \(mq-bootstrap\.sandbox\.invalid:9092: mq-bootstrap\.sandbox\.invalid does not resolve \((ENOTFOUND|EAI_AGAIN)\)\); (the table is sent, and the consumption check after it|tables are sent, and the consumption check after each) proves the stream \(--stream-check require makes this an error\)$/m;

  it('auto (the default): one warning says the pre-flight was skipped and why; the table is created and proven consuming', async () => {
    const { sandbox, dpgw, tablePosts, ready } = await setUp();
    await ready();
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--json'], inCluster(sandbox));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(skippedWarning);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('warning:'))).toHaveLength(1);
    const data = JSON.parse(result.stdout);
    expect(data.stream).toEqual({ checked: false, skipped: expect.stringMatching(/^the broker cannot be reached from here/) });
    expect(data.consumption).toMatchObject({ state: 'consuming', consuming: 3, partitions: 3 });
    expect(tablePosts()).toHaveLength(1);
  });

  it('require: brokers out of reach fail the table before it is sent (exit 5); DPGW_STREAM_CHECK=off skips it silently but for its warning', async () => {
    const { sandbox, dpgw, tablePosts, ready } = await setUp();
    await ready();
    const required = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--stream-check', 'require'], inCluster(sandbox));
    expect(required.code, required.stderr).toBe(5);
    expect(errorLines(required.stderr)).toEqual([expect.stringMatching(/table track would never consume: cannot read from the brokers/)]);
    expect(tablePosts()).toHaveLength(0);
    const off = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--wait-consuming', '0'], { ...inCluster(sandbox), DPGW_STREAM_CHECK: 'off' });
    expect(off.code, off.stderr).toBe(0);
    expect(off.stderr).toContain('warning: stream not checked (--stream-check off)');
    expect(tablePosts()).toHaveLength(1);
  });

  it('brokers that answer and refuse still fail under auto: a wrong stream password is exit 4, nothing sent', async () => {
    const { dpgw, tablePosts, ready } = await setUp();
    await ready();
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, '--stream-check', 'auto'], { DPGW_STREAM_PASSWORD: 'not-the-stream-password' });
    expect(result.code).toBe(4);
    expect(tablePosts()).toHaveLength(0);
  });

  it('a mode that is none of the three: exit 2 naming where it was set, nothing sent', async () => {
    const { dpgw, mutations } = await setUp();
    for (const [args, env, where] of [[['--stream-check', 'maybe'], {}, '--stream-check'], [[], { DPGW_STREAM_CHECK: 'strict' }, 'DPGW_STREAM_CHECK']] as const) {
      const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', SCHEMA, ...args], env);
      expect(result.code, result.stderr).toBe(2);
      expect(errorLines(result.stderr)).toEqual([expect.stringContaining(`dpgw: ${where}: stream check "`)]);
    }
    expect(mutations()).toEqual([]);
  });

  it('provision: the plan says the pre-flight would be skipped and why; the run warns once for all data sets and each summary step says skipped', async () => {
    const { sandbox, env, dpgw, manifest } = await setUp();
    // Two data sets, each with a schema of its own name.
    for (const name of ['track', 'vessel']) writeFileSync(join(env.DPGW_CONFIG_DIR!, `${name}.yaml`), readFileSync(SCHEMA, 'utf8').replace(/^schemaName: track$/m, `schemaName: ${name}`));
    const entries = ['track', 'vessel'].map((name) => `  - { datasource: mock-data-library, dataset: ${name}, enablement: ${name}, groups: [track-readers], schema: ${name}.yaml, table: { name: ${name} } }\n`).join('');
    const file = manifest(`dataSets:\n${entries}`);
    const planned = await dpgw(['provision', file, '--plan', '--json'], inCluster(sandbox));
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout).plan;
    expect(plan).toHaveLength(2);
    for (const result of plan) {
      expect(result.steps.find((s: { step: string }) => s.step === 'stream')).toEqual({ step: 'stream', action: 'skipped', reason: expect.stringMatching(/^would be skipped: the broker cannot be reached from here .*(ENOTFOUND|EAI_AGAIN)/) });
    }
    const run = await dpgw(['provision', file, '--json'], inCluster(sandbox));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n').filter((line) => skippedWarning.test(line))).toHaveLength(1);
    for (const result of JSON.parse(run.stdout).dataSets) {
      expect(result.steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable changed', 'stream skipped', 'sample skipped', 'schema changed', 'table changed', 'storage changed', 'consume passed']);
    }
  });

  it('a manifest may ask for require', async () => {
    const { sandbox, dpgw, manifest, mutations } = await setUp();
    const file = manifest(`settings:\n  streamCheck: require\ndataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [track-readers], schema: ${join(process.cwd(), SCHEMA)}, table: { name: track } }\n`);
    const run = await dpgw(['provision', file, '--allow-outside-files'], inCluster(sandbox));
    expect(run.code, run.stderr).toBe(5);
    expect(errorLines(run.stderr)).toEqual([expect.stringMatching(/the tables would never consume: cannot read from the brokers.* — .*nothing was sent/)]);
    expect(mutations()).toEqual([]);
  });
});

describe('dpgw provision: the stream step and the consume step', () => {
  const track = 'dataSets:\n  - { datasource: mock-data-library, dataset: track, enablement: track, groups: [track-readers], schema: { infer: { sample: 50 } }, table: { name: track } }\n';

  it('a refused stream user stops the run before anything is sent (exit 4); the right one: stream passed, consuming 3 of 3', async () => {
    const { dpgw, mutations, manifest } = await setUp();
    const file = manifest(track);
    const refused = await dpgw(['provision', file], { DPGW_STREAM_PASSWORD: 'not-the-stream-password' });
    expect(refused.code).toBe(4);
    expect(errorLines(refused.stderr)).toEqual([expect.stringMatching(/: the tables would never consume: the brokers refused stream user dpgw-stream \(SASL SCRAM-SHA-512\) — .*nothing was sent/)]);
    expect(mutations()).toHaveLength(0);

    const run = await dpgw(['provision', file, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const [result] = JSON.parse(run.stdout).dataSets;
    expect(result.steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable changed', 'stream passed', 'sample skipped', 'schema changed', 'table changed', 'storage changed', 'consume passed']);
    expect(result.steps.find((s: { step: string }) => s.step === 'consume').reason).toBe(`table track is consuming 3 of 3 partitions of topic ${TOPIC}`);
    const human = await dpgw(['provision', file]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^DATA SET +TOPIC +SCHEMA +TABLE +STORAGE +CONSUMING +STATUS +TIME$/m);
    expect(human.stdout).toMatch(/^track +mock-data-library\.track\.track +track unchanged +track unchanged +accepted +3 of 3 +done /m);
  });

  it('a data set whose topic is not on the brokers fails before its schema and table; --no-stream-check is in the summary', async () => {
    const { dpgw, manifest, sandbox } = await setUp();
    const file = manifest('dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [track-readers], schema: ' + join(process.cwd(), SCHEMA) + ', table: { name: track, topic: no.such.topic } }\n');
    const run = await dpgw(['provision', file, '--json', '--allow-outside-files']);
    expect(run.code).toBe(1);
    const [result] = JSON.parse(run.stdout).dataSets;
    expect(result.steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable changed', 'stream failed', 'sample blocked', 'schema blocked', 'table blocked', 'storage blocked', 'consume blocked']);
    expect(result.steps[1].reason).toMatch(/table track would never consume: topic no\.such\.topic does not exist on the brokers/);
    expect(sandbox.requestLog.of('gateway').filter((e) => e.method === 'POST' && e.path.startsWith('/api/internal/'))).toHaveLength(0);

    const skipped = await dpgw(['provision', manifest(track), '--json', '--no-stream-check']);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(JSON.parse(skipped.stdout).dataSets[0].steps[1]).toEqual({ step: 'stream', action: 'skipped', status: 'skipped', reason: `not checked (--stream-check off): nothing tells whether the store can consume topic ${TOPIC}` });
  });
});

describe('compressed topics', () => {
  it.each(['gzip', 'snappy', 'lz4'] as const)('a topic of %s batches is read by the bundled stream client on this Node: the track messages fit the contract schema', async (compression) => {
    const { dpgw } = await setUp({ streamCompression: compression });
    expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
    const checked = await dpgw(['schema', 'infer', '--dataset', 'track', '--check', SCHEMA]);
    expect([checked.code, checked.stdout + checked.stderr]).toEqual([0, expect.stringContaining(`✓ 200 messages fit ${SCHEMA}`)]);
  });
});
