/**
 * Faults in the middle of a provision heal: a gateway that throttles or restarts,
 * pipelines that run side by side, a stop while waiting for a topic, a home folder
 * that cannot be written, and manifest mistakes that would only show on the platform.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TRACK_GROUP, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { startPausableProxy, type PausableProxy } from '../helpers/pausable-proxy.js';
import { BIN, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchemaBeside } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 20 });
const NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
let proxy: PausableProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

async function setUp(options: SandboxOptions = {}) {
  const sandbox = await sandboxes.start({ seed: [{ name: 'fault-library', dataSets: NAMES }], ...options });
  const env = await adminPipelineEnv(sandbox);
  const folder = env.DPGW_CONFIG_DIR!;
  const schema = trackSchemaBeside(folder);
  const manifest = (names: readonly string[], rest = (name: string) => `schema: ${schema}, table: { name: ${name} }`) => {
    const file = join(folder, 'provision.yaml');
    writeFileSync(file, `dataSets:\n${names.map((name) => `  - { datasource: fault-library, dataset: ${name}, groups: [${TRACK_GROUP}], ${rest(name)} }\n`).join('')}`);
    return file;
  };
  return { sandbox, env, manifest, gatewayLog: () => sandbox.requestLog.of('gateway') };
}

const statuses = (stdout: string) => (JSON.parse(stdout) as { dataSets: Array<{ dataset: string; status: string }> }).dataSets.map((d) => `${d.dataset} ${d.status}`);

describe('a gateway that throttles or restarts', () => {
  it('30 % of answers 503 with Retry-After: 1: every data set is done, the POSTs sent again', async () => {
    // At most 3 in a row for one request: within dpgw's 5 retries, so the outcome does not depend on the draw.
    const { env, manifest, gatewayLog } = await setUp({ faults: { failureRate: 0.3, retryAfterSeconds: 1, maxConsecutiveFailures: 3 } });
    // All at once: the waits of one data set overlap those of the others instead of following them.
    const result = await spawnDpgw(['provision', manifest(NAMES), '--json', '--concurrency', String(NAMES.length)], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(statuses(result.stdout)).toEqual(NAMES.map((name) => `${name} done`));
    expect(gatewayLog().filter((e) => e.method === 'POST' && e.status === 503).length).toBeGreaterThan(0);
  });

  it('a gateway down for two seconds in the middle of a run: the queue waits for it, nothing fails', async () => {
    const { env, manifest, sandbox, gatewayLog } = await setUp({ faults: { latencyMs: 50 } });
    proxy = await startPausableProxy(sandbox.gatewayUrl);
    const run = spawnDpgw(['provision', manifest(NAMES), '--json'], { env: { ...env, DPGW_GATEWAY: proxy.url } });
    while (!gatewayLog().some((e) => e.method === 'POST' && e.path.endsWith('/tables'))) await new Promise((resolve) => setTimeout(resolve, 20));
    await proxy.outage(2_000);
    const result = await run;
    expect(result.code, result.stderr).toBe(0);
    expect(statuses(result.stdout)).toEqual(NAMES.map((name) => `${name} done`));
  });

  it('three provisions of one manifest side by side: an enablement another one created is reused, none fails', async () => {
    const { env, manifest } = await setUp();
    const file = manifest(NAMES);
    const runs = await Promise.all([0, 1, 2].map(() => spawnDpgw(['provision', file, '--json'], { env })));
    for (const result of runs) {
      expect(result.code, result.stderr).toBe(0);
      expect(statuses(result.stdout)).toEqual(NAMES.map((name) => `${name} done`));
    }
  });
});

describe('a stop while waiting for a topic', () => {
  it('SIGTERM ends the wait at once: exit 130, the summary says where it stopped', async () => {
    const { env, manifest } = await setUp({ topicDelayMs: 600_000 });
    const child = spawn(process.execPath, [BIN, 'provision', manifest(['alpha']), '--json'], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const { sandbox } = { sandbox: sandboxes.current() };
    while (!sandbox.requestLog.of('gateway').some((e) => e.method === 'PUT')) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(130);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({ interrupted: true, dataSets: [{ dataset: 'alpha', status: 'interrupted' }] });
    // What was done before the stop is told: the enablement exists and the data set is enabled.
    expect(summary.dataSets[0].steps[0]).toMatchObject({ step: 'enable', action: 'create', status: 'sent', reason: 'created enablement alpha; enabled alpha; stopped before its topic appeared, so the outcome is unknown' });
  });
});

describe('a home folder that cannot be written', () => {
  it('a pipeline signs in, warns once that the session is not kept, and goes on', async () => {
    const { sandbox, env, manifest } = await setUp();
    const admin = sandbox.users.find((u) => u.username === 'admin')!;
    // /sys refuses new folders (EPERM), as a read-only home does (EROFS), even to root.
    const pipeline = { ...env, DPGW_TOKEN: '', XDG_CACHE_HOME: '/sys/dpgw-read-only-home', DPGW_USERNAME: 'admin', DPGW_PASSWORD: admin.password, DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm, DPGW_CLIENT_ID: sandbox.clientId, DPGW_CLIENT_SECRET: sandbox.clientSecret };
    const result = await spawnDpgw(['provision', manifest(['alpha']), '--json'], { env: pipeline });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/warning: cannot use the token cache in \/sys\/dpgw-read-only-home\/dpgw\/tokens: [^;\n]+ \(E[A-Z]+\); the session serves this command only/);
    expect(result.stderr.match(/cannot use the token cache/g)).toHaveLength(1);
    expect(result.stderr).not.toContain('unexpected error');
  });
});

describe('manifest mistakes that would show only on the platform, found before any request', () => {
  it('two data sets with one table, or one schema name with other columns: refused, nothing sent', async () => {
    const { env, manifest, gatewayLog } = await setUp();
    const folder = env.DPGW_CONFIG_DIR!;
    writeFileSync(join(folder, 'other.yaml'), 'schemaName: track\ndimensionFieldSpecs: [{ name: id, dataType: STRING }]\ndateTimeFieldSpecs: [{ name: time, dataType: LONG, notNull: false, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }]\n');
    const file = manifest(['alpha', 'bravo', 'charlie'], (name) => (name === 'charlie' ? 'schema: other.yaml, table: { name: charlie }' : 'schema: track-schema.yaml, table: { name: shared }'));
    const result = await spawnDpgw(['provision', file], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/provision\.yaml:3:\d+: dataSets\[1\]\.table\.name: table shared is also the table of data set alpha \(fault-library\): each data set needs its own table; set table\.name/);
    expect(result.stderr).toMatch(/provision\.yaml:4:\d+: dataSets\[2\]\.schema: schema track is also the schema of data set alpha, with other columns: give this one another schemaName/);
    expect(gatewayLog()).toEqual([]);
  });

  it('a data set the catalog does not know: every one listed at its line, exit 2, nothing changed', async () => {
    const { env, manifest, gatewayLog } = await setUp();
    const result = await spawnDpgw(['provision', manifest(['alpha', 'bravoo', 'charlie', 'deltta'])], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/provision\.yaml:3:\d+: dataSets\[1\]\.dataset: data source fault-library offers no data set "bravoo" \(did you mean "bravo"\? It offers: alpha, bravo, /);
    expect(result.stderr).toMatch(/provision\.yaml:5:\d+: dataSets\[3\]\.dataset: data source fault-library offers no data set "deltta"/);
    expect(gatewayLog().filter((e) => e.method !== 'GET')).toEqual([]);
  });
});
