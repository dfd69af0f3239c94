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

export interface DpgwErrorOptions {
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

  constructor(kind: ErrorKind, message: string, options: DpgwErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DpgwError';
    this.kind = kind;
    this.where = options.where;
    this.hint = options.hint;
    this.details = options.details;
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
      kind: this.kind,
      exitCode: this.exitCode,
      message: this.message,
      ...(this.where ? { where: this.where } : {}),
      ...(this.hint ? { hint: this.hint } : {}),
      ...(this.details ? { details: this.details } : {}),
    };
  }
}
