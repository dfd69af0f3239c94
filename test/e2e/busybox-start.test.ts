/**
 * dpgw starts where pipelines run it: an Alpine image, whose /bin/sh and env are
 * BusyBox's. The kernel runs `#!/bin/sh` scripts as `/bin/sh <script> <args…>`; here that
 * shell is Debian's real BusyBox, with only BusyBox applets and node on the PATH.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ESM script of the project (scripts/), typed at its use
import { busyboxBinary } from '../../scripts/platform/busybox.mjs';
import { BIN, cleanEnv } from '../helpers/run-dpgw.js';

/** A PATH of BusyBox applets (sh, env, …) and node, nothing else: what an Alpine image with Node has. */
async function alpineLikePath(): Promise<{ busybox: string; path: string }> {
  const busybox = (await busyboxBinary()) as string;
  const bin = mkdtempSync(join(tmpdir(), 'dpgw-busybox-bin-'));
  for (const applet of ['sh', 'env', 'cat', 'ls']) symlinkSync(busybox, join(bin, applet));
  symlinkSync(process.execPath, join(bin, 'node'));
  return { busybox, path: bin };
}

describe("dpgw under BusyBox's shell and env", () => {
  it('an env -S line could not start there: BusyBox env has no -S', async () => {
    const { busybox } = await alpineLikePath();
    const result = spawnSync(busybox, ['env', '-S', 'node --max-old-space-size=1024', '--version'], { encoding: 'utf8' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/invalid option -- 'S'/);
  });

  it('runs through the #!/bin/sh line, and node gets the heap flags', async () => {
    const { busybox, path } = await alpineLikePath();
    const env = { ...cleanEnv(), PATH: path };
    const version = spawnSync(busybox, ['sh', BIN, '--version'], { env, encoding: 'utf8' });
    expect([version.status, version.stderr]).toEqual([0, '']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);

    // A command started with the heap flags (its memory grows with the platform) that waits
    // (a gateway that never answers), so its process can be looked at.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const output = mkdtempSync(join(tmpdir(), 'dpgw-busybox-export-'));
    const child = spawn(busybox, ['sh', BIN, 'export', '--output', output, '--timeout', '30'], { env: { ...env, DPGW_GATEWAY: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, DPGW_TOKEN: 'a-token-for-a-silent-gateway' }, stdio: 'ignore' });
    try {
      let argv: string[] = [];
      for (let attempt = 0; attempt < 100 && !argv.includes('--max-old-space-size=1024'); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      }
      // The shell replaced itself with node (exec): one process, node's, with the flags.
      expect(argv[0]).toBe('node');
      expect(argv).toEqual(expect.arrayContaining(['--max-semi-space-size=2', '--max-old-space-size=1024', BIN, 'export']));
    } finally {
      child.kill();
      silent.close();
    }
  });
});
