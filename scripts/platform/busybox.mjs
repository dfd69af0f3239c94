// BusyBox from Debian's archive, the shell and env of the Alpine images many pipelines
// run in: `apt-get download` of the busybox package (no install, no root needed when the
// package lists are there; as root the lists are fetched first when missing), unpacked
// with dpkg-deb into ~/.cache/dpgw/busybox-<version>/. The end-to-end tier starts dpgw
// through it.
//
//   node scripts/platform/busybox.mjs    # prints the binary's path
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToEnd } from './component-process.mjs';

const CACHE = join(homedir(), '.cache', 'dpgw');

/** The busybox binary: the cached one, else Debian's package fetched and unpacked once. */
export async function busyboxBinary() {
  const cached = existsSync(CACHE) ? readdirSync(CACHE).filter((name) => name.startsWith('busybox-')).sort().at(-1) : undefined;
  if (cached && existsSync(join(CACHE, cached, 'busybox'))) return join(CACHE, cached, 'busybox');
  const work = mkdtempSync(join(tmpdir(), 'dpgw-busybox-'));
  let download = await runToEnd('apt-get', ['download', 'busybox'], { cwd: work });
  if (download.status !== 0 && process.getuid?.() === 0) {
    // A machine whose package lists were never fetched ("run apt-get update once first").
    await runToEnd('apt-get', ['update'], { cwd: work });
    download = await runToEnd('apt-get', ['download', 'busybox'], { cwd: work });
  }
  const deb = readdirSync(work).find((name) => name.endsWith('.deb'));
  if (download.status !== 0 || !deb) throw new Error(`apt-get download busybox failed: ${download.stderr.trim()}`);
  const version = decodeURIComponent(deb).replace(/^busybox_/, '').replace(/_[^_]+\.deb$/, '').replace(/[^A-Za-z0-9.+~-]/g, '-');
  const unpack = await runToEnd('dpkg-deb', ['-x', join(work, deb), join(work, 'root')]);
  if (unpack.status !== 0) throw new Error(`dpkg-deb -x ${deb} failed: ${unpack.stderr.trim()}`);
  const folder = join(CACHE, `busybox-${version}`);
  mkdirSync(folder, { recursive: true });
  renameSync(join(work, 'root', 'bin', 'busybox'), join(folder, 'busybox'));
  return join(folder, 'busybox');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await busyboxBinary());
