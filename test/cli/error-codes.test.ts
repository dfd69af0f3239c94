/** Stable error codes as a pipeline meets them: one `{"error": {"code", …}}` document on stdout with --json, the exit code the code's. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/errors/error-codes.js';
import { cleanEnv, runInProcess } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

async function expectCode(argv: string[], env: NodeJS.ProcessEnv, code: ErrorCode): Promise<Record<string, unknown>> {
  const result = await runInProcess([...argv, '--json'], env);
  const { error } = JSON.parse(result.stdout) as { error: Record<string, unknown> };
  expect(error.code, result.stderr).toBe(code);
  expect(result.code).toBe(ERROR_CODES[code].exit);
  expect(error.exitCode).toBe(ERROR_CODES[code].exit);
  return error;
}

describe('error codes on the command line', () => {
  it('usage: an unknown command, an unknown flag, a missing argument, a refused value', async () => {
    const env = cleanEnv();
    await expectCode(['bogus'], env, 'UNKNOWN_COMMAND');
    await expectCode(['catalog', 'sources', '--bogus'], env, 'UNKNOWN_OPTION');
    await expectCode(['provision'], env, 'MISSING_ARGUMENT');
    await expectCode(['provision', 'x.yaml', '--concurrency', 'many'], env, 'INVALID_ARGUMENT');
  });

  it('settings and files: a missing setting, a refused one, an unknown profile, a manifest with problems (its location too)', async () => {
    const env = cleanEnv();
    expect(await expectCode(['catalog', 'sources'], env, 'SETTING_MISSING')).toMatchObject({ location: 'gateway' });
    await expectCode(['catalog', 'sources'], { ...env, DPGW_GATEWAY: 'ftp://gateway' }, 'SETTING_INVALID');
    await expectCode(['catalog', 'sources', '--profile', 'nowhere'], env, 'PROFILE_NOT_FOUND');
    const manifest = join(env.DPGW_CONFIG_DIR!, 'provision.yaml');
    writeFileSync(manifest, 'dataSets:\n  - { datasource: lib, dataset: track, tabel: {} }\n');
    expect(await expectCode(['provision', manifest], { ...env, DPGW_GATEWAY: 'http://127.0.0.1:9', DPGW_TOKEN: 't' }, 'MANIFEST_INVALID')).toMatchObject({ location: expect.stringMatching(/provision\.yaml:2:\d+$/) });
  });

  it('servers: not signed in, a gateway out of reach, one that never answers, an answer of the wrong shape', async () => {
    const env = cleanEnv({ DPGW_GATEWAY: 'http://127.0.0.1:9' });
    await expectCode(['catalog', 'sources'], env, 'NOT_SIGNED_IN');
    await expectCode(['catalog', 'sources'], { ...env, DPGW_TOKEN: 'a-token' }, 'SERVER_UNREACHABLE');
    const server = http.createServer((request, response) => {
      if (request.url === '/api/v2/catalog/datasources' && request.headers.authorization === 'Bearer a-forbidden-token') return void response.writeHead(403).end();
      if (request.url === '/api/v2/catalog/datasources') return void response.writeHead(200, { 'content-type': 'application/json' }).end('[{"id": 1, "name": "x"}]');
      // Anything else: no answer at all.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const gateway = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expectCode(['catalog', 'sources'], { ...env, DPGW_TOKEN: 'a-token', DPGW_GATEWAY: gateway }, 'ANSWER_UNUSABLE');
      await expectCode(['catalog', 'sources'], { ...env, DPGW_TOKEN: 'a-forbidden-token', DPGW_GATEWAY: gateway }, 'REQUEST_FORBIDDEN');
      await expectCode(['health', '--timeout', '1'], { ...env, DPGW_TOKEN: 'a-token', DPGW_GATEWAY: gateway }, 'SERVER_TIMEOUT');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('files: a manifest that is not there, a config.yaml that does not parse', async () => {
    const env = cleanEnv({ DPGW_GATEWAY: 'http://127.0.0.1:9', DPGW_TOKEN: 't' });
    const missing = join(env.DPGW_CONFIG_DIR!, 'no-such-provision.yaml');
    expect(await expectCode(['provision', missing], env, 'MANIFEST_NOT_FOUND')).toMatchObject({ location: missing });
    const config = join(env.DPGW_CONFIG_DIR!, 'config.yaml');
    writeFileSync(config, 'currentProfile: default\nprofiles: [unclosed\n', { mode: 0o600 });
    expect(await expectCode(['catalog', 'sources'], env, 'CONFIG_INVALID')).toMatchObject({ location: expect.stringMatching(/config\.yaml:\d+:\d+$/) });
  });

  it('the platform: an unknown data source and data set, no such table or schema in the store', async () => {
    const env = await adminPipelineEnv(await sandboxes.start());
    await expectCode(['enable', '--datasource', 'no-such-library', '--dataset', 'track', '--group', 'g'], env, 'DATA_SOURCE_NOT_FOUND');
    expect(await expectCode(['enable', '--datasource', 'mock-data-library', '--dataset', 'no-such-data-set', '--group', 'g'], env, 'DATA_SET_NOT_FOUND')).toMatchObject({ location: '--dataset' });
    await expectCode(['table', 'get', 'no_such_table'], env, 'TABLE_NOT_FOUND');
    await expectCode(['schema', 'get', 'no_such_schema'], env, 'SCHEMA_NOT_FOUND');
  });

  it('signing in: a wrong password, a secret given where a reference belongs, a reference that gives no secret', async () => {
    const sandbox = await sandboxes.start();
    const env = cleanEnv({
      DPGW_GATEWAY: sandbox.gatewayUrl,
      DPGW_AUTH_URL: sandbox.authUrl,
      DPGW_REALM: sandbox.realm,
      DPGW_CLIENT_ID: sandbox.clientId,
      DPGW_CLIENT_SECRET: sandbox.clientSecret,
      DPGW_USERNAME: 'admin',
      DPGW_PASSWORD: 'not-the-password',
    });
    await expectCode(['catalog', 'sources'], env, 'SIGN_IN_REFUSED');
    const withoutSecret = { ...env, DPGW_CLIENT_SECRET: '' };
    const refused = await expectCode(['catalog', 'sources', '--client-secret', 'the-secret-itself'], withoutSecret, 'SECRET_REFERENCE_INVALID');
    expect(JSON.stringify(refused)).not.toContain('the-secret-itself');
    await expectCode(['catalog', 'sources', '--client-secret', 'env:DPGW_TEST_NO_SUCH_VARIABLE'], withoutSecret, 'SECRET_UNAVAILABLE');
    await expectCode(['catalog', 'sources', '--client-secret', `file:${join(env.DPGW_CONFIG_DIR!, 'no-such-secret')}`], withoutSecret, 'SECRET_UNAVAILABLE');
  });
});
