/**
 * Reading a file a user (or a manifest) named: only a regular file, and only up to a
 * size. A FIFO would hang the run until someone writes to it, and /dev/zero or a huge
 * file would grow memory until the process dies; both are refused in one line instead.
 * Synchronous on purpose: a CLI reads its few files before it does anything else, and
 * the TLS set-up that reads the CA file cannot wait.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { DpgwError } from '../errors/dpgw-error.js';
import type { ErrorCode } from '../errors/error-codes.js';

export const MB = 1024 * 1024;

export interface RegularFileRead {
  /** What the file is, for messages: "manifest", "certificate authorities". */
  what: string;
  maxBytes: number;
  /** Where the path was given (a flag, a setting's location); the path itself by default. */
  where?: string;
  hint?: string;
  /** The code when nothing is at the path (MANIFEST_NOT_FOUND, SECRET_UNAVAILABLE); FILE_NOT_FOUND by default. */
  missingCode?: ErrorCode;
  /** The code when it is there but cannot be read (CONFIG_UNREADABLE); FILE_UNREADABLE by default. */
  unreadableCode?: ErrorCode;
}

// Without blocking: a FIFO with no writer would otherwise block open() itself.
const READ_ONLY = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export function readRegularFile(path: string, read: RegularFileRead): string {
  let fd: number;
  try {
    fd = openSync(path, READ_ONLY);
  } catch (error) {
    throw unreadable(path, read, error);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw refusal(path, read, `is ${kindOf(stats)}: dpgw reads only regular files`, 'FILE_NOT_REGULAR');
    // One byte more than allowed tells a file that grew past the limit since fstat.
    const buffer = Buffer.alloc(Math.min(stats.size, read.maxBytes) + 1);
    let length = 0;
    for (let bytesRead = -1; bytesRead !== 0 && length < buffer.length; length += bytesRead) {
      bytesRead = readSync(fd, buffer, length, buffer.length - length, length);
    }
    if (stats.size > read.maxBytes || length > read.maxBytes) throw refusal(path, read, `is larger than ${read.maxBytes / MB} MB, more than dpgw reads for it`, 'FILE_TOO_LARGE');
    return buffer.subarray(0, length).toString('utf8');
  } catch (error) {
    throw error instanceof DpgwError ? error : unreadable(path, read, error);
  } finally {
    closeSync(fd);
  }
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function refusal(path: string, read: RegularFileRead, what: string, code: ErrorCode): DpgwError {
  return new DpgwError(code, `the ${read.what} ${path} ${what}`, { where: read.where ?? path, hint: read.hint ?? 'give the path of a regular file' });
}

function unreadable(path: string, read: RegularFileRead, error: unknown): DpgwError {
  const code = (error as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
  const missing = code === 'ENOENT' || code === 'ENOTDIR';
  return new DpgwError(missing ? (read.missingCode ?? 'FILE_NOT_FOUND') : (read.unreadableCode ?? 'FILE_UNREADABLE'), `cannot read the ${read.what} ${path}: ${why}`, {
    where: read.where ?? path,
    hint: read.hint ?? 'check the path',
  });
}
