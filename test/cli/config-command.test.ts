/** `dpgw config`: precedence, sources, profile edits, secrets masked, --json. */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runInProcess, spawnDpgw } from '../helpers/run-dpgw.js';

function configJson(stdout: string): { profile: string; settings: Record<string, { value: string | null; source: string }> } {
  return JSON.parse(stdout);
}

describe('settings precedence: flag > environment > profile > default', () => {
  it('shows each value with where it came from', async () => {
    const env = cleanEnv({ DPGW_GATEWAY: 'http://from-env', DPGW_REALM: 'env-realm' });
    const file = join(env.DPGW_CONFIG_DIR!, 'config.yaml');
    writeFileSync(file, '# team settings\ncurrentProfile: dev\nprofiles:\n  dev:\n    gateway: http://from-profile\n    realm: profile-realm\n    clientId: backend\n');
    const { code, stdout, stderr } = await runInProcess(['config', '--json', '--realm', 'flag-realm'], env);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const shown = configJson(stdout);
    expect(shown.profile).toBe('dev');
    expect(shown.settings.realm).toEqual({ value: 'flag-realm', source: 'flag --realm' });
    expect(shown.settings.gateway).toEqual({ value: 'http://from-env', source: 'env DPGW_GATEWAY' });
    expect(shown.settings.clientId).toEqual({ value: 'backend', source: `profile "dev" ${file}:7:15` });
    expect(shown.settings.streamType).toEqual({ value: 'mq', source: 'default' });
    expect(shown.settings.olapSegment).toEqual({ value: 'olap', source: 'default' });
    expect(shown.settings.username).toEqual({ value: null, source: 'not set' });
  });

  it('never shows a secret from the environment, but shows a secret reference', async () => {
    const env = cleanEnv({ DPGW_TOKEN: 'raw-bearer-token-value', DPGW_CLIENT_SECRET: 'raw-client-secret-value' });
    const human = await spawnDpgw(['config'], { env });
    const json = await spawnDpgw(['config', '--json'], { env });
    for (const output of [human.stdout, human.stderr, json.stdout, json.stderr]) {
      expect(output).not.toContain('raw-bearer-token-value');
      expect(output).not.toContain('raw-client-secret-value');
    }
    expect(configJson(json.stdout).settings.token).toEqual({ value: '***', source: 'env DPGW_TOKEN' });
    const withReference = await spawnDpgw(['config', '--json', '--client-secret', 'env:BACKEND_SECRET'], { env: cleanEnv() });
    expect(configJson(withReference.stdout).settings.clientSecret).toEqual({ value: 'env:BACKEND_SECRET', source: 'flag --client-secret' });
  });
});

describe('profiles', () => {
  it('set, use and unset edit config.yaml, keep comments, and write it 0600', async () => {
    const env = cleanEnv();
    const file = join(env.DPGW_CONFIG_DIR!, 'config.yaml');
    expect((await runInProcess(['config', 'set', 'gateway', 'http://local:8080'], env)).code).toBe(0);
    writeFileSync(file, `# my comment\n${readFileSync(file, 'utf8')}`);
    const set = await runInProcess(['config', 'set', '--profile', 'prod', 'platformVersion', '1.15.165'], env);
    expect(set.code).toBe(0);
    expect(set.stderr).toContain('platformVersion set in profile "prod"');
    expect((await runInProcess(['config', 'use', 'prod'], env)).code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# my comment');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const shown = configJson((await runInProcess(['config', '--json'], env)).stdout);
    expect(shown.profile).toBe('prod');
    expect(shown.settings.platformVersion?.value).toBe('1.15.165');
    expect(shown.settings.gateway?.value).toBe(null);

    const profiles = await runInProcess(['config', 'profiles'], env);
    expect(profiles.stdout).toBe('  default\n* prod\n');
    expect((await runInProcess(['config', 'unset', 'platformVersion'], env)).code).toBe(0);
    expect(configJson((await runInProcess(['config', '--json'], env)).stdout).settings.platformVersion?.value).toBe(null);
  });

  it('refuses an unknown key, a raw client secret and an unknown profile, changing nothing', async () => {
    const env = cleanEnv();
    const file = join(env.DPGW_CONFIG_DIR!, 'config.yaml');
    writeFileSync(file, 'profiles:\n  dev:\n    gateway: http://gw\n');
    const unknownKey = await runInProcess(['config', 'set', 'gatewya', 'x'], env);
    expect(unknownKey.code).toBe(2);
    expect(unknownKey.stderr).toContain('did you mean "gateway"?');
    const rawSecret = await runInProcess(['config', 'set', 'clientSecret', 'hunter2-secret'], env);
    expect(rawSecret.code).toBe(2);
    expect(rawSecret.stderr).toContain('must be a secret reference');
    expect(rawSecret.stderr).not.toContain('hunter2-secret');
    const unknownProfile = await runInProcess(['config', 'use', 'deb'], env);
    expect(unknownProfile.code).toBe(2);
    expect(unknownProfile.stderr).toContain('did you mean "dev"?');
    expect(readFileSync(file, 'utf8')).toBe('profiles:\n  dev:\n    gateway: http://gw\n');
  });

  it('config set checks a value as a flag would, and takes every reference docs/secrets.md shows for every secret setting', async () => {
    const env = cleanEnv();
    const file = join(env.DPGW_CONFIG_DIR!, 'config.yaml');
    writeFileSync(file, 'profiles:\n  dev:\n    gateway: http://gw\n');
    const refused: Array<[string, string, string]> = [
      ['timeout', '0', 'timeout "0" is not a number of seconds above 0 and at most 3600'],
      ['timeout', 'soon', 'timeout "soon" is not a number of seconds'],
      ['retentionDays', '-3', 'retentionDays "-3" is not a whole number of days from 1'],
      ['gateway', 'gw.example', '"gw.example" is not a URL'],
      ['clientAuth', 'header', 'client authentication "header" is not post or basic'],
      ['platformVersion', 'latest', 'platform version "latest" is not a version such as 1.15.164'],
      ['brokerList', 'kafka', 'broker "kafka" is not host:port'],
      ['streamPassword', 'plain-stream-password', 'the streamPassword must be a secret reference'],
      ['dashboardPassword', 'plain-dashboard-password', 'the dashboardPassword must be a secret reference'],
    ];
    for (const [key, value, message] of refused) {
      const result = await runInProcess(['config', 'set', key, value], env);
      expect(result.code, `${key} ${value}`).toBe(2);
      expect(result.stderr).toContain(`dpgw: config set ${key}: ${message}`);
      if (key.endsWith('Password')) expect(result.stderr).not.toContain(value);
    }
    expect(readFileSync(file, 'utf8')).toBe('profiles:\n  dev:\n    gateway: http://gw\n');
    for (const [key, value] of [['clientSecret', 'base64:exec:kubectl get secret backend -o jsonpath={.data.secret}'], ['streamPassword', 'file:~/.stream-password'], ['dashboardPassword', 'prompt'], ['timeout', '0.5']]) {
      expect((await runInProcess(['config', 'set', key!, value!], env)).code, `${key} ${value}`).toBe(0);
    }
  });

  it('a secret hand-written into config.yaml where a reference belongs is masked by config show and named, never repeated, when used', async () => {
    const env = cleanEnv();
    writeFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), 'profiles:\n  default:\n    gateway: http://127.0.0.1:1\n    brokerList: 127.0.0.1:9\n    registryUrl: http://r\n    streamUser: u\n    streamPassword: hand-written-stream-password\n');
    const shown = await runInProcess(['config', '--json'], env);
    expect(configJson(shown.stdout).settings.streamPassword?.value).toBe('***');
    const used = await spawnDpgw(['table', 'render', '--dataset', 'track', '--schema', 'examples/track/schema.yaml', '--topic', 't'], { env });
    expect(`${used.stdout}${used.stderr}`).not.toContain('hand-written-stream-password');
  });

  it('with --json, an error is one JSON document on stdout and one line on stderr', async () => {
    const env = cleanEnv();
    const { code, stdout, stderr } = await runInProcess(['config', 'use', 'missing', '--json'], env);
    expect(code).toBe(2);
    expect(JSON.parse(stdout)).toMatchObject({ error: { kind: 'usage', exitCode: 2, message: 'unknown profile "missing"' } });
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('config path names the file without reading it', async () => {
    const env = cleanEnv();
    writeFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), 'not: [valid');
    const { code, stdout } = await runInProcess(['config', 'path'], env);
    expect(code).toBe(0);
    expect(stdout).toBe(`${join(env.DPGW_CONFIG_DIR!, 'config.yaml')}\n`);
  });
});
