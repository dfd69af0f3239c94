import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import { ExitCode, type ExitCodeValue } from './exit-code.js';

/** The small set of error kinds; each maps to one exit code. */
export type ErrorKind = 'usage' | 'input' | 'rejected' | 'auth' | 'network' | 'unhealthy' | 'verification' | 'not-found' | 'failure' | 'interrupted';

const exitCodeOf: Record<ErrorKind, ExitCodeValue> = {
  usage: ExitCode.Usage,
  input: ExitCode.Usage,
  rejected: ExitCode.Rejected,
  auth: ExitCode.Auth,
  network: ExitCode.Network,
  unhealthy: ExitCode.Unhealthy,
  verification: ExitCode.VerificationFailed,
  'not-found': ExitCode.NotFound,
  failure: ExitCode.Failure,
  interrupted: ExitCode.Interrupted,
};

/** The code of an error that names none of its own. */
const GENERAL_CODE: Record<ErrorKind, ErrorCode> = {
  usage: 'USAGE_ERROR',
  input: 'INPUT_INVALID',
  rejected: 'REQUEST_REJECTED',
  auth: 'AUTH_FAILED',
  network: 'NETWORK_ERROR',
  unhealthy: 'UNHEALTHY',
  verification: 'VERIFICATION_FAILED',
  'not-found': 'NOT_FOUND',
  failure: 'FAILURE',
  interrupted: 'INTERRUPTED',
};

export interface DpgwErrorOptions {
  /** Stable across releases (error-codes.ts, docs/error-codes.md); one that disagrees with the kind's exit code gives way to the kind's general code. */
  code: ErrorCode;
  /** Where the problem is: file:line:column, a field path, a flag, a URL. */
  where?: string;
  /** What to do next. */
  hint?: string;
  /** Extra data for --json output (never secrets). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * An error a user can act on. Rendered as one line:
 * `dpgw: <where>: <message> — <hint>`, and as `{ "error": … }` with --json.
 */
export class DpgwError extends Error {
  readonly kind: ErrorKind;
  readonly where?: string;
  readonly hint?: string;
  readonly details?: Record<string, unknown>;
  /** The stable code (`code` in --json); not `code`, which Node's errors use for errno names (ENOSPC) that walkers of a cause chain look for. */
  readonly errorCode: ErrorCode;

  constructor(kind: ErrorKind, message: string, options: DpgwErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DpgwError';
    this.kind = kind;
    this.where = options.where;
    this.hint = options.hint;
    this.details = options.details;
    // A code always agrees with the exit code: one that would not is the kind's general code instead.
    this.errorCode = options.code !== undefined && ERROR_CODES[options.code].exit === exitCodeOf[kind] ? options.code : GENERAL_CODE[kind];
  }

  get exitCode(): ExitCodeValue {
    return exitCodeOf[this.kind];
  }

  /** The one line a user reads. */
  toLine(): string {
    const where = this.where ? `${this.where}: ` : '';
    const hint = this.hint ? ` — ${this.hint}` : '';
    return `${where}${this.message}${hint}`;
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.errorCode,
      kind: this.kind,
      exitCode: this.exitCode,
      message: this.message,
      ...(this.where ? { where: this.where, location: this.where } : {}),
      ...(this.hint ? { hint: this.hint } : {}),
      ...(this.details ? { details: this.details } : {}),
    };
  }
}
