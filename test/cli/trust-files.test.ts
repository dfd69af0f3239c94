/**
 * The files dpgw keeps for the user, when the disk does not cooperate: a token cache
 * folder that cannot be used, token locks left behind or held elsewhere, a profile name
 * that would lead a write outside dpgw's folders, and output paths that cannot be written.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { cleanEnv, runInProcess } from '../helpers/run-dpgw.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { signInEnv } from '../helpers/sandbox-http.js';

const sandboxes = sandboxPerTest();
let holder: ChildProcess | undefined;
afterEach(() => {
  holder?.kill();
  holder = undefined;
});

/** A pipeline that signs in by itself (DPGW_USERNAME, DPGW_PASSWORD) against the sandbox's identity provider. */
function pipelineEnv(sandbox: Sandbox, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const admin = sandbox.users.find((u) => u.username === 'admin')!;
  return signInEnv(sandbox, { DPGW_USERNAME: 'admin', DPGW_PASSWORD: admin.password, ...extra });
}

const lockOf = (env: NodeJS.ProcessEnv) => join(env.XDG_CACHE_HOME!, 'dpgw', 'tokens', 'default.json.lock');

function writeLock(env: NodeJS.ProcessEnv, content: string): string {
  const lock = lockOf(env);
  mkdirSync(join(lock, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(lock, content, { mode: 0o600 });
  return lock;
}

const deadPid = () => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

describe('a token cache folder that cannot be used', () => {
  const unusable: Array<[string, (env: NodeJS.ProcessEnv) => string, RegExp]> = [
    ['a file where the folder should be (ENOTDIR)', (env) => {
      const file = join(env.DPGW_CONFIG_DIR!, 'not-a-folder');
      writeFileSync(file, '');
      return file;
    }, /a part of the path is a file, not a folder \(ENOTDIR\)/],
    ['a dangling symbolic link on its path (ENOENT)', (env) => {
      const link = join(env.DPGW_CONFIG_DIR!, 'dangling');
      symlinkSync(join(env.DPGW_CONFIG_DIR!, 'nowhere', 'cache'), link);
      return link;
    }, /(its folder does not exist \(ENOENT\)|a part of the path is a file, not a folder \(ENOTDIR\))/],
  ];

  for (const [what, cacheHome, cause] of unusable) {
    it(`${what}: login, auth token and a gateway command each warn once and go on with the session in memory`, async () => {
      const sandbox = await sandboxes.start();
      for (const argv of [['login'], ['auth', 'token'], ['catalog', 'sources']]) {
        // A folder of its own for each command: the warning is said once per process, and these run in this one.
        const env = pipelineEnv(sandbox);
        env.XDG_CACHE_HOME = cacheHome(env);
        const result = await runInProcess(argv, env);
        expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
        expect(result.stderr).toMatch(new RegExp(`warning: cannot use the token cache in ${env.XDG_CACHE_HOME.replace(/[/.]/g, '\\$&')}/dpgw/tokens: ${cause.source}; the session serves this command only`));
        expect(result.stderr).not.toMatch(/unexpected error|cannot read the token cache/);
        expect(result.stderr.match(/cannot use the token cache/g)).toHaveLength(1);
      }
    });
  }
});

describe('the token lock', () => {
  it('an empty lock (a write the disk refused) is stale: taken over at once', async () => {
    const sandbox = await sandboxes.start();
    const env = pipelineEnv(sandbox);
    const lock = writeLock(env, '');
    const started = Date.now();
    const result = await runInProcess(['login'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(existsSync(lock)).toBe(false);
  });

  it('a lock of a process of this machine that is gone is taken over at once', async () => {
    const sandbox = await sandboxes.start();
    const env = pipelineEnv(sandbox);
    writeLock(env, JSON.stringify({ pid: deadPid(), hostname: hostname(), since: new Date().toISOString() }));
    const started = Date.now();
    const result = await runInProcess(['login'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a lock older than 30 s whose holder lives is waited for, not taken: the command goes on when the holder ends', async () => {
    const sandbox = await sandboxes.start();
    const env = pipelineEnv(sandbox);
    holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    const content = JSON.stringify({ pid: holder.pid, hostname: hostname(), since: new Date(Date.now() - 60_000).toISOString() });
    const lock = writeLock(env, content);
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lock, minuteAgo, minuteAgo);
    let finished = false;
    const login = runInProcess(['login'], env).finally(() => (finished = true));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(finished).toBe(false);
    expect(readFileSync(lock, 'utf8')).toBe(content);
    holder.kill();
    const result = await login;
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it('a lock held on another machine (a container sharing the folder) is waited for, then reported in one line, never taken', async () => {
    const sandbox = await sandboxes.start();
    const env = pipelineEnv(sandbox);
    const content = JSON.stringify({ pid: 4242, hostname: 'build-container-7', since: '2026-01-01T00:00:00.000Z' });
    const lock = writeLock(env, content);
    const started = Date.now();
    const result = await runInProcess(['login'], env);
    expect(Date.now() - started).toBeGreaterThanOrEqual(15_000);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`dpgw: the token lock ${lock} is held by process 4242 on host build-container-7 since 2026-01-01T00:00:00.000Z, which dpgw cannot check from here — wait for the dpgw there to finish; if no other dpgw runs (a stopped container), remove ${lock} and run again\n`);
    expect(readFileSync(lock, 'utf8')).toBe(content);
  }, 40_000);
});

describe('profile names', () => {
  const RULE = /a profile name has letters, digits, `-`, `_` and `\.`, not starting with `\.`, at most 64 characters/;

  it('config set --profile ../x, --profile a/b and DPGW_PROFILE with a slash: exit 2, one line naming where, nothing written', async () => {
    const env = cleanEnv();
    for (const [argv, where, extra] of [
      [['config', 'set', 'gateway', 'https://gw.example', '--profile', '../x'], '--profile', {}],
      [['config', 'set', 'gateway', 'https://gw.example', '--profile', 'a/b'], '--profile', {}],
      [['config', 'set', 'gateway', 'https://gw.example'], 'DPGW_PROFILE', { DPGW_PROFILE: 'a/../../b' }],
      [['config', 'use', '.hidden'], 'config use', {}],
      [['config', 'set', 'gateway', 'https://gw.example', '--profile', 'x'.repeat(65)], '--profile', {}],
    ] as Array<[string[], string, Record<string, string>]>) {
      const result = await runInProcess(argv, { ...env, ...extra });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^dpgw: ${where}: profile name "[^"]+" is not allowed — ${RULE.source}\\n$`));
      expect(readdirSync(env.DPGW_CONFIG_DIR!)).toEqual([]);
    }
  });

  it('any command with --profile a/b: exit 2 naming --profile, whatever config.yaml holds', async () => {
    const result = await runInProcess(['config', 'show', '--profile', 'a/b']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dpgw: --profile: profile name "a\/b" is not allowed — /);
  });

  it('sandbox --write-profile ../..: refused before the sandbox starts or anything is written', async () => {
    const env = cleanEnv();
    const result = await runInProcess(['sandbox', '--write-profile', '../..', '--port', '0', '--auth-port', '0', '--query-port', '0', '--dashboard-port', '0', '--stream-port', '0'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^dpgw: --write-profile: profile name "\\.\\./\\.\\." is not allowed — ${RULE.source}\\n$`));
    expect(readdirSync(env.DPGW_CONFIG_DIR!)).toEqual([]);
  });
});

describe('files written for the user', () => {
  it('config set where the config folder cannot be made: exit 2, one line naming the file and the cause', async () => {
    // /sys refuses new folders, even to root (tests may run as root, where chmod blocks nothing).
    const result = await runInProcess(['config', 'set', 'gateway', 'https://gw.example'], cleanEnv({ DPGW_CONFIG_DIR: '/sys/dpgw-read-only-config' }));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dpgw: cannot write \/sys\/dpgw-read-only-config\/config\.yaml: [^\n]+ \(E[A-Z]+\) — [^\n]+\n$/);
  });

  it('schema infer -o into a path through a file: exit 2 naming --output and the cause; a good path leaves no temporary file', async () => {
    const env = cleanEnv();
    const folder = env.DPGW_CONFIG_DIR!;
    writeFileSync(join(folder, 'plain-file'), '');
    const refused = await runInProcess(['schema', 'infer', 'examples/track/track-messages.jsonl', '-o', join(folder, 'plain-file', 'schema.yaml')], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`dpgw: --output: cannot write ${join(folder, 'plain-file', 'schema.yaml')}: a part of the path is a file, not a folder (ENOTDIR) — check the path\n`);
    const written = await runInProcess(['schema', 'infer', 'examples/track/track-messages.jsonl', '-o', join(folder, 'schema.yaml')], env);
    expect(written.code, written.stderr).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(['plain-file', 'schema.yaml']);
  });
});
