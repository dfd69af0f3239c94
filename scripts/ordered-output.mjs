// A child's stdout and stderr as one reader sees them: whole lines, in the order they
// arrived, through one stream. Collecting each stream and printing stdout then stderr
// (as npm start once did) put a command's progress and warnings after its result.
import { spawn } from 'node:child_process';

/**
 * Runs `command args`, handing each complete line of its stdout or stderr to
 * `writeLine(line, stream)` as it arrives (a partial line waits for its end, so the
 * two streams never split one line). Resolves with the exit code and both texts.
 */
export function runInOrder(command, args, { env, cwd, input } = {}, writeLine) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const texts = { stdout: '', stderr: '' };
    const pending = { stdout: '', stderr: '' };
    const forward = (stream) => (chunk) => {
      texts[stream] += chunk;
      const lines = (pending[stream] + chunk).split('\n');
      pending[stream] = lines.pop();
      for (const line of lines) writeLine(line, stream);
    };
    child.stdout.setEncoding('utf8').on('data', forward('stdout'));
    child.stderr.setEncoding('utf8').on('data', forward('stderr'));
    child.on('error', reject);
    child.on('close', (code) => {
      for (const stream of ['stdout', 'stderr']) if (pending[stream] !== '') writeLine(pending[stream], stream);
      resolve({ code, stdout: texts.stdout, stderr: texts.stderr });
    });
    child.stdin.end(input ?? '');
  });
}
