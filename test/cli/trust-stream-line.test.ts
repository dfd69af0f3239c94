/**
 * A line break in the stream user or password would end the quoted value of the table's
 * `sasl.jaas.config` line (Kafka's JAAS parser ends a quoted value there) and make the
 * rest new options of the store's consumer. From any source — flag, environment, profile,
 * secret reference, manifest — such a value is refused before anything is sent: exit 2,
 * one line naming the setting and where it came from, never the value. The same for every
 * value dpgw writes into a line another program parses: the access-control file's URLs
 * and the bearer token's header.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scramJaasConfig } from '../../src/olap/jaas-config.js';
import { checkAccessControl, propertyValue, renderAccessControl } from '../../src/query-access/access-control-file.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { cleanEnv, runInProcess, type RunResult } from '../helpers/run-dpgw.js';
import { TRACK_SCHEMA_FILE, trackSchemaBeside } from '../helpers/track.js';

// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/;
const FORGED = ' password="forged"; sasl.mechanism=PLAIN';
const BREAKS = { 'a line feed': '\n', 'a carriage return': '\r', 'a next line (U+0085)': '\u0085', 'a line separator (U+2028)': '\u2028', 'a paragraph separator (U+2029)': '\u2029', 'a tab': '\t', 'a NUL': '\u0000' };

let gateway: RecordingServer;
afterEach(async () => gateway?.close());

async function streamEnv(extra: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
  gateway = await startRecordingServer();
  return cleanEnv({ DPGW_GATEWAY: gateway.url, DPGW_TOKEN: 'stream-line-test-token', DPGW_BROKER_LIST: '127.0.0.1:9', DPGW_STREAM_USER: 'svc-stream', DPGW_STREAM_PASSWORD: 'stream-password-1234', ...extra });
}

function expectRefused(result: RunResult, where: RegExp, setting: RegExp, secret?: string): void {
  expect(result.code, result.stderr).toBe(2);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(where);
  expect(lines[0]).toMatch(setting);
  expect(result.stderr).not.toMatch(RAW_CONTROL);
  expect(result.stderr + result.stdout).not.toContain('forged');
  if (secret !== undefined) expect(result.stderr + result.stdout).not.toContain(secret);
  expect(gateway.requests.map((r) => `${r.method} ${r.path}`)).toEqual([]);
}

const tableCreate = ['table', 'create', '--dataset', 'track', '--schema', TRACK_SCHEMA_FILE, '--no-stream-check'];

describe('a control character in the stream user or password is refused before anything is sent', () => {
  it.each(Object.entries(BREAKS))('the stream user from the environment with %s', async (_what, character) => {
    const env = await streamEnv({ DPGW_STREAM_USER: `svc-stream${character}${FORGED}` });
    expectRefused(await runInProcess(tableCreate, env), /^dpgw: DPGW_STREAM_USER: /, /streamUser holds a line break or another control character/);
  });

  it.each(Object.entries(BREAKS))('the stream password from the environment with %s: named, never shown', async (_what, character) => {
    const password = `pass-9876${character}${FORGED}`;
    const env = await streamEnv({ DPGW_STREAM_PASSWORD: password });
    expectRefused(await runInProcess(tableCreate, env), /^dpgw: DPGW_STREAM_PASSWORD: /, /the stream password holds a line break or another control character/, 'pass-9876');
  });

  it('the stream user from a flag', async () => {
    const env = await streamEnv();
    expectRefused(await runInProcess([...tableCreate, '--stream-user', `svc\n${FORGED}`], env), /^dpgw: --stream-user: /, /streamUser holds/);
  });

  it('the stream user from a profile names the file, line and column', async () => {
    const env = await streamEnv({ DPGW_STREAM_USER: '' });
    writeFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), `currentProfile: ci\nprofiles:\n  ci:\n    streamUser: "svc\\n${FORGED.replace(/"/g, '\\"')}"\n`);
    expectRefused(await runInProcess(tableCreate, env), /^dpgw: .*config\.yaml:4:17: /, /streamUser holds/);
  });

  it('the stream password from a file: reference (one trailing newline is dropped, an inner one is not)', async () => {
    const env = await streamEnv({ DPGW_STREAM_PASSWORD: '' });
    const file = join(env.DPGW_CONFIG_DIR!, 'stream-password');
    writeFileSync(file, `pass-9876\n${FORGED}\n`, { mode: 0o600 });
    expectRefused(await runInProcess([...tableCreate, '--topic', 'track-topic', '--stream-password', `file:${file}`], env), /^dpgw: --stream-password: /, /the stream password holds/, 'pass-9876');
  });

  it('a password whose only newline is the file\'s last is read and used', async () => {
    const env = await streamEnv({ DPGW_STREAM_PASSWORD: '' });
    const file = join(env.DPGW_CONFIG_DIR!, 'stream-password');
    writeFileSync(file, 'pass-9876\n', { mode: 0o600 });
    const result = await runInProcess([...tableCreate, '--stream-password', `file:${file}`], env);
    // Refused or not by the gateway, the password was not: the run reached the gateway.
    expect(result.stderr).not.toMatch(/holds a line break/);
    expect(gateway.requests.length).toBeGreaterThan(0);
  });

  it('the stream user from a manifest names the manifest key, under --plan too', async () => {
    const env = await streamEnv({ DPGW_STREAM_USER: '' });
    const folder = env.DPGW_CONFIG_DIR!;
    trackSchemaBeside(folder);
    const manifest = join(folder, 'provision.yaml');
    writeFileSync(manifest, `settings:\n  streamUser: "svc\\u2028${FORGED.replace(/"/g, '\\"')}"\ndataSets:\n  - { datasource: lib, dataset: track, groups: [g], schema: track-schema.yaml, table: { name: track } }\n`);
    for (const extra of [['--plan'], []]) {
      expectRefused(await runInProcess(['provision', manifest, '--no-stream-check', ...extra], env), /^dpgw: .*provision\.yaml:2:15: /, /streamUser holds/);
    }
  });

  it('schema infer refuses the same stream user before it connects to a broker', async () => {
    const env = await streamEnv({ DPGW_STREAM_USER: `svc\r${FORGED}` });
    const result = await runInProcess(['schema', 'infer', '--dataset', 'track', '--topic', 'track-topic'], env);
    expectRefused(result, /^dpgw: DPGW_STREAM_USER: /, /streamUser holds/);
  });

  it('config set refuses such a stream user before it writes the profile', async () => {
    const env = await streamEnv();
    const result = await runInProcess(['config', 'set', 'streamUser', `svc\n${FORGED}`], env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/streamUser holds a line break/);
    expect(() => readFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), 'utf8')).toThrow();
  });

  it('the JAAS line itself refuses a control character any caller passes', () => {
    expect(() => scramJaasConfig('svc\nx', 'p')).toThrow();
    expect(() => scramJaasConfig('svc', 'p\u2028x')).toThrow();
    expect(scramJaasConfig('s"v\\c', 'p')).toBe('org.apache.kafka.common.security.scram.ScramLoginModule required username="s\\"v\\\\c" password="p";');
  });
});

describe('the token and the access-control URLs hold no line breaks or spaces', () => {
  it.each([
    ['a line break', 'abc.def.ghi\nX-Injected: 1'],
    ['a space', 'abc.def ghi'],
    ['a trailing newline', 'abc.def.ghi\n'],
  ])('DPGW_TOKEN with %s: one line naming DPGW_TOKEN, the token never shown, nothing sent', async (_what, token) => {
    const env = await streamEnv({ DPGW_TOKEN: token });
    const result = await runInProcess(['catalog', 'sources'], env);
    expectRefused(result, /^dpgw: DPGW_TOKEN: /, /the token holds/, 'abc.def');
  });

  it.each([
    ['ending in a backslash', 'http://opa:8181/v1/data/trino/allow\\'],
    ['with a line break', 'http://opa:8181/v1/data/trino/allow\nopa.policy.batched-uri=http://evil'],
    ['with a space', 'http://opa:8181/v1/data/trino/allow x'],
  ])('a policy URI %s is refused by access-control render, naming the flag', async (_what, uri) => {
    const env = await streamEnv();
    const output = join(env.DPGW_CONFIG_DIR!, 'access-control.properties');
    const result = await runInProcess(['access-control', 'render', '--policy-uri', uri, '--output', output], env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^dpgw: --policy-uri: /);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(() => readFileSync(output)).toThrow();
  });

  it('what render writes, the properties reader reads back value for value (writer against reader)', () => {
    const awkward = ['http://opa:8181/v1/data/allow\\', '\\\\server\\share', ' leading space', 'a\nb', 'a\rb', 'x\u2028y', 'tab\there', 'ümlaut', 'a=b:c #d !e'];
    for (const value of awkward) {
      const text = renderAccessControl({ policyEngine: 'opa', policyUri: value, policyBatchedUri: 'http://opa:8181/v1/data/batch' });
      const read = checkAccessControl(text, { policyEngine: 'opa' }).properties;
      expect(read['opa.policy.uri'], JSON.stringify(value)).toBe(value);
      expect(read['opa.policy.batched-uri']).toBe('http://opa:8181/v1/data/batch');
      expect(propertyValue(value)).not.toMatch(/[\n\r\u2028]/);
    }
  });
});
