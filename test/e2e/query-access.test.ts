/**
 * Contract steps 1, 6, 7 and 8 on the real platform: Trino started from the file
 * `dpgw access-control render` wrote, deciding through OPA with dpgw's policy;
 * the backed gateway playing the authorization service that writes the grants
 * into OPA (on the storage touch before 1.15.165, on table creation from it on);
 * tokens from Keycloak; rows from Kafka through Pinot.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { certificateAuthorities } from '../../src/net/trust-and-proxy.js';
import { StatementClient } from '../../src/query-engine/statement-client.js';
import { cleanEnv, ROOT, spawnDpgw, type RunResult } from '../helpers/run-dpgw.js';
import { adminEnv, startBackedGateway } from './backed-platform.js';

const keycloak = inject('keycloak');
const kafka = inject('kafka');
const opa = inject('opa');
const pinot = inject('pinot');
const trino = inject('trino');
const { Kafka, logLevel } = kafkajs;
let sandbox: Sandbox;
/** One config folder for the run: profiles analyst and outsider, each signed in once. */
let configDir: string;
let cacheDir: string;

const password = (username: string) => keycloak.users.find((u) => u.username === username)!.password;

beforeAll(async () => {
  sandbox = await startBackedGateway({ platformVersion: '1.15.164', grants: true });
  const base = cleanEnv();
  configDir = base.DPGW_CONFIG_DIR!;
  cacheDir = base.XDG_CACHE_HOME!;
  writeFileSync(join(configDir, 'client-secret'), keycloak.clientSecret, { mode: 0o600 });
  const profile = (username: string) => ({
    authUrl: keycloak.authUrl,
    realm: keycloak.realm,
    clientId: keycloak.clientId,
    clientSecret: `file:${join(configDir, 'client-secret')}`,
    username,
    gateway: sandbox.gatewayUrl,
    queryEngine: trino.url,
    queryCatalog: trino.catalog,
    caFile: trino.caFile,
  });
  writeFileSync(join(configDir, 'config.yaml'), stringify({ profiles: { analyst: profile('analyst'), outsider: profile('outsider') } }), { mode: 0o600 });
  for (const username of ['analyst', 'outsider']) {
    const login = await spawnDpgw(['login', '--profile', username, '--password-stdin'], { env: userEnv(), input: `${password(username)}\n` });
    expect(login.code, login.stderr).toBe(0);
  }
});
afterAll(() => sandbox?.close());

/** The environment of a user with the run's profiles (no DPGW_TOKEN: each profile's own session). */
function userEnv(): NodeJS.ProcessEnv {
  return { ...cleanEnv(), DPGW_CONFIG_DIR: configDir, XDG_CACHE_HOME: cacheDir };
}

/** The admin who provisions, as in a pipeline; the stream password as such, as CI has it. */
const asAdminEnv = () => adminEnv(sandbox.gatewayUrl, { DPGW_STREAM_PASSWORD: kafka.streamPassword });

async function asAdmin(args: string[]): Promise<RunResult> {
  const env = asAdminEnv();
  if (args[0] !== 'provision') {
    const login = await spawnDpgw(['login'], { env });
    expect(login.code, login.stderr).toBe(0);
  }
  return spawnDpgw(args, { env });
}

const verifyAs = (profile: string, args: string[]) => spawnDpgw(['verify', '--profile', profile, ...args], { env: userEnv() });

/** A schema for another data set: the track columns under the data set's name. */
function schemaFor(name: string): string {
  const file = join(configDir, `${name}-schema.yaml`);
  writeFileSync(file, readFileSync(join(ROOT, 'examples/track/schema.yaml'), 'utf8').replace(/^schemaName: track$/m, `schemaName: ${name}`));
  return file;
}

async function produce(topic: string, count: number, extra: Record<string, unknown> = {}): Promise<void> {
  const producer = new Kafka({ clientId: 'dpgw-e2e', brokers: [kafka.brokerList], sasl: { mechanism: 'scram-sha-512', username: kafka.streamUser, password: kafka.streamPassword }, logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  try {
    await producer.send({
      topic,
      messages: Array.from({ length: count }, (_, i) => ({
        value: JSON.stringify({ origin: 'AIS-COAST', dataMode: 'REAL', objType: 'SURFACE', id: `${topic}-${i}`, createdBy: 'dpgw-e2e', classificationMarking: 'UNCLASSIFIED', objIdent: 'NEUTRAL', origNetwork: 'AIS', trkId: `V${i % 30}`, asset: i % 12, __security__: { owner: 'data-platform' }, alt: 0, lon: -179 + ((i * 7.31) % 358), lat: -89 + ((i * 3.17) % 178), ...extra }),
      })),
    });
  } finally {
    await producer.disconnect();
  }
}

describe(`query access through Trino ${trino.version} and OPA ${opa.version}`, () => {
  it("Trino runs from the file dpgw rendered; the platform-only key stays with the platform", async () => {
    const rendered = readFileSync(trino.renderedFile, 'utf8');
    expect(rendered).toMatch(/^fine-grained-access-control-enabled=true$/m);
    expect(rendered).toMatch(/^access-control\.name=opa$/m);
    expect(rendered).toContain(`opa.policy.uri=${opa.policyUri}`);
    const check = await spawnDpgw(['access-control', 'check', trino.renderedFile, '--json'], { env: cleanEnv() });
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true, policyEngine: 'opa', problems: [] });
    // What the coordinator was given: the same keys less the one Trino would refuse to start with.
    expect(trino.accessControl).toMatchObject({ enabled: true, engine: 'opa' });
    const loaded = readFileSync(trino.accessControl.configFile!, 'utf8');
    expect(loaded).not.toContain('fine-grained-access-control-enabled');
    expect(loaded).toContain(`opa.policy.batched-uri=${opa.batchedPolicyUri}`);
  });

  it('platform 1.15.164: before the storage touch the analyst is denied; after it sees default, the table and the produced rows; the outsider never does', async () => {
    const schema = schemaFor('vessel');
    for (const args of [
      ['enable', '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', 'track-readers'],
      ['schema', 'push', schema],
      ['table', 'create', '--dataset', 'vessel', '--schema', schema, '--name', 'vessel'],
    ]) {
      const step = await asAdmin(args);
      expect(step.code, `${args.join(' ')}: ${step.stderr}`).toBe(0);
    }
    await produce('mock-data-library.vessel.vessel', 300);

    const before = await verifyAs('analyst', ['--dataset', 'vessel', '--json']);
    expect(before.code, before.stderr).toBe(8);
    const beforeReport = JSON.parse(before.stdout);
    expect(beforeReport.user).toBe('analyst');
    expect(beforeReport.checks.find((c: { check: string }) => c.check === 'rows returned').engineError.errorName).toBe('PERMISSION_DENIED');
    expect(before.stderr).toContain('dpgw storage touch --dataset vessel');

    const touch = await asAdmin(['storage', 'touch', '--dataset', 'vessel']);
    expect(touch.code, touch.stderr).toBe(0);
    const grant = (await (await fetch(`${opa.url}/v1/data/dpgw/grants/vessel`)).json()) as { result?: { groups: string[] } };
    expect(grant.result?.groups).toEqual(['track-readers']);

    const after = await verifyAs('analyst', ['--dataset', 'vessel', '--min-rows', '300', '--wait', '120', '--json']);
    expect(after.code, after.stderr).toBe(0);
    const report = JSON.parse(after.stdout);
    console.log(`[e2e] the analyst's SELECT returned ${report.rows} rows of the 300 produced after ${report.attempts} attempt(s)`);
    expect(report).toMatchObject({ ok: true, expect: 'visible', rows: 300, catalog: 'pinot', schema: 'default', table: 'vessel' });
    expect(report.columns).toEqual(expect.arrayContaining(['lon', 'lat', 'trkid', '__security__']));

    const hidden = await verifyAs('outsider', ['--dataset', 'vessel', '--expect', 'hidden', '--json']);
    expect(hidden.code, hidden.stderr).toBe(0);
    expect(JSON.parse(hidden.stdout).checks.map((c: { check: string; ok: boolean }) => `${c.check} ${c.ok}`)).toEqual(['schema hidden true', 'table hidden true', 'select denied true']);

    const denied = await verifyAs('outsider', ['--dataset', 'vessel']);
    expect(denied.code).toBe(8);
    expect(denied.stderr).toMatch(/rows returned failed: .*PERMISSION_DENIED: Access Denied: Cannot select from columns \[.*\] in table or view pinot\.default\.vessel/);
  }, 240_000);

  it('a column added to the vessel schema: provision sends it again, Pinot takes it, provision reloads the table, and DESCRIBE and a query through Trino see it', async () => {
    const wider = join(configDir, 'vessel-wider.yaml');
    writeFileSync(wider, readFileSync(schemaFor('vessel'), 'utf8').replace('metricFieldSpecs:', 'metricFieldSpecs:\n  - { name: speed, dataType: DOUBLE }'));
    const manifest = join(configDir, 'vessel-wider-provision.yaml');
    writeFileSync(manifest, stringify({ dataSets: [{ datasource: 'mock-data-library', dataset: 'vessel', groups: ['track-readers'], schema: wider, table: { name: 'vessel' } }] }));
    // Producers send a new field only once the schema has it: the sample check warns of the column no message carries yet, and the run adds it.
    const result = await spawnDpgw(['provision', manifest, '--json'], { env: asAdminEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('no sampled message carries column speed yet, added to schema vessel: it holds its default until the producers send it');
    const steps = JSON.parse(result.stdout).dataSets[0].steps;
    expect(steps.find((s: { step: string }) => s.step === 'sample')).toMatchObject({ action: 'check', status: 'passed' });
    expect(steps.find((s: { step: string }) => s.step === 'schema')).toMatchObject({ action: 'update', status: 'changed', difference: ['+ speed: DOUBLE (metric)'] });
    // The table was made by `table create`, which marks no owner: this manifest takes it over, and that is its only difference.
    expect(steps.find((s: { step: string }) => s.step === 'table')).toMatchObject({ action: 'update', status: 'changed', difference: ['+ metadata.customConfigs["dpgw.manifest"]: "vessel-wider-provision"'] });
    // Pinot holds the column, and provision reloaded the table's segments itself (issue #47 §1): no operator's call.
    const held = (await (await fetch(`${pinot.controller}/schemas/vessel`)).json()) as { metricFieldSpecs: Array<{ name: string }> };
    expect(held.metricFieldSpecs.map((c) => c.name)).toContain('speed');
    expect(steps.find((s: { step: string }) => s.step === 'reload')).toMatchObject({ action: 'update', status: 'changed', reason: expect.stringMatching(/^table vessel reloaded \(\d+ of \d+ segments?\): rows stored before show the added column speed/) });
    // The producers send it now.
    await produce('mock-data-library.vessel.vessel', 200, { speed: 12.5 });

    const token = (await spawnDpgw(['auth', 'token', '--profile', 'analyst'], { env: userEnv() })).stdout.trim();
    const engine = new StatementClient({ baseUrl: trino.url, catalog: trino.catalog, tokenSupplier: async () => token, certificateAuthorities: certificateAuthorities(trino.caFile, 'trino.caFile', {}) });
    try {
      let columns: string[] = [];
      // Trino's Pinot connector caches table metadata for a while: ask until it lists the column (bounded).
      for (let attempt = 0; attempt < 60 && !columns.includes('speed'); attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2_000));
        columns = (await engine.query('DESCRIBE default.vessel')).rows.map((row) => String(row[0]));
      }
      expect(columns).toContain('speed');
      // And a query of it through the query engine answers for every row, the rows stored before the reload included, with no error.
      const counted = await engine.query('SELECT COUNT(*) FROM default.vessel WHERE speed >= 0');
      expect(Number(counted.rows[0]?.[0])).toBeGreaterThan(0);
    } finally {
      engine.close();
    }
  }, 180_000);

  it('platform 1.15.165: provision grants by itself, and its verify step proves it as both profiles', async () => {
    sandbox.setPlatformVersion('1.15.165');
    const manifest = join(configDir, 'weather.yaml');
    writeFileSync(
      manifest,
      stringify({
        version: 1,
        dataSets: [
          { datasource: 'mock-data-library', dataset: 'weather', groups: ['track-readers'], schema: schemaFor('weather'), table: { name: 'weather' }, verify: { visible: ['analyst'], hidden: ['outsider'], minRows: 0, wait: 120 } },
        ],
      }),
    );
    // The admin's settings from the environment, the verify profiles' from config.yaml.
    const result = await spawnDpgw(['provision', manifest, '--json'], { env: { ...asAdminEnv(), DPGW_CONFIG_DIR: configDir, XDG_CACHE_HOME: cacheDir } });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.dataSets[0].steps.map((s: { step: string; status: string }) => `${s.step} ${s.status}`)).toEqual(['enable changed', 'stream passed', 'sample skipped', 'schema changed', 'table changed', 'storage skipped', 'consume passed', 'verify passed']);
    // The engine may take its metadata cache's time to see the new table: the step asked again until it did.
    expect(summary.dataSets[0].steps.find((s: { step: string }) => s.step === 'verify').reason).toMatch(/analyst sees weather .*; outsider sees nothing, SELECT denied/);
    const grant = (await (await fetch(`${opa.url}/v1/data/dpgw/grants/weather`)).json()) as { result?: { groups: string[] } };
    expect(grant.result?.groups).toEqual(['track-readers']);
  }, 240_000);

  it('a token the engine did not issue trust to gets exit 4; a missing table is a failed check, not a pass', async () => {
    const forged = await spawnDpgw(['verify', '--dataset', 'vessel', '--query-engine', trino.url, '--ca-file', trino.caFile], { env: cleanEnv({ DPGW_TOKEN: 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln' }) });
    expect(forged.code).toBe(4);
    expect(forged.stderr.trim().split('\n')).toHaveLength(1);
    expect(forged.stderr).toContain('the query engine refused the token');

    const missing = await verifyAs('outsider', ['--dataset', 'vessel', '--table', 'no_such_table', '--expect', 'hidden']);
    expect(missing.code).toBe(8);
    expect(missing.stderr).toContain("TABLE_NOT_FOUND: line 1:15: Table 'pinot.default.no_such_table' does not exist");
  });
});
