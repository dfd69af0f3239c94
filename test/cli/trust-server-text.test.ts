/**
 * Text a server supplies is shown with its control characters escaped, wherever it enters
 * a message: the store's column names in a plan's difference (the terminal, a CI log, a
 * Markdown plan), the identity provider's error words, the query engine's rows in verify's
 * error line, and the line and paragraph separators (U+2028, U+2029) in every output,
 * --json included. The built binary, as a user or a pipeline runs it; each server hostile.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnalyticsSchema } from '../../src/contract/types.js';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { startRecordingServer, type RecordingServer, type Route } from '../helpers/recording-server.js';
import { cleanEnv, spawnDpgw, type RunResult } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchema, trackSchemaBeside, TRACK_SCHEMA_FILE } from '../helpers/track.js';

/** A raw control character a terminal or a log viewer acts on, U+2028 and U+2029 included (dpgw's own \n and \t aside). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const FORGED = '::error title=Forged::x';

const servers: RecordingServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function hostile(routes: Record<string, Route>): Promise<RecordingServer> {
  const server = await startRecordingServer(routes);
  servers.push(server);
  return server;
}

/** A workspace with the track schema and a manifest of the track data set, as a pipeline's checkout holds them. */
function trackWorkspace(): { workspace: string; manifest: string } {
  const workspace = mkdtempSync(join(tmpdir(), 'dpgw-workspace-'));
  trackSchemaBeside(workspace);
  const manifest = join(workspace, 'provision.yaml');
  writeFileSync(manifest, `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: track } }\n`);
  return { workspace, manifest };
}

/** No line of either stream is one the server wrote: none starts with the forged command or text. */
function expectNoForgedLine(result: RunResult, ...starts: string[]): void {
  for (const line of `${result.stdout}\n${result.stderr}`.split('\n')) for (const start of [FORGED, ...starts]) expect(line.startsWith(start), line).toBe(false);
  expect(result.stdout).not.toMatch(RAW_CONTROL);
  expect(result.stderr).not.toMatch(RAW_CONTROL);
}

describe("a plan's difference shows the store's column names as text", () => {
  const sandboxes = sandboxPerTest({ topicDelayMs: 0 });
  const column = `zz\n${FORGED}\n\`\`\`\n## INJECTED <img src="https://attacker.example/x.png">`;

  async function planAgainstHostileSchema(extra: string[]) {
    const sandbox = await sandboxes.start();
    const base = await adminPipelineEnv(sandbox);
    const { workspace, manifest: file } = trackWorkspace();
    // The store already holds the schema, with a column the manifest lacks: its name is the attack.
    const held: AnalyticsSchema = trackSchema();
    held.dimensionFieldSpecs = [...(held.dimensionFieldSpecs ?? []), { name: column, dataType: 'STRING' }];
    sandbox.store.schemas.set('track', held);
    const summaryFile = join(workspace, 'step-summary.md');
    const env = { ...base, GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace, GITHUB_STEP_SUMMARY: summaryFile, GITHUB_OUTPUT: join(workspace, 'step-output.txt') };
    return { result: await spawnDpgw(['provision', file, '--plan', ...extra], { env }), summaryFile };
  }

  it('in a CI log: the removed column is one escaped line, no ::error line of the server', async () => {
    const { result } = await planAgainstHostileSchema([]);
    expect(result.code, result.stderr).toBe(2);
    expectNoForgedLine(result, '## INJECTED', '```');
    expect(result.stdout).toContain(String.raw`- zz\n::error title=Forged::x\n` + '```' + String.raw`\n## INJECTED <img src="https://attacker.example/x.png">: STRING (dimension)`);
  });

  it('as Markdown for a pull request: the diff fence stays closed to the server, and its HTML is text', async () => {
    const { result, summaryFile } = await planAgainstHostileSchema(['--format', 'markdown']);
    expect(result.code, result.stderr).toBe(2);
    expectNoForgedLine(result, '## INJECTED', '```\\n');
    // The difference is inside dpgw's one fence, on one line, the fence longer than the server's backticks: opened once, closed once.
    expect(result.stdout).toMatch(/^````diff\n- zz\\n::error title=Forged::x\\n```\\n## INJECTED <img [^\n]*: STRING \(dimension\)\n````$/m);
    // The step's reason (a table-free line of Markdown) quotes the column: its tag and backticks are escaped, not rendered.
    const reason = result.stdout.split('\n').find((line) => line.startsWith('**track** — schema (refused)'))!;
    expect(reason).toContain(String.raw`\<img src="https://attacker.example/x.png"\>`);
    expect(reason).not.toMatch(/(^|[^\\])<img/);
    expect(readFileSync(summaryFile, 'utf8')).not.toMatch(RAW_CONTROL);
  });
});

describe("the identity provider's words stay on dpgw's line", () => {
  it('login: error and error_description with a line feed and ESC are escaped, no forged line', async () => {
    const realmPath = '/auth/realms/test';
    const idp = await hostile({});
    idp.routes.set(`GET ${realmPath}/.well-known/openid-configuration`, () => ({ body: { issuer: `${idp.url}${realmPath}`, token_endpoint: `${idp.url}${realmPath}/protocol/openid-connect/token` } }));
    idp.routes.set(`POST ${realmPath}/protocol/openid-connect/token`, () => ({ status: 400, body: { error: 'invalid_grant\u001b[2J\n::error::forged', error_description: `bad\nline2\u2028${FORGED}` } }));
    const result = await spawnDpgw(['login', '--auth-url', idp.url, '--realm', 'test', '--client-id', 'dpgw', '--username', 'someone'], {
      env: cleanEnv({ DPGW_PASSWORD: 'person-password-9876', DPGW_CLIENT_SECRET: 'client-secret-5432', DPGW_GATEWAY: 'http://127.0.0.1:9', GITHUB_ACTIONS: 'true' }),
    });
    expect(result.code, result.stderr).toBe(4);
    expectNoForgedLine(result, '::error::forged', 'line2');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^dpgw: the identity provider refused the login: bad\\nline2\\u2028::error title=Forged::x \(invalid_grant\\u001b\[2J\\n::error::forged\) — /);
    // The annotation is the same line, as the runner reads it.
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^::error title=dpgw::the identity provider refused the login: bad\\nline2/)]);
    const json = await spawnDpgw(['login', '--auth-url', idp.url, '--realm', 'test', '--client-id', 'dpgw', '--username', 'someone', '--json'], { env: cleanEnv({ DPGW_PASSWORD: 'person-password-9876', DPGW_CLIENT_SECRET: 'client-secret-5432', DPGW_GATEWAY: 'http://127.0.0.1:9' }) });
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(json.stdout).error.details).toMatchObject({ error: String.raw`invalid_grant\u001b[2J\n::error::forged`, description: String.raw`bad\nline2\u2028::error title=Forged::x` });
  });

  it("auth status: the token's name, realm and groups claims are escaped", async () => {
    const claims = { preferred_username: `ana\n${FORGED}`, iss: 'http://idp/auth/realms/r\u2028x', groups: ['g1', `g2\n${FORGED}`], exp: Math.floor(Date.now() / 1000) + 600 };
    const token = ['e30', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'sig'].join('.');
    const result = await spawnDpgw(['auth', 'status'], { env: cleanEnv({ DPGW_TOKEN: token }) });
    expect(result.code, result.stderr).toBe(0);
    expectNoForgedLine(result);
    expect(result.stdout).toContain(String.raw`ana\n::error title=Forged::x`);
    expect(result.stdout).toContain(String.raw`g1, g2\n::error title=Forged::x`);
    expect(result.stdout).toContain(String.raw`r\u2028x`);
  });
});

describe("the query engine's rows stay on verify's line", () => {
  it("verify: a schema the engine lists with a line feed is escaped in the error line on stderr, as in the ✗ table", async () => {
    const listed = `default\n${FORGED}`;
    const engine = await hostile({ 'POST /v1/statement': () => ({ body: { id: 'q1', columns: [{ name: 'Schema', type: 'varchar' }], data: [[listed], ['other\u2028two']], stats: { state: 'FINISHED' } } }) });
    const result = await spawnDpgw(['verify', '--dataset', 'track', '--query-engine', engine.url], { env: cleanEnv({ DPGW_TOKEN: 'a.b.c' }) });
    expect(result.code, result.stderr).toBe(8);
    expectNoForgedLine(result);
    expect(result.stderr).toContain(String.raw`dpgw: verify: schema listed failed: expected default among the schemas of pinot; the query engine answered listed default\n::error title=Forged::x, other\u2028two`);
  });
});

describe('U+2028 and U+2029 are escaped like every other control', () => {
  const SEPARATED = `evil\u2028${FORGED}\u2029end`;
  const env = (gateway: string, extra: Record<string, string> = {}) => cleanEnv({ DPGW_GATEWAY: gateway, DPGW_TOKEN: 'hostile-test-token-1234', ...extra });

  it('catalog sources, health and a gateway error: escaped at the terminal, \\u2028 escapes in --json and --verbose', async () => {
    const gateway = await hostile({
      'GET /api/v2/catalog/datasources': () => ({ body: [{ id: 'd1', name: SEPARATED }] }),
      'GET /api/health': () => ({ body: { status: 'UP', components: { [SEPARATED]: { status: 'UP' } } } }),
      'POST /api/internal/olap/schemas': () => ({ status: 400, body: { code: 400, error: `bad schema ${SEPARATED}` } }),
    });
    const escapedForm = String.raw`evil\u2028::error title=Forged::x\u2029end`;
    for (const args of [['catalog', 'sources'], ['health'], ['catalog', 'sources', '--verbose']]) {
      const result = await spawnDpgw(args, { env: env(gateway.url) });
      expect(result.code, result.stderr).toBe(0);
      expectNoForgedLine(result);
      expect(result.stdout, args.join(' ')).toContain(escapedForm);
    }
    const pushed = await spawnDpgw(['schema', 'push', TRACK_SCHEMA_FILE], { env: env(gateway.url) });
    expect(pushed.code).toBe(3);
    expectNoForgedLine(pushed);
    expect(pushed.stderr).toContain(`bad schema ${escapedForm}`);
    for (const args of [['catalog', 'sources', '--json'], ['health', '--json']]) {
      const json = await spawnDpgw(args, { env: env(gateway.url) });
      expect(json.stdout).not.toMatch(RAW_CONTROL);
      expect(json.stdout).toContain(escapedForm);
      // The same document: the escapes read back as the server's characters.
      expect(JSON.stringify(JSON.parse(json.stdout))).toContain(SEPARATED);
    }
  });
});

describe('a second review: more places a server could start a line of its own', () => {
  const env = (gateway: string, extra: Record<string, string> = {}) => cleanEnv({ DPGW_GATEWAY: gateway, DPGW_TOKEN: 'hostile-test-token-1234', ...extra });

  it('--verbose shows an answer\'s body with its line breaks escaped', async () => {
    const gateway = await hostile({ 'GET /api/health': () => ({ headers: { 'content-type': 'application/json' }, body: `{"status":"UP",\n${FORGED}\n"components":{}}` }) });
    const result = await spawnDpgw(['health', '--verbose'], { env: env(gateway.url) });
    expectNoForgedLine(result);
    expect(result.stderr).toContain(String.raw`{"status":"UP",\n::error title=Forged::x\n"components":{}}`);
  });

  const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

  it("dpgw enable: the catalog's storage id and self link are shown escaped", async () => {
    const sandbox = await sandboxes.start();
    const base = await adminPipelineEnv(sandbox);
    // A proxy in front of the sandbox's gateway that adds a line to every storage id of a listing.
    const upstream = new URL(sandbox.gatewayUrl);
    const { createServer, request } = await import('node:http');
    const proxy = createServer((incoming, answer) => {
      const forward = request({ host: upstream.hostname, port: upstream.port, path: incoming.url, method: incoming.method, headers: incoming.headers }, (reply) => {
        const chunks: Buffer[] = [];
        reply.on('data', (c: Buffer) => chunks.push(c));
        reply.on('end', () => {
          let text = Buffer.concat(chunks).toString('utf8');
          if (incoming.method === 'GET' && /\/datasets$/.test(incoming.url ?? '')) {
            const listed = JSON.parse(text) as Array<{ storage?: Array<{ id: string }> }>;
            for (const dataSet of listed) for (const storage of dataSet.storage ?? []) storage.id = `${storage.id}\n${FORGED}`;
            text = JSON.stringify(listed);
          }
          const headers = { ...reply.headers };
          delete headers['content-length'];
          answer.writeHead(reply.statusCode ?? 502, headers);
          answer.end(text);
        });
      });
      incoming.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (proxy.address() as { port: number }).port;
      const result = await spawnDpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP], { env: { ...base, DPGW_GATEWAY: `http://127.0.0.1:${port}` } });
      expect(result.code, result.stderr).toBe(0);
      expectNoForgedLine(result);
      expect(result.stdout).toMatch(/storage +default [0-9a-f-]{36}\\n::error title=Forged::x$/m);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("dpgw login: the token's groups are shown escaped for a password sign-in too", async () => {
    const sandbox = await sandboxes.start({ users: [{ username: 'grouped', password: 'grouped-password-1', groups: ['platform-admins', `x\n${FORGED}`] }] });
    const result = await spawnDpgw(['login', '--username', 'grouped', '--password-stdin'], { env: cleanEnv({ DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm, DPGW_CLIENT_ID: sandbox.clientId, DPGW_CLIENT_SECRET: sandbox.clientSecret }), input: 'grouped-password-1\n' });
    expect(result.code, result.stderr).toBe(0);
    expectNoForgedLine(result);
    expect(result.stderr).toContain(String.raw`(groups: platform-admins, x\n::error title=Forged::x)`);
  });

  it('a topic message nested 200,000 levels deep is skipped by the sample check, not a crash of the plan', async () => {
    const sandbox = await sandboxes.start();
    const base = await adminPipelineEnv(sandbox);
    const { manifest: file } = trackWorkspace();
    expect((await spawnDpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP], { env: base })).code).toBe(0);
    const topic = [...sandbox.broker!.topics.keys()].find((name) => name.endsWith('.track'))!;
    sandbox.broker!.produce(topic, [{ value: `{"origin":${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}}` }]);
    const result = await spawnDpgw(['provision', file, '--plan'], { env: base });
    expect([result.code, result.stderr]).toEqual([0, '']);
    // Planned as usual: the messages that can be read are held against the schema, the deep one left out.
    expect(result.stdout).toMatch(/3\. sample +check +\d+ messages of topic mock-data-library\.track\.track fit schema track/);
  });

  it('dpgw export writes the store\'s data types and formats as one value each: nothing of them becomes YAML of its own', async () => {
    const sandbox = await sandboxes.start();
    const base = await adminPipelineEnv(sandbox);
    const { workspace, manifest } = trackWorkspace();
    expect((await spawnDpgw(['provision', manifest], { env: base })).code).toBe(0);
    const held = sandbox.store.schemas.get('track')!;
    held.dateTimeFieldSpecs![0]!.granularity = '1:MILLISECONDS"\nprimaryKeyColumns: [injected_by_store]\n#';
    const out = join(workspace, 'exported');
    const exported = await spawnDpgw(['export', '--output', out], { env: base });
    // The value is one quoted scalar: the schema reads back with that granularity, which dpgw's checks refuse, so the table is left out, saying why; nothing is written.
    expect([exported.code, exported.stderr]).toEqual([9, expect.stringContaining(String.raw`granularity "1:MILLISECONDS"\nprimaryKeyColumns: [injected_by_store]\n#" is not <size>:<unit>`)]);
    expectNoForgedLine(exported);
    expect(existsSync(join(out, 'track.schema.yaml'))).toBe(false);
  });
});
