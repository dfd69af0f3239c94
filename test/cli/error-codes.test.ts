/** Stable error codes as a pipeline meets them: one `{"error": {"code", …}}` document on stdout with --json, the exit code the code's. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/errors/error-codes.js';
import { cleanEnv, runInProcess } from '../helpers/run-dpgw.js';

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
      if (request.url === '/api/v2/catalog/datasources') return void response.writeHead(200, { 'content-type': 'application/json' }).end('[{"id": 1, "name": "x"}]');
      // Anything else: no answer at all.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const gateway = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expectCode(['catalog', 'sources'], { ...env, DPGW_TOKEN: 'a-token', DPGW_GATEWAY: gateway }, 'ANSWER_UNUSABLE');
      await expectCode(['health', '--timeout', '1'], { ...env, DPGW_TOKEN: 'a-token', DPGW_GATEWAY: gateway }, 'SERVER_TIMEOUT');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
