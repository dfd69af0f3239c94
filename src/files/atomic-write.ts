/**
 * The one way dpgw writes a file for the user: a temporary file beside it, flushed to the
 * disk, then a rename, then the folder flushed, so neither a crash, a power loss nor a
 * second process ever sees half a file (or an empty config.yaml). The temporary file is
 * 0600 until it takes the name, so a secret is never readable by others on the way, and
 * it is removed when anything fails. A failure is one line naming the file and the cause
 * (files/file-problem.ts).
 */
import { randomBytes } from 'node:crypto';
import { chmod, open, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { cannotWrite, errnoCode } from './file-problem.js';

export interface AtomicWriteOptions {
  /** The flag that named the path (`--output`), for the error line. */
  where?: string;
}

export async function writeFileAtomic(file: string, data: string, mode: number, options: AtomicWriteOptions = {}): Promise<void> {
  // Through a symbolic link (config.yaml kept in a dotfiles repository): the file it points to is written, the link kept.
  const target = await realpath(file).catch(() => file);
  const existing = await stat(target).catch(() => undefined);
  if (existing !== undefined && !existing.isFile() && !existing.isDirectory()) {
    // A FIFO or a device (`-o /dev/stdout`): nothing to replace, and no folder of ours to write a temporary file in.
    await writeFile(target, data).catch((error: unknown) => {
      throw cannotWrite(file, error, options.where);
    });
    return;
  }
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temporary, mode);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw cannotWrite(file, error, options.where);
  }
  await syncFolder(dirname(target));
}

/** Some platforms and file systems cannot open or flush a folder (Windows, some network mounts): the rename is then as durable as they make it. */
const FOLDER_SYNC_REFUSALS = new Set(['EINVAL', 'EISDIR', 'EPERM', 'EACCES', 'ENOTSUP', 'EOPNOTSUPP', 'EBADF']);

/** The rename is kept after a power loss only once the folder holding the name is on the disk. */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (!FOLDER_SYNC_REFUSALS.has(errnoCode(error) ?? '')) throw cannotWrite(folder, error);
  }
}
