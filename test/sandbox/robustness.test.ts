/** The sandbox survives what clients do to it: a request cut off halfway leaves it answering the next one. */
import { connect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

it('a client that drops mid-body does not stop any of the sandbox servers', async () => {
  sandbox = await startSandbox();
  for (const base of [sandbox.gatewayUrl, sandbox.authUrl, sandbox.queryEngineUrl, sandbox.dashboardUrl]) {
    const { port } = new URL(base);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`POST /api/internal/olap/schemas HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"schemaName":`);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect((await fetch(`${sandbox.gatewayUrl}/api/health`)).status).toBe(200);
  expect((await fetch(`${sandbox.queryEngineUrl}/v1/info`)).status).toBe(200);
  expect((await fetch(`${sandbox.dashboardUrl}/health`)).status).toBe(200);
  expect((await fetch(`${sandbox.issuer}/.well-known/openid-configuration`)).status).toBe(200);
});
