/**
 * Files dpgw is pointed at can be anything: a FIFO, a device, an alias bomb, a config
 * that someone else can write. Each is refused in one line, with nothing sent.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startRecordingServer } from '../helpers/recording-server.js';
import { cleanEnv, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { TRACK_SCHEMA_FILE } from '../helpers/track.js';

const sandboxes = sandboxPerTest();

/** A schema of 700 bytes whose optional fields hide nine levels of aliases, standing for 10^9 values. */
function aliasBombSchema(): string {
  const lines = ['schemaName: bomb', 'dimensionFieldSpecs:', '  - { name: c0, dataType: STRING, defaultNullValue: &a [x,x,x,x,x,x,x,x,x,x] }'];
  for (let level = 1; level < 9; level++) {
    const [name, previous] = [String.fromCharCode(97 + level), String.fromCharCode(96 + level)];
    lines.push(`  - { name: c${level}, dataType: STRING, defaultNullValue: &${name} [${Array(10).fill(`*${previous}`).join(',')}] }`);
  }
  return [...lines, 'primaryKeyColumns: *i', 'enableColumnBasedNullHandling: *i', ''].join('\n');
}

describe('files that are not what they claim', () => {
  it('an alias bomb in a schema: refused at once by validate, push --dry-run and provision, nothing sent', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const folder = mkdtempSync(join(tmpdir(), 'dpgw-bomb-'));
    const file = join(folder, 'schema.yaml');
    writeFileSync(file, aliasBombSchema());
    expect(readFileSync(file, 'utf8').length).toBeLessThan(1200);
    for (const args of [['schema', 'validate', file], ['schema', 'push', file, '--dry-run']]) {
      const result = await spawnDpgw(args, { env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(/aliases \(\*name\) expand to \d\.\de\+\d+ values from \d+ bytes of text/);
    }
    const manifest = join(folder, 'provision.yaml');
    writeFileSync(manifest, 'dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [g], schema: schema.yaml }\n');
    const provision = await spawnDpgw(['provision', manifest], { env });
    expect(provision.code).toBe(2);
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
  });

  it("a schema's optional fields are type-checked: a list where true/false belongs is located, not sent", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'dpgw-types-'));
    const file = join(folder, 'schema.yaml');
    writeFileSync(file, `${readFileSync(TRACK_SCHEMA_FILE, 'utf8')}\nenableColumnBasedNullHandling: [1, 2]\nprimaryKeyColumns: nope\n`);
    const result = await spawnDpgw(['schema', 'validate', file]);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/schema\.yaml:\d+:\d+: enableColumnBasedNullHandling: enableColumnBasedNullHandling must be true or false, not \[1,2\]/);
    expect(result.stdout).toMatch(/primaryKeyColumns: primaryKeyColumns must be a list of column names, not "nope"/);
  });

  it('a FIFO as schema or access-control file and /dev/zero as the CA file: refused in one line, no hang', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'dpgw-fifo-'));
    const fifo = join(folder, 'schema.yaml');
    execFileSync('mkfifo', [fifo]);
    const gateway = await startRecordingServer({ 'GET /api/health': () => ({ body: { status: 'UP' } }) });
    try {
      const env = cleanEnv({ DPGW_GATEWAY: gateway.url, DPGW_TOKEN: 'file-test-token-1234' });
      const schema = await spawnDpgw(['schema', 'push', fifo], { env });
      expect(schema.code).toBe(2);
      expect(schema.stderr).toContain(`the schema file ${fifo} is a FIFO (named pipe): dpgw reads only regular files`);
      const accessControl = await spawnDpgw(['access-control', 'check', fifo], { env });
      expect(accessControl.code).toBe(2);
      expect(accessControl.stderr).toContain('is a FIFO (named pipe)');
      const ca = await spawnDpgw(['health', '--ca-file', '/dev/zero'], { env });
      expect(ca.code).toBe(2);
      expect(ca.stderr.trimEnd()).toMatch(/^dpgw: --ca-file: the certificate authorities file \/dev\/zero is a device: dpgw reads only regular files/);
      expect(gateway.requests).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});

describe("a manifest's symbolic links lead nowhere outside its folder", () => {
  /** A manifest's folder with links committed in it, and files outside it a CI job could reach. */
  function linkedFolder() {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'dpgw-outside-')));
    writeFileSync(join(outside, 'outside.yaml'), 'outsideSecretKey: outside-file-content-4321\n');
    writeFileSync(join(outside, 'outside-token'), 'outside-token-8765\n');
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'dpgw-links-')));
    symlinkSync(join(outside, 'outside.yaml'), join(folder, 'schema.yaml'));
    symlinkSync(join(outside, 'outside.yaml'), join(folder, 'table.yaml'));
    symlinkSync(join(outside, 'outside-token'), join(folder, 'pw'));
    symlinkSync(outside, join(folder, 'shared'));
    // Links that stay inside the folder are followed.
    mkdirSync(join(folder, 'real'));
    copyFileSync(TRACK_SCHEMA_FILE, join(folder, 'real', 'track.yaml'));
    copyFileSync(join(ROOT, 'templates', 'realtime-table.yaml'), join(folder, 'real', 'table.yaml'));
    symlinkSync(join('real', 'track.yaml'), join(folder, 'inside-schema.yaml'));
    symlinkSync(join(folder, 'real', 'table.yaml'), join(folder, 'inside-table.yaml'));
    return { folder, outside };
  }

  it('a linked schema, template or file: secret that leads outside is refused at its file:line:column, its content neither shown nor sent', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const { folder, outside } = linkedFolder();
    const manifest = join(folder, 'provision.yaml');
    writeFileSync(
      manifest,
      [
        'settings:',
        `  streamPassword: file:${folder}/pw`,
        'dataSets:',
        '  - { datasource: mock-data-library, dataset: track, groups: [g], schema: schema.yaml, table: { template: table.yaml } }',
        '  - { datasource: mock-data-library, dataset: other, groups: [g], schema: shared/outside.yaml }',
        '  - { datasource: mock-data-library, dataset: inside, groups: [g], schema: inside-schema.yaml, table: { template: inside-table.yaml } }',
        '',
      ].join('\n'),
    );
    for (const args of [['--plan'], []]) {
      const result = await spawnDpgw(['provision', manifest, '--allow-manifest-secrets', ...args], { env });
      expect(result.code, result.stderr).toBe(2);
      const tail = `outside the manifest's folder ${folder}: move it there, or pass --allow-outside-files to read it`;
      expect(result.stderr).toContain(`provision.yaml:2:19: settings.streamPassword: the streamPassword file ${folder}/pw is a link to ${outside}/outside-token, ${tail}`);
      expect(result.stderr).toContain(`provision.yaml:4:75: dataSets[0].schema: schema file ${folder}/schema.yaml is a link to ${outside}/outside.yaml, ${tail}`);
      expect(result.stderr).toContain(`provision.yaml:4:107: dataSets[0].table.template: template ${folder}/table.yaml is a link to ${outside}/outside.yaml, ${tail}`);
      expect(result.stderr).toContain(`provision.yaml:5:75: dataSets[1].schema: schema file ${folder}/shared/outside.yaml leads through a link to ${outside}/outside.yaml, ${tail}`);
      expect(result.stderr).not.toContain('dataSets[2]');
      expect(result.stdout + result.stderr).not.toMatch(/outside-file-content|outsideSecretKey|outside-token-8765/);
    }
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
    // A direct path outside stays refused, as before.
    writeFileSync(manifest, `settings:\n  streamPassword: file:${outside}/outside-token\ndataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [g], schema: inside-schema.yaml }\n`);
    const direct = await spawnDpgw(['provision', manifest, '--allow-manifest-secrets'], { env });
    expect(direct.code).toBe(2);
    expect(direct.stderr).toContain(`settings.streamPassword: the streamPassword file ${outside}/outside-token is outside the manifest's folder ${folder}`);
  });

  it('links that stay inside the folder are followed: the plan runs', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const { folder } = linkedFolder();
    const manifest = join(folder, 'provision.yaml');
    writeFileSync(manifest, 'dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [g], schema: inside-schema.yaml, table: { template: inside-table.yaml } }\n');
    const result = await spawnDpgw(['provision', manifest, '--plan'], { env });
    expect(result.stderr).not.toContain("outside the manifest's folder");
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('config.yaml that someone else can change', () => {
  const configWith = (mode: number, folderMode = 0o700) => {
    const env = cleanEnv();
    const folder = env.DPGW_CONFIG_DIR!;
    writeFileSync(join(folder, 'config.yaml'), 'currentProfile: dev\nprofiles:\n  dev:\n    gateway: http://127.0.0.1:1\n    clientSecret: "exec:/bin/echo s"\n');
    chmodSync(join(folder, 'config.yaml'), mode);
    chmodSync(folder, folderMode);
    return { env, folder };
  };

  it('writable by others, or in a folder others can write to: refused with the fix, before any command reads it', async () => {
    for (const [mode, folderMode, expected] of [
      [0o666, 0o700, /config file can be changed by others \(mode 666\).* — chmod 600 /],
      [0o600, 0o777, /config file is in a folder others can write to \(.*, mode 777\).* — move it to a folder only you can write to/],
    ] as const) {
      const { env } = configWith(mode, folderMode);
      const result = await spawnDpgw(['config'], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(expected);
    }
    const { env } = configWith(0o600);
    expect((await spawnDpgw(['config'], { env })).code).toBe(0);
  });
});

describe('plain HTTP off this machine', () => {
  it('warns that the token crosses the network unencrypted; loopback does not', async () => {
    const remote = await spawnDpgw(['health', '--timeout', '1'], { env: cleanEnv({ DPGW_GATEWAY: 'http://gateway.invalid', DPGW_TOKEN: 'plain-test-token-1234' }) });
    expect(remote.stderr).toContain('warning: the gateway http://gateway.invalid is plain HTTP: the bearer token and the stream password cross the network unencrypted; use https://');
    const local = await spawnDpgw(['health', '--timeout', '1'], { env: cleanEnv({ DPGW_GATEWAY: 'http://127.0.0.1:1', DPGW_TOKEN: 'plain-test-token-1234' }) });
    expect(local.stderr).not.toContain('plain HTTP');
  });
});
