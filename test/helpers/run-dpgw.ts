/**
 * Two ways to run dpgw as a user does: in-process through runCli with captured
 * streams (fast, for breadth), and as the built binary in a child process with
 * no TTY (what a user or a pipeline really sees).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/run-cli.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'dpgw');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The config and cache folders cleanEnv made, removed after each test file: each holds
 * the code caches a started dpgw writes (megabytes), and left behind over many runs they
 * filled this machine's disk (60,000 of them, 75 GB, on 2026-11-27).
 */
const madeFolders: string[] = [];

/** Removes the folders cleanEnv made so far: after each test file (test/helpers/remove-made-folders.ts). */
export function removeMadeFolders(): void {
  for (const folder of madeFolders.splice(0)) rmSync(folder, { recursive: true, force: true });
}

/** An environment with nothing of the developer's: no DPGW_* variables, private config and cache dirs, no proxies, no colour forcing. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('DPGW_') || key === 'FORCE_COLOR' || key === 'NO_COLOR' || key.startsWith('XDG_') || key.startsWith('npm_')) continue;
    env[key] = value;
  }
  env.DPGW_CONFIG_DIR = mkdtempSync(join(tmpdir(), 'dpgw-config-'));
  env.XDG_CACHE_HOME = mkdtempSync(join(tmpdir(), 'dpgw-cache-'));
  madeFolders.push(env.DPGW_CONFIG_DIR, env.XDG_CACHE_HOME);
  for (const key of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'NO_PROXY', 'no_proxy', 'NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS']) delete env[key];
  return { ...env, ...extra };
}

export async function runInProcess(argv: string[], env: NodeJS.ProcessEnv = cleanEnv()): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const stdin = new PassThrough();
  stdin.end();
  const code = await runCli(argv, {
    stdout: { write: (chunk: string) => (stdout += chunk), isTTY: false },
    stderr: { write: (chunk: string) => (stderr += chunk), isTTY: false },
    stdin,
    env,
    cwd: ROOT,
  });
  return { code, stdout, stderr };
}

export function spawnDpgw(argv: string[], options: { env?: NodeJS.ProcessEnv; input?: string; nodePath?: string; cwd?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.nodePath ?? process.execPath, [BIN, ...argv], { env: options.env ?? cleanEnv(), cwd: options.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    // A command that never reads its input (--help answered from the build) may exit before this write: its pipe is
    // closed then (EPIPE), which says nothing about the command; its exit code and output do.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}
