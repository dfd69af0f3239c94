/** The streams and environment a command runs with: the real process, or a test's captures. */
export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface Io {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The real process. stdin and stderr are opened on first use: creating them costs start-up time that --version and --help never need. */
export function processIo(): Io {
  return {
    stdout: process.stdout,
    get stderr() {
      return process.stderr;
    },
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Colour only for a terminal, never with NO_COLOR or --no-color; FORCE_COLOR wins for CI logs that render it. */
export function wantsColor(stream: OutputStream, env: NodeJS.ProcessEnv, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** A prompt needs a person: a TTY on both ends and no --no-input. */
export function canPrompt(io: Io, noInput: boolean): boolean {
  return !noInput && io.stdin.isTTY === true && io.stderr.isTTY === true;
}
