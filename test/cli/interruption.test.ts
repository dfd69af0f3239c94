/**
 * Stopping dpgw as a person does: Ctrl-C pressed at a real (pseudo-)terminal while the
 * spinner runs or a prompt waits. Signals sent by other processes (SIGINT, SIGTERM as a
 * CI runner cancels): test/cli/provision.test.ts.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { atTerminal, CTRL_C, screen } from '../helpers/at-terminal.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchemaBeside } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 50 });

async function setUp(options: SandboxOptions = {}) {
  const sandbox = await sandboxes.start(options);
  const env = await adminPipelineEnv(sandbox);
  const schema = trackSchemaBeside(env.DPGW_CONFIG_DIR!);
  const entry = (dataset: string) => `  - { datasource: mock-data-library, dataset: ${dataset}, groups: [${TRACK_GROUP}], schema: ${schema}, table: { name: ${dataset} } }\n`;
  const manifest = join(env.DPGW_CONFIG_DIR!, 'provision.yaml');
  writeFileSync(manifest, `dataSets:\n${entry('track')}${entry('vessel')}${entry('weather')}`);
  return { sandbox, env, manifest };
}

describe('Ctrl-C at a terminal', () => {
  it('stops provision while the spinner runs: the steps under way finish, none start, exit 130 with a true summary', async () => {
    const { env, manifest, sandbox } = await setUp({ faults: { latencyMs: 150 } });
    const result = await atTerminal(['provision', manifest, '--concurrency', '1', '--yes'], { env, when: 'provisioning: 1/3 done', keys: CTRL_C });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(130);
    expect(text).toContain('interrupted (SIGINT): finishing the steps under way');
    expect(text).toMatch(/interrupted in \d+\.\d s\n/);
    expect([...sandbox.store.tables.keys()]).toEqual(['track']);
  });

  it('at the password prompt of login: exit 130, one line, nothing sent', async () => {
    const { env, sandbox } = await setUp();
    const tokenRequests = () => sandbox.requestLog.of('identity').filter((e) => e.path.endsWith('/token')).length;
    const before = tokenRequests();
    const result = await atTerminal(['login', '--auth-url', sandbox.authUrl, '--realm', sandbox.realm, '--client-id', sandbox.clientId, '--username', 'admin'], {
      env: { ...env, DPGW_TOKEN: '', DPGW_CLIENT_SECRET: sandbox.clientSecret },
      when: 'Password',
      keys: CTRL_C,
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(130);
    expect(text).toContain('dpgw: interrupted at the prompt; nothing was sent');
    expect(text).not.toContain('unexpected error');
    expect(tokenRequests()).toBe(before);
  });

  it('login at a terminal with no identity provider set: asks for it before any user or password; Ctrl-C there saves nothing', async () => {
    const { env } = await setUp();
    const result = await atTerminal(['login'], { env: { ...env, DPGW_TOKEN: '' }, when: 'Identity provider URL', keys: CTRL_C, timeoutSeconds: 10 });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(130);
    expect(text).not.toContain('Username');
    expect(text).toContain('dpgw: interrupted at the prompt; nothing was sent');
    expect(existsSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'))).toBe(false);
  });

  it('stops health --watch with exit 130', async () => {
    const { env } = await setUp();
    const result = await atTerminal(['health', '--watch', '1'], { env, when: 'Ctrl-C stops', keys: CTRL_C });
    expect(result.code, screen(result.stdout)).toBe(130);
    expect(screen(result.stdout)).toContain('UP');
  });
});
