/** A gateway behind TLS with a private certificate authority: --ca-file and NODE_EXTRA_CA_CERTS. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { cleanEnv, spawnDpgw } from '../helpers/run-dpgw.js';

let sandbox: Sandbox;
let server: https.Server;
let gateway: string;
const dir = mkdtempSync(join(tmpdir(), 'dpgw-tls-'));
const cert = join(dir, 'cert.pem');

beforeAll(async () => {
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl could not make a test certificate: ${made.stderr}`);
  sandbox = await startSandbox();
  const upstream = new URL(sandbox.gatewayUrl);
  // TLS in front of the sandbox gateway, as a load balancer would be.
  server = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(cert) }, (request, response) => {
    const forward = http.request({ host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gateway = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await sandbox.close();
});

it('refuses an untrusted certificate with the fix, and trusts --ca-file or NODE_EXTRA_CA_CERTS', async () => {
  const env = cleanEnv({ DPGW_GATEWAY: gateway });
  const untrusted = await spawnDpgw(['health'], { env });
  expect(untrusted.code).toBe(5);
  expect(untrusted.stderr).toMatch(/^dpgw: the certificate of 127\.0\.0\.1:\d+ is not trusted for GET .* — pass --ca-file/);
  const withFile = await spawnDpgw(['health', '--ca-file', cert], { env });
  expect(withFile.code, withFile.stderr).toBe(0);
  expect(withFile.stdout).toMatch(/^platform UP/);
  expect((await spawnDpgw(['health'], { env: { ...env, NODE_EXTRA_CA_CERTS: cert } })).code).toBe(0);
  const missing = await spawnDpgw(['health', '--ca-file', join(dir, 'nope.pem')], { env });
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('--ca-file: cannot read the certificate authorities file');
});

it('an https:// URL for a gateway that serves plain HTTP: exit 5, with the http:// URL to give instead', async () => {
  const plain = new URL(sandbox.gatewayUrl);
  const result = await spawnDpgw(['health', '--gateway', `https://${plain.host}`], { env: cleanEnv() });
  expect([result.code, result.stdout]).toEqual([5, '']);
  expect(result.stderr).toBe(`dpgw: cannot reach ${plain.host} for GET https://${plain.host}/api/health (EPROTO) — ${plain.host} does not answer in TLS: if it serves plain HTTP, give --gateway as http://${plain.host}\n`);
});
