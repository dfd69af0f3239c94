/** The spinner as a person sees it at a terminal, and the one rule that keeps it from outliving its command. */
import { describe, expect, it } from 'vitest';
import type { Io } from '../../src/output/io.js';
import { startProgress } from '../../src/output/progress.js';
import { Reporter } from '../../src/output/reporter.js';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { atTerminal, screen } from '../helpers/at-terminal.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest();

describe('the spinner', () => {
  it('dpgw enable at a terminal shows the wait for the topic, then ends when the command does', async () => {
    const sandbox = await sandboxes.start({ topicDelayMs: 1_500 });
    const env = await adminPipelineEnv(sandbox);
    const result = await atTerminal(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP], { env, when: 'never typed', keys: '', timeoutSeconds: 20 });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain('waiting for the topic of track');
    expect(text).toMatch(/✓ enabled track \(created enablement track/);
  });

  it('stopped before its module has loaded, it never starts', async () => {
    let written = '';
    const stderr = { write: (chunk: string) => (written += chunk), isTTY: true, columns: 80 };
    const io = { stdout: { write: () => true }, stderr, stdin: process.stdin, env: {}, cwd: '.' } as unknown as Io;
    const reporter = new Reporter(io.stdout, stderr, { json: false, quiet: false, verbose: false, colorStdout: false, colorStderr: false });
    const progress = startProgress(reporter, io, 'waiting');
    progress.stop();
    await import('ora');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(written).toBe('');
  });
});
