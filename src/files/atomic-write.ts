/**
 * The one way dpgw writes a file for the user: a temporary file beside it, flushed to the
 * disk, then a rename, then the folder flushed, so neither a crash, a power loss nor a
 * second process ever sees half a file (or an empty config.yaml). The temporary file is
 * 0600 until it takes the name, so a secret is never readable by others on the way, and
 * it is removed when anything fails. A failure is one line naming the file and the cause
 * (files/file-problem.ts).
 *
 * Never through a symbolic link: a link at the path (`dpgw-junit.xml -> ~/.bashrc`
 * committed in a merge request's checkout) is refused in one line naming it and where it
 * leads, and with --force the link itself is replaced (the rename takes its name), never
 * what it points to. Only the last component is judged: the folders on the way are the
 * ones the user named (a home or a /tmp that is itself a link is common). The system's
 * own links under /dev (`-o /dev/stdout`) are written into, as a FIFO or a terminal is.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import { chmod, constants, link, open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { DpgwError } from '../errors/dpgw-error.js';
import { serverText } from '../text/terminal-text.js';
import { cannotWrite, errnoCode } from './file-problem.js';

export interface AtomicWriteOptions {
  /** The flag that named the path (`--output`), for the error line. */
  where?: string;
  /** What to do about a link at the path, where the command has no --force (config.yaml: point DPGW_CONFIG_DIR at the real folder). */
  linkHint?: string;
}

export interface OutputFileOptions extends AtomicWriteOptions {
  /** --force: an existing file, or a link, at the path is replaced (a link itself, never its target). */
  force: boolean;
  /** What to do about an existing file, where "choose another path" says less than the command could ("choose another folder"). */
  existsHint?: string;
}

/**
 * A file that is the run's own (config.yaml, a cache, a report a pipeline asked for): a
 * regular file at the path is replaced, a link is refused (a report and a cache have no
 * --force; config.yaml is rewritten in place).
 */
export async function writeFileAtomic(file: string, data: string, mode: number, options: AtomicWriteOptions = {}): Promise<void> {
  await writeChecked(file, data, mode, { ...options, existing: 'replace', force: false, hasForce: false });
}

/** A file the user asked dpgw to make (--output, init's files): an existing file, empty or not, or a link at the path is refused unless --force. */
export async function writeOutputFile(file: string, data: string, mode: number, options: OutputFileOptions): Promise<void> {
  await writeChecked(file, data, mode, { ...options, existing: 'refuse', hasForce: true });
}

interface WriteRules extends OutputFileOptions {
  existing: 'refuse' | 'replace';
  /** Whether the command has a --force to name in the hint. */
  hasForce: boolean;
}

/** What is at the path now: nothing, a file to replace, a FIFO or terminal to write into. */
type Found = 'nothing' | 'replaceable' | 'stream';

/**
 * The checks writeOutputFile makes, for a command that refuses before it asks or sends
 * anything (export, init, provision's reports): throws OUTPUT_IS_LINK or OUTPUT_EXISTS.
 */
export function checkOutputFile(file: string, options: OutputFileOptions & { existing?: 'refuse' | 'replace' }): void {
  judgePath(file, { existing: 'refuse', ...options, hasForce: true });
}

function judgePath(file: string, rules: WriteRules): Found {
  let found: Stats;
  try {
    found = lstatSync(file);
  } catch {
    // Nothing there, or a path that cannot be (ENOTDIR): the write says which, naming the cause.
    return 'nothing';
  }
  if (found.isSymbolicLink()) {
    if (isSystemDevice(file)) return 'stream';
    if (rules.force) return 'replaceable';
    throw linkRefused(file, rules);
  }
  if (found.isFIFO() || found.isCharacterDevice()) return 'stream';
  // A folder (or anything else) of that name is refused as a file is, before the first file of several is written.
  if (rules.existing === 'refuse' && !rules.force) throw existsRefused(file, rules);
  return 'replaceable';
}

async function writeChecked(file: string, data: string, mode: number, rules: WriteRules): Promise<void> {
  const found = judgePath(file, rules);
  if (found === 'stream') {
    // A FIFO, a terminal, /dev/stdout: nothing to replace, and no folder of ours to write a temporary file in.
    await writeFile(file, data).catch((error: unknown) => {
      throw cannotWrite(file, error, rules.where);
    });
    return;
  }
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    // O_EXCL and O_NOFOLLOW: a name someone put there first (a link to elsewhere) is refused, not written through.
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temporary, mode);
    // A rename replaces whatever has the name (a link too, not its target); a file that must not be replaced takes the name by a hard link, which fails if one appeared since the check.
    if (found === 'nothing' && rules.existing === 'refuse' && !rules.force) await takeNewName(temporary, file, rules);
    else await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw cannotWrite(file, error, rules.where);
  }
  await syncFolder(dirname(file));
}

/** File systems without hard links (some network and FUSE mounts) answer link() so; there the check made before the write is the guard. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV']);

async function takeNewName(temporary: string, file: string, rules: WriteRules): Promise<void> {
  try {
    await link(temporary, file);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'EEXIST') judgePath(file, rules);
    if (!NO_HARD_LINKS.has(code ?? '')) throw error;
    await rename(temporary, file);
    return;
  }
  await rm(temporary, { force: true });
}

/** /dev/stdout, /dev/fd/1: links the system keeps, named by the user on the command line, never in a checkout. */
function isSystemDevice(file: string): boolean {
  return resolve(file).startsWith(`${sep}dev${sep}`);
}

function linkRefused(file: string, rules: WriteRules): DpgwError {
  let target: string;
  try {
    target = resolve(dirname(file), readlinkSync(file));
  } catch {
    target = '(unreadable)';
  }
  // The link's text is whoever made it's: shown escaped, so no link can forge a line of the log.
  const leadsTo = serverText(target);
  const hint = rules.linkHint ?? (rules.hasForce ? `remove the link, or pass --force to replace the link itself (${leadsTo} is left as it is)` : 'remove the link and run again');
  return new DpgwError('OUTPUT_IS_LINK', `${serverText(file)} is a symbolic link to ${leadsTo}: dpgw writes no file through a link`, {
    where: rules.where,
    hint,
    details: { file, target },
  });
}

function existsRefused(file: string, rules: WriteRules): DpgwError {
  return new DpgwError('OUTPUT_EXISTS', `${serverText(file)} exists: not overwritten`, { where: rules.where, hint: rules.existsHint ?? 'pass --force to replace it, or choose another path' });
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
