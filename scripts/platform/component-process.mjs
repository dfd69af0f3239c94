// What the platform scripts share: run a component in its own process group with
// its output in a log file, wait until it answers (bounded), stop it, and say why
// when it does not start.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';

/**
 * Starts `command` and polls `ready()` until it returns true.
 * @returns {Promise<{ stop: () => Promise<void>, startSeconds: number }>}
 */
export async function runUntilReady({ name, command, args, env = process.env, cwd, log, timeoutMs, ready, intervalMs = 500 }) {
  const output = createWriteStream(log);
  const started = Date.now();
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout.pipe(output);
  child.stderr.pipe(output);
  let exited = false;
  child.on('exit', () => (exited = true));
  const stop = async () => {
    if (exited) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return;
    }
    for (let i = 0; i < 150 && !exited; i++) await new Promise((r) => setTimeout(r, 100));
    if (!exited) process.kill(-child.pid, 'SIGKILL');
  };
  while (Date.now() - started < timeoutMs && !exited) {
    if (await ready().catch(() => false)) return { stop, startSeconds: (Date.now() - started) / 1000 };
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  await stop();
  const tail = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-40).join('\n') : '(no log)';
  throw new Error(`${name} did not become ready within ${timeoutMs / 1000} s${exited ? ' (it exited)' : ''}; its log ${log} ends:\n${tail}`);
}

/** `node scripts/platform/<component>.mjs start`: print the settings, stay in front until Ctrl-C. */
export async function serveInFront(name, start) {
  const component = await start();
  const { stop, ...settings } = component;
  console.log(JSON.stringify(settings, null, 2));
  console.error(`${name} ready in ${settings.startSeconds.toFixed(1)} s; Ctrl-C stops it`);
  const quit = () => void stop().then(() => process.exit(0));
  process.on('SIGINT', quit);
  process.on('SIGTERM', quit);
}

/**
 * Runs an install step (a download, a build) to its end without blocking the event loop,
 * so components started at the same time keep being polled; resolves with its output.
 */
export function runToEnd(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', (error) => resolve({ status: null, stdout, stderr: stderr || String(error) }));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
