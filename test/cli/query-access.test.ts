/**
 * Contract steps 1, 7 and 8 as a user runs them: `dpgw access-control render|check`
 * and `dpgw verify` (alone and as provision's last step), the built binary against
 * the sandbox's gateway, identity provider and query engine.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, TRACK_GROUP, type Sandbox, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { cleanEnv, ROOT, spawnDpgw, type RunResult } from '../helpers/run-dpgw.js';
import { tokenFor } from '../helpers/sandbox-http.js';

const SCHEMA = join(ROOT, 'examples/track/schema.yaml');
const POLICY = 'http://opa.platform.internal:8181/v1/data/dpgw/query_access/allow';
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const stderrLines = (result: RunResult) => result.stderr.trimEnd().split('\n').filter((l) => l !== '');

describe('dpgw access-control render', () => {
  it("writes exactly the contract's two keys and the policy engine's, to stdout or a file", async () => {
    const env = cleanEnv();
    const printed = await spawnDpgw(['access-control', 'render', '--policy-uri', POLICY, '--policy-batched-uri', POLICY.replace(/allow$/, 'batch')], { env });
    expect(printed.code, printed.stderr).toBe(0);
    const keys = printed.stdout.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(keys).toEqual(['fine-grained-access-control-enabled=true', 'access-control.name=opa', `opa.policy.uri=${POLICY}`, `opa.policy.batched-uri=${POLICY.replace(/allow$/, 'batch')}`]);

    const file = join(env.DPGW_CONFIG_DIR!, 'access-control.properties');
    const written = await spawnDpgw(['access-control', 'render', '-o', file], { env: { ...env, DPGW_POLICY_URI: POLICY } });
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toBe('');
    expect(written.stderr).toContain(`✓ wrote ${file}: access decisions delegated to opa at ${POLICY}`);
    const check = await spawnDpgw(['access-control', 'check', file, '--json'], { env });
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true, policyEngine: 'opa', properties: { 'opa.policy.uri': POLICY }, problems: [] });
  });

  it('says on stderr where each value came from: flag, environment, profile (file:line:column), default', async () => {
    const env = cleanEnv();
    const config = join(env.DPGW_CONFIG_DIR!, 'config.yaml');
    writeFileSync(config, `currentProfile: sbx\nprofiles:\n  sbx:\n    policyUri: ${POLICY}\n`, { mode: 0o600 });
    const result = await spawnDpgw(['access-control', 'render', '--policy-batched-uri', 'http://opa:8181/batch'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(stderrLines(result)).toEqual([
      'policy engine opa (default)',
      `policy URI ${POLICY} (from profile "sbx" ${config}:4:16)`,
      'batched policy URI http://opa:8181/batch (from flag --policy-batched-uri)',
      // Two hosts, one from the profile, one from the flag: a mix-up, said (the file is still written as asked).
      'warning: the policy URI and the batched policy URI are on different hosts: the coordinator would ask two policy engines — give both (--policy-uri and --policy-batched-uri) for one engine',
    ]);
    const file = join(env.DPGW_CONFIG_DIR!, 'mixed.properties');
    expect((await spawnDpgw(['access-control', 'render', '--policy-batched-uri', 'http://opa:8181/batch', '-o', file], { env })).code).toBe(0);
    const checked = await spawnDpgw(['access-control', 'check', file], { env });
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stderr).toContain(`warning: ${file}:8:24: opa.policy.batched-uri is on opa:8181, opa.policy.uri on opa.platform.internal:8181: the coordinator would ask two policy engines — point every policy URL at the same engine`);
    const sameHost = await spawnDpgw(['access-control', 'render', '--policy-batched-uri', POLICY.replace(/allow$/, 'batch')], { env });
    expect(sameHost.stderr).not.toContain('different hosts');
    const fromEnv = await spawnDpgw(['access-control', 'render'], { env: { ...env, DPGW_POLICY_URI: 'http://opa:8181/other/allow' } });
    expect(stderrLines(fromEnv)).toContain('policy URI http://opa:8181/other/allow (from env DPGW_POLICY_URI)');
  });

  it('-o refuses to replace a file that differs unless --force, and says "unchanged" for one that does not', async () => {
    const env = cleanEnv();
    const file = join(env.DPGW_CONFIG_DIR!, 'access-control.properties');
    writeFileSync(file, 'opa.policy.uri=http://installed/allow\n');
    const refused = await spawnDpgw(['access-control', 'render', '--policy-uri', POLICY, '-o', file], { env });
    expect(refused.code).toBe(2);
    expect(stderrLines(refused)).toEqual([`dpgw: --output: ${file} exists and differs from the rendered file: not overwritten — pass --force to replace it, or check it with \`dpgw access-control check\``]);
    expect(readFileSync(file, 'utf8')).toBe('opa.policy.uri=http://installed/allow\n');

    const forced = await spawnDpgw(['access-control', 'render', '--policy-uri', POLICY, '-o', file, '--force'], { env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain(`✓ wrote ${file}`);
    const written = readFileSync(file, 'utf8');
    expect(written).toContain(`opa.policy.uri=${POLICY}`);

    const again = await spawnDpgw(['access-control', 'render', '--policy-uri', POLICY, '-o', file, '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`✓ ${file} unchanged`);
    expect(JSON.parse(again.stdout)).toMatchObject({ file, changed: false });
    expect(readFileSync(file, 'utf8')).toBe(written);
  });

  it('says which flag is missing, in one line, and writes nothing', async () => {
    const env = cleanEnv();
    const file = join(env.DPGW_CONFIG_DIR!, 'access-control.properties');
    const result = await spawnDpgw(['access-control', 'render', '-o', file], { env });
    expect(result.code).toBe(2);
    expect(stderrLines(result)).toHaveLength(1);
    expect(result.stderr).toContain('policyUri: no policy engine decision URL (opa.policy.uri) is set — set it with --policy-uri, or DPGW_POLICY_URI');
    const json = await spawnDpgw(['access-control', 'render', '--policy-uri', 'not a url', '--json'], { env });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error).toMatchObject({ kind: 'usage', where: '--policy-uri' });
  });
});

describe('dpgw access-control check', () => {
  it('reports every missing, misspelt, duplicated or wrong key with file:line:column, exit 2', async () => {
    const env = cleanEnv();
    const file = join(env.DPGW_CONFIG_DIR!, 'access-control.properties');
    writeFileSync(file, ['# coordinator', 'fine-grained-acces-control-enabled=true', 'access-control.name = opa', 'opa.policy.uri=opa:8181/allow', 'opa.policy.batched-uri=http://opa/batch', 'opa.policy.batched-uri=http://opa/batch2', 'ranger.service.name=x', ''].join('\n'));
    const result = await spawnDpgw(['access-control', 'check', file], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = stderrLines(result);
    expect(lines).toHaveLength(4);
    expect(lines).toEqual(expect.arrayContaining([
      `dpgw: ${file}:2:1: unknown key fine-grained-acces-control-enabled — did you mean fine-grained-access-control-enabled?`,
      `dpgw: ${file}:4:16: opa.policy.uri "opa:8181/allow" is not an http(s) URL — give the policy endpoint, e.g. http://opa:8181/v1/data/…/allow`,
      `dpgw: ${file}:6:1: opa.policy.batched-uri is set again (first on line 5); the coordinator would use only this last value — keep one line per key`,
      `warning: ${file}:7:1: ranger.service.name is not a key of the contract or of a policy engine dpgw knows — check it against the query engine documentation`,
    ]));

    const wrong = join(env.DPGW_CONFIG_DIR!, 'wrong.properties');
    writeFileSync(wrong, 'fine-grained-access-control-enabled=false\naccess-control.name=ranger\n');
    const json = await spawnDpgw(['access-control', 'check', wrong, '--json', '--policy-engine', 'opa'], { env });
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p: { where: string; severity: string; message: string }) => `${p.where} ${p.severity} ${p.message}`)).toEqual([
      `${wrong}:1:37 error fine-grained-access-control-enabled is "false"; the contract requires true`,
      `${wrong}:2:21 error access-control.name is "ranger", but the settings name the policy engine "opa"`,
    ]);
  });

  it('a missing key is reported where it belongs; a missing file is one line', async () => {
    const env = cleanEnv();
    const file = join(env.DPGW_CONFIG_DIR!, 'access-control.properties');
    writeFileSync(file, 'access-control.name=opa\n');
    const result = await spawnDpgw(['access-control', 'check', file, '--json'], { env });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).problems.map((p: { key: string; message: string }) => p.key)).toEqual(['fine-grained-access-control-enabled', 'opa.policy.uri']);

    const missing = await spawnDpgw(['access-control', 'check', join(env.DPGW_CONFIG_DIR!, 'nope.properties')], { env });
    expect(missing.code).toBe(2);
    expect(stderrLines(missing)).toHaveLength(1);
    expect(missing.stderr).toContain('nope.properties: cannot read');
    expect(missing.stderr).toContain('no such file');
  });
});

async function setUp(options: SandboxOptions = {}) {
  sandbox = await startSandbox({ topicDelayMs: 0, rowsPerTable: 50, ...options });
  const s = sandbox;
  const admin = cleanEnv({
    DPGW_GATEWAY: s.gatewayUrl,
    DPGW_TOKEN: await tokenFor(s, 'admin'),
    DPGW_BROKER_LIST: s.stream.brokerList,
    DPGW_REGISTRY_URL: s.stream.registryUrl,
    DPGW_STREAM_USER: s.stream.user,
    DPGW_STREAM_PASSWORD: s.stream.password,
  });
  const asAdmin = async (args: string[]) => {
    const result = await spawnDpgw(args, { env: admin });
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  };
  const createTrackTable = async () => {
    await asAdmin(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP]);
    await asAdmin(['schema', 'push', SCHEMA]);
    await asAdmin(['table', 'create', '--dataset', 'track', '--schema', SCHEMA]);
  };
  const verifyAs = async (username: string, args: string[], extra: Record<string, string> = {}) =>
    spawnDpgw(['verify', '--dataset', 'track', ...args], { env: cleanEnv({ DPGW_QUERY_ENGINE: s.queryEngineUrl, DPGW_TOKEN: await tokenFor(s, username), ...extra }) });
  return { sandbox: s, asAdmin, createTrackTable, verifyAs };
}

describe('dpgw verify', () => {
  it('a table the store does not hold: exit 9 at once, naming how to create it, not after --wait (the default test timeout is far below 600 s)', async () => {
    const { sandbox, verifyAs } = await setUp();
    const missing = await verifyAs('analyst', ['--wait', '600'], { DPGW_GATEWAY: sandbox.gatewayUrl });
    expect(missing.code).toBe(9);
    expect(stderrLines(missing)).toEqual([
      `dpgw: ${sandbox.gatewayUrl}/api/internal/olap/tables/track: table track does not exist in the analytics store — create it first: dpgw provision <manifest> (a manifest that lists track), or dpgw table create --dataset track --schema <file>`,
    ]);
    expect(sandbox.requestLog.of('query-engine')).toEqual([]);
  });

  it('on 1.15.164 the analyst sees the table only after the storage touch; the outsider never', async () => {
    const { sandbox, asAdmin, createTrackTable, verifyAs } = await setUp();
    await createTrackTable();

    const before = await verifyAs('analyst', []);
    expect(before.code).toBe(8);
    expect(before.stdout).toContain('✗ schema listed  listed (none)');
    expect(before.stderr).toContain('verify: rows returned failed: expected at least 1 row; the query engine answered PERMISSION_DENIED: Access Denied: Cannot select from columns [');
    expect(before.stderr).toContain('in table or view pinot.default.track');
    expect(before.stderr).toContain('`dpgw storage touch --dataset track`');
    expect((await verifyAs('analyst', ['--expect', 'hidden'])).code).toBe(0);

    await asAdmin(['storage', 'touch', '--dataset', 'track']);
    const after = await verifyAs('analyst', ['--min-rows', '50', '--json']);
    expect(after.code, after.stderr).toBe(0);
    const report = JSON.parse(after.stdout);
    expect(report).toMatchObject({ ok: true, user: 'analyst', groups: [TRACK_GROUP], expect: 'visible', catalog: 'pinot', schema: 'default', table: 'track', rows: 50, queryEngine: sandbox.queryEngineUrl });
    expect(report.checks.map((c: { check: string; sql: string }) => `${c.check}: ${c.sql}`)).toEqual([
      'schema listed: SHOW SCHEMAS FROM pinot',
      'table listed: SHOW TABLES FROM pinot.default',
      'rows returned: SELECT * FROM default.track LIMIT 50',
    ]);
    expect(report.columns).toEqual(['__security__', 'alt', 'asset', 'classificationmarking', 'createdby', 'datamode', 'id', 'lat', 'lon', 'objident', 'objtype', 'origin', 'orignetwork', 'time', 'trkid']);

    const hidden = await verifyAs('outsider', ['--expect', 'hidden']);
    expect(hidden.code, hidden.stderr).toBe(0);
    expect(hidden.stderr).toContain('✓ outsider sees neither pinot.default nor track, and the SELECT is denied');
    expect(hidden.stdout).toContain('✓ select denied  PERMISSION_DENIED: Access Denied');
    const visible = await verifyAs('outsider', []);
    expect(visible.code).toBe(8);

    // What the engine was sent: the token, the session catalog, and the contract's SELECT.
    const statements = sandbox.requestLog.entries.filter((e) => e.server === 'query-engine' && e.method === 'POST');
    expect(statements.every((e) => e.headers.authorization === 'Bearer ***' && e.headers['x-trino-catalog'] === 'pinot')).toBe(true);
    expect(statements.map((e) => e.body)).toContain('SELECT * FROM default.track LIMIT 1');
  });

  it('from 1.15.165 table creation grants by itself; --wait asks again until the rows are there', async () => {
    const { createTrackTable, verifyAs } = await setUp({ platformVersion: '1.15.165' });
    await createTrackTable();
    const result = await verifyAs('analyst', ['--min-rows', '60', '--wait', '3']);
    // 50 rows are all the table has: the check fails after asking again.
    expect(result.code).toBe(8);
    expect(result.stderr).toContain('not yet (attempt 1): rows returned: 50 rows');
    expect(result.stderr).toContain('ingestion is asynchronous, give it time with --wait <seconds>');
    expect((await verifyAs('analyst', ['--min-rows', '50'])).code).toBe(0);
  });

  it('an unknown table, an engine that is not there and a token it refuses: one line each, the documented exit code', async () => {
    const { createTrackTable, verifyAs, sandbox } = await setUp();
    await createTrackTable();
    const unknown = await verifyAs('outsider', ['--table', 'trak', '--expect', 'hidden']);
    expect(unknown.code).toBe(8);
    expect(unknown.stderr).toContain("TABLE_NOT_FOUND: line 1:15: Table 'pinot.default.trak' does not exist");
    expect(unknown.stderr).toContain('the table does not exist in pinot.default at all, so this proves nothing about access: check --table');

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await verifyAs('analyst', [], { DPGW_QUERY_ENGINE: `http://127.0.0.1:${port}` });
    expect(unreachable.code).toBe(5);
    expect(stderrLines(unreachable)).toEqual([`dpgw: cannot reach 127.0.0.1:${port} for POST http://127.0.0.1:${port}/v1/statement (ECONNREFUSED) — check --query-engine (see \`dpgw config\`) and that the query engine is running`]);

    const forged = await spawnDpgw(['verify', '--dataset', 'track', '--query-engine', sandbox.queryEngineUrl], { env: cleanEnv({ DPGW_TOKEN: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' }) });
    expect(forged.code).toBe(4);
    expect(stderrLines(forged)).toHaveLength(1);
    expect(forged.stderr).toContain('the query engine refused the token: Invalid JWT');

    const noEngine = await spawnDpgw(['verify', '--dataset', 'track'], { env: cleanEnv({ DPGW_TOKEN: 'x.y.z' }) });
    expect(noEngine.code).toBe(2);
    expect(noEngine.stderr).toContain('set it with --query-engine, or DPGW_QUERY_ENGINE');
    const badFlag = await spawnDpgw(['verify', '--dataset', 'track', '--expect', 'seen'], { env: cleanEnv() });
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain("argument 'seen' is invalid. Allowed choices are visible, hidden.");
  });
});

describe('dpgw provision with a verify step', () => {
  async function withProfiles() {
    const { sandbox } = await setUp();
    const env = cleanEnv({ DPGW_PROFILE: 'admin' });
    const dir = env.DPGW_CONFIG_DIR!;
    writeFileSync(join(dir, 'client-secret'), sandbox.clientSecret, { mode: 0o600 });
    writeFileSync(join(dir, 'stream-password'), sandbox.stream.password, { mode: 0o600 });
    const profile = (username: string) => ({
      gateway: sandbox.gatewayUrl,
      authUrl: sandbox.authUrl,
      realm: sandbox.realm,
      clientId: sandbox.clientId,
      clientSecret: `file:${join(dir, 'client-secret')}`,
      username,
      queryEngine: sandbox.queryEngineUrl,
      brokerList: sandbox.stream.brokerList,
      registryUrl: sandbox.stream.registryUrl,
      streamUser: sandbox.stream.user,
      streamPassword: `file:${join(dir, 'stream-password')}`,
    });
    writeFileSync(join(dir, 'config.yaml'), stringify({ profiles: { admin: profile('admin'), analyst: profile('analyst'), outsider: profile('outsider') } }), { mode: 0o600 });
    for (const username of ['admin', 'analyst', 'outsider']) {
      const login = await spawnDpgw(['login', '--profile', username, '--password-stdin'], { env, input: `${sandbox.users.find((u) => u.username === username)!.password}\n` });
      expect(login.code, login.stderr).toBe(0);
    }
    const manifest = (verify: Record<string, unknown>) => {
      const file = join(dir, 'provision.yaml');
      copyFileSync(SCHEMA, join(dir, 'track-schema.yaml'));
      writeFileSync(file, stringify({ version: 1, dataSets: [{ datasource: 'mock-data-library', dataset: 'track', groups: [TRACK_GROUP], schema: 'track-schema.yaml', table: { name: 'track' }, verify }] }));
      return file;
    };
    return { sandbox, env, manifest };
  }

  it('checks access as each profile after the storage touch and reports it in the summary', async () => {
    const { env, manifest } = await withProfiles();
    const file = manifest({ visible: ['analyst'], hidden: ['outsider'] });
    const plan = await spawnDpgw(['provision', file, '--plan'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('8. verify    check        in the query engine, as analyst (visible), outsider (hidden)');

    const result = await spawnDpgw(['provision', file], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^DATA SET +TOPIC +SCHEMA +TABLE +STORAGE +CONSUMING +VERIFY +STATUS +TIME$/m);
    expect(result.stdout).toMatch(/^track .* changed +3 of 3 +passed +done /m);
    const json = await spawnDpgw(['provision', file, '--json'], { env });
    const verify = JSON.parse(json.stdout).dataSets[0].steps.find((s: { step: string }) => s.step === 'verify');
    expect(verify).toEqual({ step: 'verify', action: 'check', status: 'passed', reason: 'analyst sees track (1 row); outsider sees nothing, SELECT denied' });
  });

  it("the run's own sign-in named in its environment (DPGW_USERNAME, DPGW_PASSWORD: the admin who provisions) does not become the verify profiles' user: each checks as its own", async () => {
    const { env, manifest, sandbox } = await withProfiles();
    const admin = sandbox.users.find((u) => u.username === 'admin')!;
    const result = await spawnDpgw(['provision', manifest({ visible: ['analyst'], hidden: ['outsider'] }), '--json'], { env: { ...env, DPGW_USERNAME: 'admin', DPGW_PASSWORD: admin.password } });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).dataSets[0].steps.find((s: { step: string }) => s.step === 'verify')).toMatchObject({ status: 'passed', reason: 'analyst sees track (1 row); outsider sees nothing, SELECT denied' });
  });

  it('a profile that may not see the table fails the data set with exit 8; an unknown profile fails before any request', async () => {
    const { sandbox, env, manifest } = await withProfiles();
    const result = await spawnDpgw(['provision', manifest({ visible: ['analyst', 'outsider'] }), '--json'], { env });
    expect(result.code).toBe(8);
    const dataSet = JSON.parse(result.stdout).dataSets[0];
    expect(dataSet.status).toBe('failed');
    expect(dataSet.steps.at(-1)).toMatchObject({ step: 'verify', status: 'failed' });
    expect(dataSet.error.message).toContain('as profile outsider (expected visible): schema listed failed');

    const before = sandbox.requestLog.entries.length;
    const unknown = await spawnDpgw(['provision', manifest({ hidden: ['nobody'] })], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown profile "nobody"');
    expect(sandbox.requestLog.entries.length).toBe(before);
  });
});
