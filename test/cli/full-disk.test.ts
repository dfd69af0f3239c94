/**
 * A disk that fills up, a file larger than allowed, a file system turned read-only: what
 * dpgw does when a write fails half-way. The file system is Linux's own, with one seam:
 * writes to chosen files fail with a chosen errno after half their bytes, as a full disk
 * makes them (tests may run as root, where no permission blocks a write).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type * as fsPromises from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanEnv, runInProcess } from '../helpers/run-dpgw.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const failing = vi.hoisted(() => ({ code: undefined as string | undefined, files: /$^/, calls: [] as string[] }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsPromises>();
  const failure = () => Object.assign(new Error(`${failing.code}: simulated, write`), { code: failing.code, errno: -28, syscall: 'write' });
  const open = async (...args: Parameters<typeof real.open>): Promise<FileHandle> => {
    const handle = await real.open(...args);
    const path = String(args[0]);
    failing.calls.push(`open ${path}`);
    const write = handle.writeFile.bind(handle);
    const sync = handle.sync.bind(handle);
    return Object.assign(handle, {
      writeFile: async (data: string) => {
        if (failing.code !== undefined && failing.files.test(path)) {
          await write(data.slice(0, Math.floor(data.length / 2)));
          throw failure();
        }
        return write(data);
      },
      sync: async () => {
        failing.calls.push(`sync ${path}`);
        return sync();
      },
    });
  };
  const rename = async (from: string, to: string) => {
    failing.calls.push(`rename ${to}`);
    return real.rename(from, to);
  };
  return { ...real, open, rename, default: { ...real, open, rename } };
});

const sandboxes = sandboxPerTest();
afterEach(() => {
  failing.code = undefined;
  failing.files = /$^/;
  failing.calls = [];
});

function fail(code: string, files: RegExp): void {
  failing.code = code;
  failing.files = files;
}

describe('config set on a disk that takes no more', () => {
  for (const [code, cause, hint] of [
    ['ENOSPC', 'the disk is full (ENOSPC)', 'free space and run again'],
    ['EFBIG', 'the file would be larger than the file system or the file size limit (ulimit -f) allows (EFBIG)', 'free space or raise the limit, and run again'],
    ['EROFS', 'the file system is read-only (EROFS)', 'write it to a writable folder'],
    ['EACCES', 'permission denied (EACCES)', 'check the permissions of the file and its folder'],
  ]) {
    it(`${code}: exit 2, one line naming config.yaml and the cause; the old file kept whole, no temporary file left`, async () => {
      const env = cleanEnv();
      const folder = env.DPGW_CONFIG_DIR!;
      expect((await runInProcess(['config', 'set', 'gateway', 'https://old.example'], env)).code).toBe(0);
      const before = readFileSync(join(folder, 'config.yaml'), 'utf8');
      fail(code!, /config\.yaml/);
      const result = await runInProcess(['config', 'set', 'gateway', 'https://new.example'], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`dpgw: cannot write ${join(folder, 'config.yaml')}: ${cause} — ${hint}\n`);
      expect(readFileSync(join(folder, 'config.yaml'), 'utf8')).toBe(before);
      expect(readdirSync(folder)).toEqual(['config.yaml']);
    });
  }

  it('a write that succeeds is flushed to the disk before it takes the name, and its folder after', async () => {
    const env = cleanEnv();
    const file = join(env.DPGW_CONFIG_DIR!, 'config.yaml');
    expect((await runInProcess(['config', 'set', 'gateway', 'https://gw.example'], env)).code).toBe(0);
    const calls = failing.calls.filter((call) => call.includes(env.DPGW_CONFIG_DIR!)).map((call) => call.replace(/config\.yaml\.\d+\.[0-9a-f]+\.tmp$/, 'config.yaml.tmp'));
    expect(calls).toEqual([`open ${file}.tmp`, `sync ${file}.tmp`, `rename ${file}`, `open ${env.DPGW_CONFIG_DIR!}`, `sync ${env.DPGW_CONFIG_DIR!}`]);
  });
});

describe('the token cache on a full disk', () => {
  it('the lock cannot be written: no lock is left, the session serves the command with one warning, and the next command signs in at once', async () => {
    const sandbox = await sandboxes.start();
    const admin = sandbox.users.find((u) => u.username === 'admin')!;
    const env = cleanEnv({ DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm, DPGW_CLIENT_ID: sandbox.clientId, DPGW_CLIENT_SECRET: sandbox.clientSecret, DPGW_USERNAME: 'admin', DPGW_PASSWORD: admin.password });
    const tokens = join(env.XDG_CACHE_HOME!, 'dpgw', 'tokens');
    fail('ENOSPC', /dpgw\/tokens\//);
    const full = await runInProcess(['login'], env);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stderr).toMatch(/^warning: cannot use the token cache in .*\/dpgw\/tokens: the disk is full \(ENOSPC\); the session serves this command only/);
    expect(readdirSync(tokens)).toEqual([]);

    failing.code = undefined;
    const started = Date.now();
    const next = await runInProcess(['login'], env);
    expect(next.code, next.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(readdirSync(tokens)).toEqual([expect.stringMatching(/^default@[0-9a-f]{16}\.json$/)]);
  });

  it('the session itself cannot be written: no half file, no lock, one warning', async () => {
    const sandbox = await sandboxes.start();
    const admin = sandbox.users.find((u) => u.username === 'admin')!;
    const env = cleanEnv({ DPGW_AUTH_URL: sandbox.authUrl, DPGW_REALM: sandbox.realm, DPGW_CLIENT_ID: sandbox.clientId, DPGW_CLIENT_SECRET: sandbox.clientSecret, DPGW_USERNAME: 'admin', DPGW_PASSWORD: admin.password });
    const tokens = join(env.XDG_CACHE_HOME!, 'dpgw', 'tokens');
    mkdirSync(tokens, { recursive: true, mode: 0o700 });
    writeFileSync(join(tokens, 'keep'), '');
    fail('ENOSPC', /default@[0-9a-f]{16}\.json\.\d+\.[0-9a-f]+\.tmp$/);
    const result = await runInProcess(['login'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.match(/cannot use the token cache/g)).toHaveLength(1);
    expect(readdirSync(tokens)).toEqual(['keep']);
    expect(existsSync(join(tokens, 'default.json.lock'))).toBe(false);
  });
});
