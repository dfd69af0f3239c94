/**
 * The built dpgw in a child process (no TTY) that a test reads while it still runs: for
 * `dpgw login --grant device`, which prints the address to open and then waits for a person.
 */
import { spawn } from 'node:child_process';
import { BIN, ROOT, type RunResult } from './run-dpgw.js';

export interface WaitingDpgw {
  /** Resolves with the first match of `pattern` in stderr so far or to come; rejects if dpgw exits first. */
  stderrMatch(pattern: RegExp): Promise<RegExpExecArray>;
  /** dpgw's exit code and whole output. */
  done: Promise<RunResult>;
}

export function startDpgw(argv: string[], env: NodeJS.ProcessEnv): WaitingDpgw {
  const child = spawn(process.execPath, [BIN, ...argv], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const listener of listeners) listener();
  });
  const done = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
  return {
    done,
    stderrMatch: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stderr);
          if (!match) return;
          listeners.delete(check);
          resolve(match);
        };
        listeners.add(check);
        check();
        void done.then((result) => {
          if (listeners.delete(check)) reject(new Error(`dpgw exited ${result.code} before printing ${pattern}: ${result.stderr}`));
        });
      }),
  };
}
