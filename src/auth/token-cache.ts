/**
 * The token cache: one file per profile under $XDG_CACHE_HOME/dpgw/tokens
 * (else ~/.cache/dpgw/tokens), directory 0700, files 0600, written atomically.
 * A file others can read is refused, not used. A lock file serialises refreshes
 * between dpgw processes, so two of them never spend the same refresh token.
 */
import { chmod, mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DpgwError } from '../errors/dpgw-error.js';
import { registerSecret } from '../secrets/redaction.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { cacheDirectory } from '../files/cache-directory.js';

export interface CachedSession {
  version: 1;
  profile: string;
  /** Whom the tokens are for: a change of any of these makes the cache not apply. */
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
  /** The client secret's reference (never the secret) used at login, for refreshing later. */
  clientSecretReference?: string;
}

const LOCK_STALE_MS = 30_000;
const LOCK_WAIT_MS = 15_000;

export class TokenCache {
  readonly file: string;
  private readonly directory: string;

  constructor(
    env: NodeJS.ProcessEnv,
    readonly profile: string,
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.directory = join(cacheDirectory(env), 'tokens');
    this.file = join(this.directory, `${encodeURIComponent(profile)}.json`);
  }

  /** The cached session, or undefined when there is none or it cannot be trusted. */
  async read(): Promise<CachedSession | undefined> {
    let text: string;
    try {
      const info = await stat(this.file);
      if ((info.mode & 0o077) !== 0) {
        this.warn(`ignoring the token cache ${this.file}: others can read it (mode ${(info.mode & 0o777).toString(8)}); run \`dpgw login\` to replace it`);
        return undefined;
      }
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new DpgwError('failure', `cannot read the token cache ${this.file}: ${(error as Error).message}`, { hint: 'check its permissions, or remove it and run `dpgw login`' });
    }
    try {
      const session = JSON.parse(text) as CachedSession;
      if (session.version !== 1 || typeof session.accessToken !== 'string') throw new Error('unknown format');
      registerSecret(session.accessToken);
      registerSecret(session.refreshToken);
      return session;
    } catch {
      this.warn(`ignoring the token cache ${this.file}: it is not readable as a dpgw session; run \`dpgw login\``);
      return undefined;
    }
  }

  /**
   * Atomic: a crash or a second process never sees half a file. Where the cache cannot be
   * written (a read-only home in a container), the session serves this command only, said once.
   */
  async write(session: CachedSession): Promise<void> {
    try {
      await this.ensureDirectory();
      await writeFileAtomic(this.file, JSON.stringify(session, null, 2) + '\n', 0o600);
    } catch (error) {
      if (!unwritable(error)) throw error;
      this.cannotWrite(error);
    }
  }

  async remove(): Promise<boolean> {
    try {
      await rm(this.file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  /**
   * Runs `work` holding the profile's lock file. A lock is stale, and taken over, when the
   * process that holds it is gone (its pid is in the file) or it is older than 30 s; where
   * no lock can be made (a read-only home), `work` runs without one.
   */
  async withLock<T>(work: () => Promise<T>): Promise<T> {
    const lock = `${this.file}.lock`;
    try {
      await this.ensureDirectory();
    } catch (error) {
      if (!unwritable(error)) throw error;
      this.cannotWrite(error);
      return work();
    }
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        const handle = await open(lock, 'wx', 0o600);
        await handle.writeFile(String(process.pid));
        await handle.close();
        break;
      } catch (error) {
        if (unwritable(error)) {
          this.cannotWrite(error);
          return work();
        }
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const age = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0);
        if (age > LOCK_STALE_MS || (await holderIsGone(lock))) {
          await rm(lock, { force: true });
          continue;
        }
        if (Date.now() > deadline) throw new DpgwError('failure', `another dpgw holds the token lock ${lock}`, { hint: 'wait for it to finish, or remove the lock file if no dpgw is running' });
        await sleep(25 + Math.random() * 25);
      }
    }
    try {
      return await work();
    } finally {
      await rm(lock, { force: true });
    }
  }

  private cannotWrite(error: unknown): void {
    // Once per process: every client of a command has a cache of its own.
    if (warnedUnwritable.has(this.directory)) return;
    warnedUnwritable.add(this.directory);
    this.warn(`cannot write the token cache in ${this.directory} (${(error as NodeJS.ErrnoException).code}): the session serves this command only; set XDG_CACHE_HOME to a writable folder to keep it`);
  }

  private async ensureDirectory(): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    await chmod(this.directory, 0o700).catch(() => undefined);
  }
}

const warnedUnwritable = new Set<string>();

/** A file system that takes no writes here: read-only, not ours, or full. */
function unwritable(error: unknown): boolean {
  return ['EROFS', 'EACCES', 'EPERM', 'ENOSPC'].includes((error as NodeJS.ErrnoException).code ?? '');
}

/** The lock's holder (its pid, written into the lock) has ended: a dpgw killed while holding it. */
async function holderIsGone(lock: string): Promise<boolean> {
  const pid = Number(await readFile(lock, 'utf8').catch(() => ''));
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
