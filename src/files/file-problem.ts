/**
 * What a failed file operation means, in the words a user acts on: `cannot write
 * /x/config.yaml: the disk is full (ENOSPC) — free space and run again`. One place, so
 * every file dpgw writes fails the same way, with exit 2 as other file problems do.
 */
import { DpgwError } from '../errors/dpgw-error.js';

/** The errno code of a file system error, also when a DpgwError carries it as its cause. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  const cause = (error as Error | undefined)?.cause;
  return cause === undefined ? undefined : errnoCode(cause);
}

const CAUSES: Record<string, { cause: string; hint: string }> = {
  ENOSPC: { cause: 'the disk is full', hint: 'free space and run again' },
  EDQUOT: { cause: 'the disk quota is used up', hint: 'free space or raise the quota, and run again' },
  EFBIG: { cause: 'the file would be larger than the file system or the file size limit (ulimit -f) allows', hint: 'free space or raise the limit, and run again' },
  EROFS: { cause: 'the file system is read-only', hint: 'write it to a writable folder' },
  EACCES: { cause: 'permission denied', hint: 'check the permissions of the file and its folder' },
  EPERM: { cause: 'the operation is not permitted', hint: 'check the permissions of the file and its folder' },
  ENOTDIR: { cause: 'a part of the path is a file, not a folder', hint: 'check the path' },
  ENOENT: { cause: 'its folder does not exist', hint: 'check the path, or create the folder' },
  EISDIR: { cause: 'it is a folder', hint: 'give the path of a file' },
  ELOOP: { cause: 'the path has too many symbolic links', hint: 'check the path' },
  ENAMETOOLONG: { cause: 'the path is too long', hint: 'choose a shorter path' },
  EIO: { cause: 'the disk reported an input/output error', hint: 'check the disk, then run again' },
};

/** "the disk is full (ENOSPC)": the cause of a file error, with its code for a search. */
export function fileProblemCause(error: unknown): string {
  const code = errnoCode(error);
  const known = code === undefined ? undefined : CAUSES[code];
  if (known) return `${known.cause} (${code})`;
  const message = (error as Error | undefined)?.message ?? String(error);
  return code === undefined || message.includes(code) ? message : `${message} (${code})`;
}

/** The one-line error for a file dpgw could not write; `where` names the flag that gave the path, when one did. */
export function cannotWrite(file: string, error: unknown, where?: string): DpgwError {
  if (error instanceof DpgwError) return error;
  const code = errnoCode(error);
  return new DpgwError('FILE_UNWRITABLE', `cannot write ${file}: ${fileProblemCause(error)}`, {
    where,
    hint: (code !== undefined ? CAUSES[code]?.hint : undefined) ?? 'check the path and the disk, then run again',
    details: code === undefined ? undefined : { code },
    cause: error,
  });
}
