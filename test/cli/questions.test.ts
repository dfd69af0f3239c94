/**
 * At a terminal, a command missing a value asks for it from the live catalog (issue #36 §1);
 * without one, or with --no-input, it stops at once naming the flag. Driven through a real
 * pseudo-terminal, keys typed as a person types them.
 */
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { atTerminal, CTRL_C, DOWN, ENTER, screen, UP } from '../helpers/at-terminal.js';
import { runInProcess } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest();

describe('dpgw enable asks for what is missing', () => {
  it('at a terminal: source, data set (typed to search), a new enablement and its groups; then the same command with flags', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const result = await atTerminal(['enable'], {
      env,
      timeoutSeconds: 12,
      steps: [
        { when: 'Data source:', keys: DOWN },
        { when: '❯ mock-sensor-feed', keys: UP },
        { when: '❯ mock-data-library', keys: ENTER },
        { when: 'Data set:', keys: 'ves' },
        { when: '❯ vessel  (not enabled)', keys: ENTER },
        { when: 'Enablement:', keys: ENTER },
        { when: 'Name of the new enablement:', keys: `-fleet${ENTER}` },
        { when: 'Groups that may read it', keys: `fleet-readers ${TRACK_GROUP}${ENTER}` },
      ],
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain('vessel  (not enabled)');
    expect(text).toContain(`same without questions: dpgw enable --datasource mock-data-library --dataset vessel --enablement vessel-fleet --group fleet-readers --group ${TRACK_GROUP}`);
    expect(text).toMatch(/✓ enabled vessel \(created enablement vessel-fleet for groups fleet-readers, /);
  });

  it('Ctrl-C at a question: exit 130, nothing sent', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const result = await atTerminal(['enable', '--datasource', 'mock-data-library'], { env, when: 'Data set:', keys: CTRL_C });
    expect(result.code, screen(result.stdout)).toBe(130);
    expect(sandbox.requestLog.of('gateway').filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('without a terminal, or with --no-input at one: exit 2 at once, naming the missing flags', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const piped = await runInProcess(['enable', '--group', TRACK_GROUP], env);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('missing --datasource <name|id>, --dataset <name>');
    const noInput = await atTerminal(['enable', '--no-input', '--dataset', 'track'], { env, when: 'never typed', keys: '' });
    expect(noInput.code).toBe(2);
    expect(screen(noInput.stdout)).toContain('missing --datasource <name|id>');
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
  });
});
