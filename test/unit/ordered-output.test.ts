/** npm start's output (scripts/ordered-output.mjs): a command's stdout and stderr lines in the order the command wrote them. */
import { describe, expect, it } from 'vitest';
import { runInOrder } from '../../scripts/ordered-output.mjs';

// A command that writes progress on stderr, then its result on stdout (half a line first), then a warning: as dpgw provision does.
const WRITER = `
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
process.stderr.write('progress: step 1\\n');
await wait(40);
process.stdout.write('result: ');
await wait(40);
process.stderr.write('progress: step 2\\n');
await wait(40);
process.stdout.write('created\\n');
await wait(40);
process.stderr.write('warning: last');
`;

describe('runInOrder', () => {
  it('hands on whole lines of both streams in the order they were written', async () => {
    const lines: string[] = [];
    const result = await runInOrder(process.execPath, ['--input-type=module', '-e', WRITER], {}, (line: string, stream: string) => lines.push(`${stream}: ${line}`));
    expect(result.code).toBe(0);
    // A half-written line waits for its end; the other stream's lines pass it by.
    expect(lines).toEqual(['stderr: progress: step 1', 'stderr: progress: step 2', 'stdout: result: created', 'stderr: warning: last']);
    expect(result.stdout).toBe('result: created\n');
  });

  it('hands the command its input', async () => {
    const lines: string[] = [];
    await runInOrder(process.execPath, ['-e', 'process.stdin.pipe(process.stdout)'], { input: 'typed\n' }, (line: string) => lines.push(line));
    expect(lines).toEqual(['typed']);
  });
});
