/**
 * `dpgw provision` at a real (pseudo-)terminal shows its plan and asks before it sends
 * anything (terraform apply): "n" sends nothing, "y" applies, --yes asks nothing; a plan that
 * changes nothing asks nothing; without a terminal (piped) it runs as it always did. The
 * sandbox's request log proves what was sent.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { atTerminal, CTRL_C, screen } from '../helpers/at-terminal.js';
import { spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv, changesThePlatform } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchemaBeside } from '../helpers/track.js';

const QUESTION = 'Apply these changes?';
const sandboxes = sandboxPerTest({ topicDelayMs: 50 });

async function setUp() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const schema = trackSchemaBeside(env.DPGW_CONFIG_DIR!);
  const manifest = join(env.DPGW_CONFIG_DIR!, 'provision.yaml');
  writeFileSync(manifest, `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: ${schema}, table: { name: track } }\n`);
  const sent = () => sandbox.requestLog.of('gateway').filter(changesThePlatform);
  return { sandbox, env, manifest, sent };
}

describe('dpgw provision at a terminal', () => {
  it('shows the plan, as --plan prints it, and "n" sends nothing (exit 2)', async () => {
    const { env, manifest, sent, sandbox } = await setUp();
    const result = await atTerminal(['provision', manifest, '--wait-consuming', '0'], { env, when: QUESTION, keys: 'n\\r' });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(2);
    // The plan's lines before the question: each step of the data set, with its request.
    expect(text.indexOf('POST schema track (new)')).toBeGreaterThan(-1);
    expect(text.indexOf('POST table track (new)')).toBeGreaterThan(-1);
    expect(text.indexOf('POST table track (new)')).toBeLessThan(text.indexOf(QUESTION));
    expect(text).toContain('the plan was not confirmed; nothing was sent');
    expect(sent()).toEqual([]);
    expect(sandbox.store.tables.size).toBe(0);
  });

  it('Ctrl-C at the question: exit 130, nothing sent', async () => {
    const { env, manifest, sent } = await setUp();
    const result = await atTerminal(['provision', manifest], { env, when: QUESTION, keys: CTRL_C });
    expect(result.code, screen(result.stdout)).toBe(130);
    expect(sent()).toEqual([]);
  });

  it('"y" applies the plan; run again, the plan changes nothing and nothing is asked', async () => {
    const { env, manifest, sandbox } = await setUp();
    const result = await atTerminal(['provision', manifest, '--wait-consuming', '0'], { env, when: QUESTION, keys: 'y\\r', timeoutSeconds: 60 });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    // Asked once, after the plan and before the run's first line.
    expect(text.split(QUESTION).length).toBeGreaterThan(1);
    expect(text.indexOf('POST table track (new)')).toBeLessThan(text.indexOf(QUESTION));
    expect(text.indexOf(QUESTION)).toBeLessThan(text.indexOf('done: changes made'));
    expect(sandbox.store.tables.has('track')).toBe(true);
    // Converged: no question, and the run says nothing changed.
    const again = await atTerminal(['provision', manifest, '--wait-consuming', '0'], { env, steps: [], timeoutSeconds: 60 });
    const second = screen(again.stdout);
    expect(again.code, second).toBe(0);
    expect(second).not.toContain(QUESTION);
  });

  it('--yes applies without asking', async () => {
    const { env, manifest, sandbox } = await setUp();
    const result = await atTerminal(['provision', manifest, '--yes', '--wait-consuming', '0'], { env, steps: [], timeoutSeconds: 60 });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).not.toContain(QUESTION);
    expect(sandbox.store.tables.has('track')).toBe(true);
  });

  it('without a terminal (piped): no question, the run as before', async () => {
    const { env, manifest, sandbox } = await setUp();
    const result = await spawnDpgw(['provision', manifest, '--wait-consuming', '0'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr + result.stdout).not.toContain(QUESTION);
    expect(sandbox.store.tables.has('track')).toBe(true);
  });
});
