/**
 * The password prompt at a real terminal (a pseudo-terminal, keys typed as a person types
 * them): nothing is echoed for the password, as sudo and ssh do (issue #31 §3).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atTerminal, screen } from '../helpers/at-terminal.js';
import { cleanEnv } from '../helpers/run-dpgw.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest();

describe('the password prompt at a terminal', () => {
  it('echoes nothing for the password (no * per key), and the login works', async () => {
    const sandbox = await sandboxes.start();
    const admin = sandbox.users.find((u) => u.username === 'admin')!;
    const env = cleanEnv({ DPGW_GATEWAY: sandbox.gatewayUrl, DPGW_TOKEN: '' });
    const secretFile = join(env.DPGW_CONFIG_DIR!, 'client-secret');
    writeFileSync(secretFile, `${sandbox.clientSecret}\n`, { mode: 0o600 });
    const argv = ['login', '--auth-url', sandbox.authUrl, '--realm', sandbox.realm, '--client-id', sandbox.clientId, '--client-secret', `file:${secretFile}`, '--username', 'admin'];
    const result = await atTerminal(argv, { env, when: 'Password', keys: `${admin.password}\r` });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain('Password for admin:');
    expect(text).not.toContain('*');
    expect(text).not.toContain(admin.password);
  });
});
