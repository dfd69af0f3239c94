/**
 * The one way dpgw writes a file another process may read: a temporary file beside it,
 * then a rename, so a crash or a second process never sees half a file. The mode is set
 * on the temporary file before it takes the name (whatever the umask), and the
 * temporary file is removed when anything fails.
 */
import { randomBytes } from 'node:crypto';
import { chmod, rename, rm, writeFile } from 'node:fs/promises';

export async function writeFileAtomic(file: string, data: string, mode: number): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, data, { mode });
    await chmod(temporary, mode);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}
