/** dpgw run in a pseudo-terminal (test/helpers/terminal.py), with keys pressed as a person presses them. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN, ROOT, type RunResult } from './run-dpgw.js';

export const CTRL_C = '\\x03';
export const ENTER = '\\r';
export const DOWN = '\\x1b[B';
export const UP = '\\x1b[A';
export const SPACE = ' ';
/** Tab: at a question with a suggestion, puts it on the answer line to edit (typing alone replaces it). */
export const TAB = '\\x09';

const ESCAPE_SEQUENCE = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');

/** What a person reads on the screen: colours and cursor moves stripped. */
export function screen(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(/\r/g, '');
}

/** Once `when` appears on the screen (after the previous step's), `keys` are typed (Python escapes: \\r Enter, \\x03 Ctrl-C). */
export interface Keystrokes {
  when: string;
  keys: string;
}

/** Runs `dpgw argv` at a terminal and types each step's keys once its text appears. stdout and stderr arrive mixed, as on a screen. */
export function atTerminal(argv: string[], options: { env: NodeJS.ProcessEnv; timeoutSeconds?: number; cwd?: string } & ({ steps: Keystrokes[] } | Keystrokes)): Promise<RunResult> {
  return commandAtTerminal([process.execPath, BIN, ...argv], options);
}

/** Runs any command (`sh -c LINE` for a documented example) at a terminal, typing each step's keys as atTerminal does. */
export function commandAtTerminal(command: string[], options: { env: NodeJS.ProcessEnv; timeoutSeconds?: number; cwd?: string } & ({ steps: Keystrokes[] } | Keystrokes)): Promise<RunResult> {
  const helper = join(ROOT, 'test/helpers/terminal.py');
  const steps = 'steps' in options ? options.steps : [{ when: options.when, keys: options.keys }];
  const child = spawn('python3', [helper, String(options.timeoutSeconds ?? 30), JSON.stringify(steps.map((step) => [step.when, step.keys])), '--', ...command], {
    env: { ...options.env, TERM: 'xterm-256color', COLUMNS: '120', LINES: '40' },
    cwd: options.cwd ?? ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
