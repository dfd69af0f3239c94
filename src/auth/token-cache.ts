/**
 * The token cache: the sessions of a profile under $XDG_CACHE_HOME/dpgw/tokens (else
 * ~/.cache/dpgw/tokens), one file per identity (identity provider, realm, client, grant,
 * user), like gh's one token per host and user: signing in as another identity never
 * replaces the session of the first. Directory 0700, files 0600, written atomically.
 * A file is used only when it is a regular file of this user that nobody else may read
 * or write; anything else is ignored with one warning, as the code cache is. The cache
 * keeps tokens only, never a secret reference: a file that names `exec:` runs nothing.
 * One lock file per profile serialises sign-ins and refreshes between dpgw processes,
 * so two of them never spend the same refresh token. A cache folder dpgw cannot use
 * (read-only, full, a file in its place) costs one warning: the session then serves the
 * command from memory.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, link, lstat, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DpgwError } from '../errors/dpgw-error.js';
import type { Grant } from './grants.js';
import { registerSecret } from '../secrets/redaction.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { cacheDirectory } from '../files/cache-directory.js';
import { errnoCode, fileProblemCause } from '../files/file-problem.js';

export interface CachedSession {
  version: 1;
  profile: string;
  /** Whom the tokens are for: a run whose settings name another of these is not served by it. */
  authUrl: string;
  realm: string;
  clientId: string;
  username: string;
  issuer: string;
  tokenEndpoint: string;
  endSessionEndpoint?: string;
  accessToken: string;
  refreshToken?: string;
  /** ISO times, computed from the time of receipt. */
  obtainedAt: string;
  accessTokenExpiresAt: string;
  refreshTokenExpiresAt?: string;
  scope?: string;
  /** How the session was signed in (absent in caches written before: the password grant). */
  grant?: Grant;
  /** The gateway origin the session was signed in for, or first used with: its token goes to no other. */
  gateway?: string;
  /** When the identity signed in (a refresh keeps it): of several sessions that serve a run, the latest sign-in does. */
  signedInAt?: string;
}

/** A session and the file it was read from. */
export interface StoredSession {
  file: string;
  session: CachedSession;
}

/** How long a lock whose holder cannot be checked (another machine sharing the folder) is waited for. */
const UNKNOWN_HOLDER_WAIT_MS = 15_000;
/** How long a live holder on this machine is waited for: a refresh retries for a while, but a stuck process must not stop every command. */
const LIVE_HOLDER_WAIT_MS = 300_000;
/** When a wait for a live holder is said, once. */
const LIVE_HOLDER_NOTICE_MS = 3_000;

/** What a lock file holds: who took it. `process` tells this process from an earlier one that had its pid (pid 1 in a container). */
interface LockHolder {
  pid: number;
  hostname: string;
  process?: string;
  since?: string;
}

const THIS_PROCESS = randomBytes(8).toString('hex');

// No symbolic link is followed to a session, and a FIFO cannot block the open.
const OPEN_SESSION = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** A session file is at most this large; a larger one is not dpgw's. */
const MAX_SESSION_BYTES = 1024 * 1024;

export class TokenCache {
  readonly directory: string;
  /** The profile's lock (the name earlier dpgw versions used for the profile's one session, so they serialise with this one). */
  readonly lock: string;
  private readonly prefix: string;

  constructor(
    env: NodeJS.ProcessEnv,
    readonly profile: string,
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.directory = join(cacheDirectory(env), 'tokens');
    this.prefix = encodeURIComponent(profile);
    this.lock = join(this.directory, `${this.prefix}.json.lock`);
  }

  /**
   * The file of a session's identity. A profile name holds no `@` (profile-name.ts), so no
   * other profile's file has this name; the gateway is not part of it: an identity keeps one
   * session, bound to one gateway.
   */
  fileOf(session: Pick<CachedSession, 'authUrl' | 'realm' | 'clientId' | 'grant' | 'username'>): string {
    const identity = JSON.stringify([session.authUrl.replace(/\/+$/, ''), session.realm, session.clientId, session.grant ?? 'password', session.username.toLowerCase()]);
    return join(this.directory, `${this.prefix}@${createHash('sha256').update(identity).digest('hex').slice(0, 16)}.json`);
  }

  /** Every session of the profile that can be trusted, files of earlier dpgw versions (`<profile>.json`, `<profile>@service-account.json`) included. */
  async sessions(): Promise<StoredSession[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return [];
      if (unwritable(error)) {
        this.cannotWrite(error);
        return [];
      }
      throw new DpgwError('TOKEN_CACHE_UNREADABLE', `cannot read the token cache ${this.directory}: ${fileProblemCause(error)}`, { hint: 'check its permissions, or remove it and run `dpgw login`' });
    }
    const files = names.filter((name) => name === `${this.prefix}.json` || (name.startsWith(`${this.prefix}@`) && name.endsWith('.json'))).sort();
    const found: StoredSession[] = [];
    for (const name of files) {
      const file = join(this.directory, name);
      const session = await this.read(file);
      if (session !== undefined && session.profile === this.profile) found.push({ file, session });
    }
    return found;
  }

  /**
   * The session in `file`, or undefined when there is none or it cannot be trusted: not a
   * regular file (a link, a FIFO), another user's, or one others may read or write. What is
   * read is the opened file itself (fstat), so it cannot be swapped between check and read.
   */
  async read(file: string): Promise<CachedSession | undefined> {
    let text: string;
    let handle;
    try {
      handle = await open(file, OPEN_SESSION);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return undefined;
      if (errnoCode(error) === 'ELOOP') {
        this.warn(`ignoring the token cache ${file}: it is a symbolic link; run \`rm ${file}\` and \`dpgw login\``);
        return undefined;
      }
      throw new DpgwError('TOKEN_CACHE_UNREADABLE', `cannot read the token cache ${file}: ${fileProblemCause(error)}`, { hint: 'check its permissions, or remove it and run `dpgw login`' });
    }
    try {
      const info = await handle.stat();
      const me = process.getuid?.();
      const mode = (info.mode & 0o777).toString(8);
      const distrust = !info.isFile()
        ? { why: 'it is not a regular file', fix: `rm ${file}` }
        : me !== undefined && info.uid !== me
          ? { why: `it belongs to another user (uid ${info.uid}), who could have written it`, fix: `rm ${file}` }
          : (info.mode & 0o022) !== 0
            ? { why: `others can change it (mode ${mode})`, fix: `rm ${file}` }
            : (info.mode & 0o077) !== 0
              ? { why: `others can read it (mode ${mode})`, fix: `chmod 600 ${file}` }
              : undefined;
      if (distrust !== undefined) {
        this.warn(`ignoring the token cache ${file}: ${distrust.why}; run \`${distrust.fix}\`${distrust.fix.startsWith('rm') ? ' and `dpgw login`' : ', or `dpgw login` to replace it'}`);
        return undefined;
      }
      if (info.size > MAX_SESSION_BYTES) {
        this.warn(`ignoring the token cache ${file}: it is not readable as a dpgw session; run \`dpgw login\``);
        return undefined;
      }
      text = await handle.readFile('utf8');
    } catch (error) {
      throw new DpgwError('TOKEN_CACHE_UNREADABLE', `cannot read the token cache ${file}: ${fileProblemCause(error)}`, { hint: 'check its permissions, or remove it and run `dpgw login`' });
    } finally {
      await handle.close().catch(() => undefined);
    }
    const session = sessionOf(text);
    if (session === undefined) {
      this.warn(`ignoring the token cache ${file}: it is not readable as a dpgw session; run \`dpgw login\``);
      return undefined;
    }
    registerSecret(session.accessToken);
    registerSecret(session.refreshToken);
    return session;
  }

  /**
   * Atomic: a crash or a second process never sees half a file. Where the cache cannot be
   * written (a read-only home in a container, a full disk), the session serves this command only, said once.
   * Returns the file it went to.
   */
  async write(session: CachedSession): Promise<string> {
    const file = this.fileOf(session);
    try {
      await this.ensureDirectory();
      await writeFileAtomic(file, JSON.stringify(session, null, 2) + '\n', 0o600);
    } catch (error) {
      if (!unwritable(error)) throw error;
      this.cannotWrite(error);
    }
    return file;
  }

  /** Removes a session file; false when there was none, or the folder takes no changes (said once). */
  async remove(file: string): Promise<boolean> {
    try {
      await rm(file);
      return true;
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return false;
      if (!unwritable(error)) throw error;
      this.cannotWrite(error);
      return false;
    }
  }

  /**
   * Runs `work` holding the profile's lock file, which names its holder (pid, host). A lock is
   * stale, and taken over at once, when its holder is gone (this machine, pid not alive) or it
   * names none (empty or unreadable: a write that failed); never by its age, since a refresh may
   * take long. A holder on another machine (a container sharing the folder) cannot be checked:
   * it is waited for, then reported. Where no lock can be made (a read-only home), `work` runs
   * without one.
   */
  async withLock<T>(work: () => Promise<T>): Promise<T> {
    const lock = this.lock;
    try {
      await this.ensureDirectory();
    } catch (error) {
      if (!unwritable(error)) throw error;
      this.cannotWrite(error);
      return work();
    }
    const mine: LockHolder = { pid: process.pid, hostname: hostname(), process: THIS_PROCESS, since: new Date().toISOString() };
    const content = JSON.stringify(mine);
    const started = Date.now();
    let noticed = false;
    for (;;) {
      try {
        await createLock(lock, content);
        break;
      } catch (error) {
        if (unwritable(error)) {
          this.cannotWrite(error);
          return work();
        }
        if (errnoCode(error) !== 'EEXIST') throw error;
      }
      const seen = await inspectLock(lock);
      if (seen === undefined) continue;
      if (seen.state === 'stale') {
        await takeOver(lock, seen.ino);
        continue;
      }
      const waited = Date.now() - started;
      if (seen.state === 'unknown' && waited > UNKNOWN_HOLDER_WAIT_MS) {
        const { holder } = seen;
        throw new DpgwError('TOKEN_CACHE_LOCKED', `the token lock ${lock} is held by process ${holder.pid} on host ${holder.hostname}${holder.since ? ` since ${holder.since}` : ''}, which dpgw cannot check from here`, {
          hint: `wait for the dpgw there to finish; if no other dpgw runs (a stopped container), remove ${lock} and run again`,
        });
      }
      if (seen.state === 'alive' && waited > LIVE_HOLDER_WAIT_MS) {
        throw new DpgwError('TOKEN_CACHE_LOCKED', `dpgw process ${seen.holder.pid} on this machine has held the token lock ${lock} for over ${LIVE_HOLDER_WAIT_MS / 60_000} minutes`, {
          hint: `end that process if it is stuck (or is no dpgw), or remove ${lock} if no other dpgw runs`,
        });
      }
      if (seen.state === 'alive' && waited > LIVE_HOLDER_NOTICE_MS && !noticed && seen.holder.pid !== process.pid) {
        noticed = true;
        this.warn(`waiting for the token lock ${lock}: dpgw process ${seen.holder.pid} holds it`);
      }
      await sleep(25 + Math.random() * 25);
    }
    try {
      return await work();
    } finally {
      await releaseLock(lock, content);
    }
  }

  private cannotWrite(error: unknown): void {
    // Once per process: every client of a command has a cache of its own.
    if (warnedUnwritable.has(this.directory)) return;
    warnedUnwritable.add(this.directory);
    this.warn(`cannot use the token cache in ${this.directory}: ${fileProblemCause(error)}; the session serves this command only; set XDG_CACHE_HOME to a writable folder to keep it`);
  }

  private async ensureDirectory(): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    await chmod(this.directory, 0o700).catch(() => undefined);
  }
}

const warnedUnwritable = new Set<string>();

/**
 * A session as dpgw wrote it, its fields of the expected types; anything else is not one. Only
 * the fields a session has are kept: whatever else a file holds (an earlier version's secret
 * reference, an edit) is dropped, never used.
 */
function sessionOf(text: string): CachedSession | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const record = parsed as Record<string, unknown>;
  const stringField = (key: string) => (Object.hasOwn(record, key) && typeof record[key] === 'string' ? (record[key] as string) : undefined);
  const required = ['profile', 'authUrl', 'realm', 'clientId', 'username', 'issuer', 'tokenEndpoint', 'accessToken', 'obtainedAt', 'accessTokenExpiresAt'] as const;
  if (record.version !== 1 || required.some((key) => stringField(key) === undefined)) return undefined;
  const grant = stringField('grant');
  if (grant !== undefined && !['password', 'client-credentials', 'device'].includes(grant)) return undefined;
  const optional = (key: string) => (stringField(key) === undefined ? {} : { [key]: stringField(key) });
  return {
    version: 1,
    profile: stringField('profile')!,
    authUrl: stringField('authUrl')!,
    realm: stringField('realm')!,
    clientId: stringField('clientId')!,
    username: stringField('username')!,
    issuer: stringField('issuer')!,
    tokenEndpoint: stringField('tokenEndpoint')!,
    accessToken: stringField('accessToken')!,
    obtainedAt: stringField('obtainedAt')!,
    accessTokenExpiresAt: stringField('accessTokenExpiresAt')!,
    ...optional('endSessionEndpoint'),
    ...optional('refreshToken'),
    ...optional('refreshTokenExpiresAt'),
    ...optional('scope'),
    ...optional('grant'),
    ...optional('gateway'),
    ...optional('signedInAt'),
  } as CachedSession;
}

/**
 * A folder that takes no writes here: read-only, not ours, full, a file in its place
 * (ENOTDIR, or EEXIST from mkdir), a dangling link on its path (ENOENT from mkdir).
 */
function unwritable(error: unknown): boolean {
  return ['EROFS', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT', 'EFBIG', 'EIO', 'ENOTDIR', 'ENOENT', 'ELOOP', 'EISDIR', 'ENAMETOOLONG'].includes(errnoCode(error) ?? '');
}

/** File systems without hard links (some network and FUSE mounts) answer link() so. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV']);

/**
 * Creates the lock with its content in one step: the content goes to a file of its own,
 * which is then linked to the lock's name (EEXIST when another holds it). So a lock is never
 * seen empty, and a failed write (a full disk) leaves no lock behind.
 */
async function createLock(lock: string, content: string): Promise<void> {
  const temporary = `${lock}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeNew(temporary, content);
    try {
      await link(temporary, lock);
    } catch (error) {
      if (!NO_HARD_LINKS.has(errnoCode(error) ?? '')) throw error;
      await writeNew(lock, content);
    }
  } finally {
    await rm(temporary, { force: true }).catch(() => undefined);
  }
}

/** A new file (EEXIST when there is one) with its content, removed again when the content cannot be written. */
async function writeNew(file: string, content: string): Promise<void> {
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(content);
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(file, { force: true }).catch(() => undefined);
    throw error;
  }
}

type LockState = { ino: number; state: 'stale' } | { ino: number; state: 'alive' | 'unknown'; holder: LockHolder };

/** Who holds the lock and whether they still live; undefined when it is gone meanwhile. */
async function inspectLock(lock: string): Promise<LockState | undefined> {
  let ino: number;
  let text: string;
  try {
    const found = await lstat(lock);
    ino = found.ino;
    // dpgw's lock is a small regular file: a link (to /dev/zero, to a FIFO), a FIFO or a folder at its name holds no holder, and reading it would follow, block or grow without bound.
    if (!found.isFile()) return { ino, state: 'stale' };
    text = await readLockText(lock);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    return { ino: -1, state: 'stale' };
  }
  const holder = holderOf(text);
  if (holder === undefined) return { ino, state: 'stale' };
  if (holder.hostname !== hostname()) return { ino, state: 'unknown', holder };
  // Another client of this process holds it, or an earlier process that had this pid left it.
  if (holder.pid === process.pid) return holder.process === THIS_PROCESS ? { ino, state: 'alive', holder } : { ino, state: 'stale' };
  try {
    process.kill(holder.pid, 0);
    return { ino, state: 'alive', holder };
  } catch (error) {
    // EPERM: the process lives, under another user.
    return errnoCode(error) === 'ESRCH' ? { ino, state: 'stale' } : { ino, state: 'alive', holder };
  }
}

/** The holder a lock names; a bare pid is the lock of an earlier dpgw on this machine; anything else names none. */
function holderOf(text: string): LockHolder | undefined {
  if (/^\d+$/.test(text.trim())) return { pid: Number(text.trim()), hostname: hostname() };
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isInteger(parsed.pid) && (parsed.pid as number) > 0 && typeof parsed.hostname === 'string') return parsed as LockHolder;
  } catch {
    // Not a lock dpgw wrote whole.
  }
  return undefined;
}

/**
 * Takes a stale lock away by moving it aside, then checks that what moved is the lock found
 * stale: when another process took the stale one over first, its fresh lock is put back.
 */
async function takeOver(lock: string, staleIno: number): Promise<void> {
  const aside = `${lock}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await rename(lock, aside);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    // Cannot be moved (a folder where the lock should be): removed where it is.
    await rm(lock, { force: true, recursive: true });
    return;
  }
  const moved = await lstat(aside).then((info) => info.ino, () => staleIno);
  if (staleIno !== -1 && moved !== staleIno) await link(aside, lock).catch(() => undefined);
  await rm(aside, { force: true, recursive: true });
}

/** What a lock holds (a pid and a host: far below LOCK_BYTES), read without following a link or waiting on a FIFO. */
const LOCK_BYTES = 4096;
async function readLockText(lock: string): Promise<string> {
  const handle = await open(lock, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    const buffer = Buffer.alloc(LOCK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, LOCK_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Removes the lock if it is still this holder's. */
async function releaseLock(lock: string, content: string): Promise<void> {
  const current = await readLockText(lock).catch(() => undefined);
  if (current === content) await rm(lock, { force: true });
}
