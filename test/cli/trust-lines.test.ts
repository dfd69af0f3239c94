/**
 * In GitHub Actions a log line that starts with `::` (after whitespace), or holds `##[`, is a
 * command to the runner: `::add-mask::`, `::stop-commands::`, `::error`. No text of a server,
 * of a manifest or of a file may write one through dpgw. The built binary runs every command
 * that shows such text under GITHUB_ACTIONS=true, against the sandbox behind a gateway that
 * rewrites its answers (every text field, or the ones a provision shows), and with a
 * manifest whose keys and paths carry the attack; no line of stdout or stderr is a command
 * but dpgw's own annotations and groups.
 */
import http from 'node:http';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TRACK_GROUP, type Sandbox } from '../../src/sandbox/sandbox.js';
import { listenOnLoopback } from '../helpers/recording-server.js';
import { spawnDpgw, type RunResult } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchemaBeside } from '../helpers/track.js';

/** Each test runs the built binary many times, on a machine that may be running other tests too. */
const MANY_RUNS_MS = 180_000;

const ATTACK = '\n::error title=ATTACK::x\n::add-mask::x\r::stop-commands::t ##[add-mask]y';

/**
 * Every line as the runner splits them (\n, \r): one that starts with `::` after whitespace
 * is dpgw's own annotation (`::error …title=dpgw…::`) or group, and none holds `##[`.
 */
function expectNoForeignCommand(result: RunResult, command: string): void {
  for (const line of `${result.stdout}\n${result.stderr}`.split(/\r\n|\r|\n/)) {
    expect(line, command).not.toContain('##[');
    if (!/^[\s\u0085]*::/.test(line)) continue;
    // dpgw's annotation: its properties %-escape every ':' and ',' of what they quote, so the first '::' ends them.
    expect(line, command).toMatch(/^(::error (file=[^,:]*,line=\d+,col=\d+,)?title=dpgw[^:]*::|::group::|::endgroup::$)/);
  }
}

/** What the hostile gateway does to an answer of the sandbox (undefined: passes it on as it is). */
type Rewrite = (path: string, body: unknown) => unknown;

/** Every string of the answer with the attack after it; each object with its first member again under a key that carries the attack, and a member whose key is a command. */
function poisoned(value: unknown): unknown {
  if (typeof value === 'string') return `${value}${ATTACK}`;
  if (Array.isArray(value)) return value.map(poisoned);
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([key, member]) => [key, poisoned(member)] as const);
    const [first] = members;
    return { ...Object.fromEntries(members), ...(first ? { [`${first[0]}${ATTACK}`]: first[1] } : {}), [`::add-mask::k${ATTACK}`]: `v${ATTACK}` };
  }
  return value;
}

/** The answers a provision, enable and the store's reads show, with the attack where a person reads it; the rest as the sandbox sent it. */
const targeted: Rewrite = (path, body) => {
  if (path === '/api/health' || path.startsWith('/api/health/')) return { status: `DOWN${ATTACK}`, components: { [`db${ATTACK}`]: { status: `DOWN${ATTACK}`, components: { [`pool${ATTACK}`]: { status: `OUT${ATTACK}` } } } } };
  if (path === '/api/version') return { version: `1.15.100${ATTACK}` };
  if (path === '/api/v2/catalog/datasources') return [...(body as object[]), { id: 'zz-hostile', name: `zz${ATTACK}` }];
  if (/^\/api\/v2\/catalog\/datasources\/[^/]+\/datasets$/.test(path)) return [...(body as object[]), { id: 'zz-offered', name: `zz${ATTACK}` }];
  if (/^\/api\/v2\/catalog\/datasources\/[^/]+\/enablements$/.test(path)) return (body as Array<{ groups?: string[] }>).map((e) => ({ ...e, groups: [...(e.groups ?? []), `g${ATTACK}`] }));
  if (/^\/api\/internal\/[^/]+\/(schemas|tables)\/[^/?]+$/.test(path)) return { ...(body as object), description: `first line${ATTACK}`, [`::add-mask::key${ATTACK}`]: `a${ATTACK}`, '::error title=ATTACK::key': 1 };
  return undefined;
};

const everything: Rewrite = (_path, body) => poisoned(body);

interface HostileGateway {
  url: string;
  rewrite: Rewrite | undefined;
  close(): Promise<void>;
}

/** A gateway in front of the sandbox that rewrites its JSON answers to GET requests. */
async function hostileGateway(sandbox: Sandbox): Promise<HostileGateway> {
  const upstream = new URL(sandbox.gatewayUrl);
  const state: HostileGateway = { url: '', rewrite: undefined, close: async () => undefined };
  const server = http.createServer((request, response) => {
    const headers = { ...request.headers };
    delete headers['accept-encoding'];
    const forward = http.request({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        let body = Buffer.concat(chunks).toString('utf8');
        const path = (request.url ?? '').replace(/\?.*$/, '');
        if (request.method === 'GET' && state.rewrite && /json/.test(String(answer.headers['content-type'])) && body !== '') {
          const rewritten = state.rewrite(path, JSON.parse(body));
          if (rewritten !== undefined) body = JSON.stringify(rewritten);
        }
        const outHeaders = { ...answer.headers };
        delete outHeaders['content-length'];
        delete outHeaders['transfer-encoding'];
        response.writeHead(answer.statusCode ?? 502, { ...outHeaders, 'content-length': Buffer.byteLength(body) });
        response.end(body);
      });
    });
    forward.on('error', () => response.destroy());
    request.pipe(forward);
  });
  Object.assign(state, await listenOnLoopback(server));
  return state;
}

const gateways: HostileGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

describe('no line of a workflow command that dpgw did not write', () => {
  const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

  /** The sandbox with track provisioned, a hostile gateway before it, and a workspace as a pipeline's checkout holds it. */
  async function platform() {
    const sandbox = await sandboxes.start();
    const gateway = await hostileGateway(sandbox);
    gateways.push(gateway);
    const workspace = mkdtempSync(join(tmpdir(), 'dpgw-lines-'));
    trackSchemaBeside(workspace);
    const manifest = join(workspace, 'provision.yaml');
    writeFileSync(manifest, `name: lines\nhealthCheck: true\ndataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: track } }\n`);
    const env = { ...(await adminPipelineEnv(sandbox)), DPGW_GATEWAY: gateway.url, GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace, GITHUB_STEP_SUMMARY: join(workspace, 'summary.md'), GITHUB_OUTPUT: join(workspace, 'output.txt') };
    const setUp = await spawnDpgw(['provision', manifest, '--no-sample-check'], { env });
    expect(setUp.code, setUp.stderr).toBe(0);
    return { gateway, workspace, manifest, env };
  }

  /** Runs dpgw; its output must carry the attack (escaped) where the case says so, and no command of it. */
  async function run(env: NodeJS.ProcessEnv, args: string[], shows = true): Promise<RunResult> {
    const result = await spawnDpgw(args, { env });
    expectNoForeignCommand(result, args.join(' '));
    if (shows) expect(`${result.stdout}${result.stderr}`, `${args.join(' ')} shows the server's text`).toContain('title=ATTACK');
    return result;
  }

  it("provision, provision --plan and enable: the final health check, the storage step's platform version, the catalog's groups and names", async () => {
    const { gateway, workspace, manifest, env } = await platform();
    gateway.rewrite = targeted;
    const other = join(workspace, 'other-groups.yaml');
    // The same manifest by its name, asking for other groups.
    writeFileSync(other, `name: lines\nhealthCheck: true\ndataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [someone-else], schema: track-schema.yaml, table: { name: track } }\n`);
    for (const args of [
      ['provision', manifest, '--plan'],
      ['provision', manifest, '--no-sample-check'],
      ['provision', other, '--plan'],
      ['provision', other, '--no-sample-check', '--verbose'],
      ['provision', manifest, '--plan', '--format', 'markdown'],
      ['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', 'someone-else'],
      ['enable', '--datasource', 'nowhere-at-all-0000', '--dataset', 'track', '--group', 'g'],
      ['enable', '--datasource', 'mock-data-library', '--dataset', 'nothing-offered-0000', '--group', 'g'],
      ['schema', 'get', 'track'],
      ['table', 'get', 'track'],
    ]) {
      await run(env, args);
    }
    // A platform older than 1.15.165: touched, the version not shown.
    await run(env, ['storage', 'touch', '--dataset', 'track'], false);
    const unknownSource = join(workspace, 'unknown-source.yaml');
    writeFileSync(unknownSource, `dataSets:\n  - { datasource: nowhere-at-all-0000, dataset: track, groups: [g], schema: track-schema.yaml, table: { name: t1 } }\n  - { datasource: mock-data-library, dataset: nothing-offered-0000, groups: [g], schema: track-schema.yaml, table: { name: t2 } }\n`);
    await run(env, ['provision', unknownSource, '--plan']);
    // A multi-line value of the store is one double-quoted scalar, on its key's line.
    const table = await run(env, ['table', 'get', 'track']);
    expect(table.stdout).toContain(String.raw`description: "first line\n::error title=ATTACK::x\n::add-mask::x\r::stop-commands::t ##\[add-mask]y"`);
    // A key of the store that is a command starts its line: the guard breaks it.
    expect(table.stdout).toMatch(/^\\::error title=ATTACK::key: 1$/m);
  }, MANY_RUNS_MS);

  it('health, catalog, the store reads, table status, storage touch and export: every text field of every answer', async () => {
    const { gateway, workspace, env } = await platform();
    gateway.rewrite = everything;
    for (const args of [
      ['health'],
      ['health', '--verbose'],
      ['catalog', 'sources'],
      ['catalog', 'datasets'],
      ['catalog', 'enablements'],
      ['catalog', 'show', 'track'],
      ['schema', 'get', 'track'],
      ['table', 'get', 'track'],
      ['table', 'status', 'track'],
      ['export', '--output', join(workspace, 'exported')],
      ['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', 'g'],
      ['provision', join(workspace, 'provision.yaml'), '--plan'],
    ]) {
      await run(env, args);
    }
    // The catalog's poisoned names are no data set of that name: refused, as the one line that says so.
    await run(env, ['storage', 'touch', '--dataset', 'track'], false);
  }, MANY_RUNS_MS);

  it("a manifest's unknown keys and schema and template paths, in many entries", async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'dpgw-lines-'));
    mkdirSync(join(workspace, 'a'));
    const attack = JSON.stringify(ATTACK).slice(1, -1);
    const entry = (i: number) => `  - { datasource: mock-data-library, dataset: d${i}, groups: [g], "x${i}${attack}": 1, schema: "s${i}${attack}.yaml", table: { name: t${i}, template: "t${attack}.json" } }\n`;
    const manifest = join(workspace, 'provision.yaml');
    writeFileSync(manifest, `"::add-mask::top${attack}": 1\ndataSets:\n${Array.from({ length: 2000 }, (_, i) => entry(i)).join('')}`);
    const env = { ...(await adminPipelineEnv(await sandboxes.start())), GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace, GITHUB_STEP_SUMMARY: join(workspace, 'summary.md'), GITHUB_OUTPUT: join(workspace, 'output.txt') };
    for (const args of [['provision', manifest, '--plan'], ['provision', manifest, '--yes']]) {
      const result = await run(env, args);
      expect(result.code, result.stderr).toBe(2);
    }
  }, MANY_RUNS_MS);
});
