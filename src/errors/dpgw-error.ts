import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import { ExitCode, type ExitCodeValue } from './exit-code.js';
import { whereText, type Where } from './source-location.js';

/** The small set of error kinds; each maps to one exit code, and a code's exit code decides its kind. */
export type ErrorKind = 'usage' | 'input' | 'rejected' | 'auth' | 'network' | 'unhealthy' | 'verification' | 'not-found' | 'failure' | 'interrupted';

/** The kind of each exit code an error may end with (Changed, 7, is a success of `provision --detailed-exitcode`, not an error). */
const kindOfExit: Record<Exclude<ExitCodeValue, typeof ExitCode.Ok | typeof ExitCode.Changed>, ErrorKind> = {
  [ExitCode.Failure]: 'failure',
  [ExitCode.Usage]: 'usage',
  [ExitCode.Rejected]: 'rejected',
  [ExitCode.Auth]: 'auth',
  [ExitCode.Network]: 'network',
  [ExitCode.Unhealthy]: 'unhealthy',
  [ExitCode.VerificationFailed]: 'verification',
  [ExitCode.NotFound]: 'not-found',
  [ExitCode.Interrupted]: 'interrupted',
};

/**
 * The codes of exit code 2 that say a file or value given is wrong (kind `input`), not how the
 * command was called (kind `usage`): both end with 2; --json tells them apart by `kind`.
 */
const INPUT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'CONFIG_INVALID',
  'CONFIG_UNREADABLE',
  'CONFIG_UNSAFE',
  'SECRET_UNAVAILABLE',
  'MANIFEST_NOT_FOUND',
  'MANIFEST_INVALID',
  'SCHEMA_INVALID',
  'SYNTAX_INVALID',
  'DOCUMENT_TOO_COMPLEX',
  'FILE_NOT_FOUND',
  'FILE_UNREADABLE',
  'FILE_NOT_REGULAR',
  'FILE_TOO_LARGE',
  'FILE_UNWRITABLE',
  'NO_USABLE_MESSAGES',
  'MESSAGE_FIELD_INVALID',
  'SANDBOX_USERS_INVALID',
  'INPUT_INVALID',
  'SCHEMA_CHANGE_REFUSED',
  'MESSAGES_DO_NOT_FIT',
  'TABLE_OWNED_ELSEWHERE',
  'DASHBOARD_MAP_COLUMNS_MISSING',
]);

/** A code's kind: its exit code's, so the code, the kind and the exit code cannot disagree. */
function errorKindOf(code: ErrorCode): ErrorKind {
  const exit = ERROR_CODES[code].exit;
  return exit === ExitCode.Usage && INPUT_CODES.has(code) ? 'input' : kindOfExit[exit];
}

export interface DpgwErrorOptions {
  /** Where the problem is: a place in a file (SourceLocation), or a field path, a flag, a URL as text. */
  where?: Where;
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
  readonly where?: Where;
  readonly hint?: string;
  readonly details?: Record<string, unknown>;
  /** The stable code (`code` in --json); not `code`, which Node's errors use for errno names (ENOSPC) that walkers of a cause chain look for. */
  readonly errorCode: ErrorCode;

  /** `code`: stable across releases (error-codes.ts, docs/error-codes.md); it decides the kind and the exit code. */
  constructor(code: ErrorCode, message: string, options: DpgwErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DpgwError';
    this.errorCode = code;
    this.kind = errorKindOf(code);
    this.where = options.where;
    this.hint = options.hint;
    this.details = options.details;
  }

  get exitCode(): ExitCodeValue {
    return ERROR_CODES[this.errorCode].exit;
  }

  /** The one line a user reads. */
  toLine(): string {
    const where = this.where ? `${whereText(this.where)}: ` : '';
    const hint = this.hint ? ` — ${this.hint}` : '';
    return `${where}${this.message}${hint}`;
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.errorCode,
      kind: this.kind,
      exitCode: this.exitCode,
      message: this.message,
      ...(this.where ? { where: whereText(this.where), location: whereText(this.where) } : {}),
      ...(this.hint ? { hint: this.hint } : {}),
      ...(this.details ? { details: this.details } : {}),
    };
  }
}
