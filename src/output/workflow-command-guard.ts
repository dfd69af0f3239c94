/**
 * The last guard in a GitHub Actions job (GITHUB_ACTIONS=true). The runner reads every line a
 * step writes, and takes as a command to it a line that starts with `::` after whitespace
 * (`::add-mask::…`, `::stop-commands::…`, `::error …`), and a line that holds `##[` anywhere
 * before a command's name and `]` (the older form, `##[add-mask]…`, still read:
 * actions/runner, ActionCommand.TryParseV2 and TryParse). Every line dpgw writes passes through
 * here: a `::` that would start a line is written with a backslash before it (`\::error …`),
 * and `##[` as `##\[`, so the line is text again. Only dpgw's own workflow commands (its
 * annotations and log groups, github-actions.ts, written by the reporter) go past, by
 * writeWorkflowCommand. A message's own line breaks are escaped before this (terminalLine);
 * this guard is for everything that writes: a document on stdout, commander's help, a
 * prompt, a spinner, and whatever a later change lets through.
 */
import type { Io, OutputStream } from './io.js';

/** What the runner splits lines at (\n, \r), and the other line breaks some log viewers honour. */
const LINE_BREAKS = new Set(['\n', '\r', '\u0085', '\u2028', '\u2029']);
/** A run of whitespace, as the runner's TrimStart (.NET Char.IsWhiteSpace) trims it, and as JS `\s` reads it: NEL too. */
const WHITESPACE_RUN = /[\s\u0085]+/g;

/** A stream whose lines cannot be the runner's commands, with the one way past for dpgw's own. */
export interface GuardedStream extends OutputStream {
  /** Writes one line of dpgw's own workflow commands (`::error …`, `::group::…`, `::endgroup::`) as it is, on a line of its own. */
  writeWorkflowCommand(line: string): void;
}

// From the global registry: run-cli and the dispatcher are bundled apart, each with a copy of this module.
const GUARDED = Symbol.for('dpgw.workflowCommandGuard');

/** The io with both streams guarded inside GitHub Actions; as it is outside one. */
export function guardedIo(io: Io): Io {
  if (io.env.GITHUB_ACTIONS !== 'true') return io;
  const stdout = guardWorkflowCommands(io.stdout);
  // stderr is opened on first use (io.ts), and so is its guard.
  let stderr: GuardedStream | undefined;
  return {
    stdout,
    get stderr() {
      return (stderr ??= guardWorkflowCommands(io.stderr));
    },
    get stdin() {
      return io.stdin;
    },
    env: io.env,
    cwd: io.cwd,
  };
}

/** Whether the stream has a way past the guard for dpgw's own workflow commands. */
export function isGuarded(stream: OutputStream): stream is GuardedStream {
  return (stream as Partial<Record<typeof GUARDED, boolean>>)[GUARDED] === true;
}

/**
 * The stream, with every line that would start (after whitespace) with `::` written with a
 * backslash before it. Lines run across writes: a write's text is judged with what came
 * before it on its line. Everything else of the stream (isTTY, columns, a terminal's cursor
 * methods a spinner calls) is the stream's own.
 */
export function guardWorkflowCommands(stream: OutputStream): GuardedStream {
  if (isGuarded(stream)) return stream;
  const state: LineState = { atLineStart: true, trailingHashes: 0 };
  const write = (chunk: unknown, ...rest: unknown[]): unknown => {
    const text = typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : String(chunk);
    const guarded = neutralised(text, state);
    state.atLineStart = endsAtLineStart(text, state.atLineStart);
    state.trailingHashes = Math.min(2, text.length - text.replace(/#+$/, '').length + (/^#*$/.test(text) ? state.trailingHashes : 0));
    return (stream.write as (chunk: string, ...rest: unknown[]) => unknown).call(stream, guarded, ...rest);
  };
  const writeWorkflowCommand = (line: string): void => {
    // A command is a line of its own: after a line another writer left open, on the next. The
    // runner reads it as the command it starts with; a `##[` in its data is broken all the same.
    stream.write(`${state.atLineStart ? '' : '\n'}${line.replaceAll('##[', '##\\[')}\n`);
    state.atLineStart = true;
    state.trailingHashes = 0;
  };
  return new Proxy(stream, {
    get(target, key) {
      if (key === 'write') return write;
      if (key === 'writeWorkflowCommand') return writeWorkflowCommand;
      if (key === GUARDED) return true;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as GuardedStream;
}

/** Where a line stands after what was written so far: the guard's memory between writes. */
interface LineState {
  /** Nothing but whitespace since the last line break (or the start). */
  atLineStart: boolean;
  /** How many `#` end what was written (0, 1 or 2: enough to finish a `##[`). */
  trailingHashes: number;
}

/**
 * The text with a backslash before every `::` that starts a line (after whitespace) and before
 * the `[` of every `##[`, judged with what came before it (a line and a `##` run across writes).
 * A line that starts with a single `:` at the end of the write is escaped too: the next write
 * may add the second (no text is held back, so none is lost at exit).
 */
function neutralised(text: string, state: LineState): string {
  const escapes = new Set<number>();
  if (state.atLineStart) {
    const leading = /^[\s\u0085]*/.exec(text)![0].length;
    if (opensCommand(text, leading)) escapes.add(leading);
  }
  WHITESPACE_RUN.lastIndex = 0;
  for (let run = WHITESPACE_RUN.exec(text); run; run = WHITESPACE_RUN.exec(text)) {
    const end = run.index + run[0].length;
    if (holdsLineBreak(run[0]) && opensCommand(text, end)) escapes.add(end);
  }
  if (text[0] === '[' && state.trailingHashes >= 2) escapes.add(0);
  if (text.startsWith('#[') && state.trailingHashes >= 1) escapes.add(1);
  for (let at = text.indexOf('##['); at >= 0; at = text.indexOf('##[', at + 3)) escapes.add(at + 2);
  if (escapes.size === 0) return text;
  let out = '';
  let from = 0;
  for (const index of [...escapes].sort((a, b) => a - b)) {
    out += `${text.slice(from, index)}\\`;
    from = index;
  }
  return out + text.slice(from);
}

function opensCommand(text: string, index: number): boolean {
  return text.startsWith('::', index) || (index === text.length - 1 && text[index] === ':');
}

function holdsLineBreak(whitespace: string): boolean {
  for (const character of whitespace) if (LINE_BREAKS.has(character)) return true;
  return false;
}

/** Whether, after the text, the line holds nothing but whitespace so far. */
function endsAtLineStart(text: string, atLineStart: boolean): boolean {
  for (let index = text.length - 1; index >= 0; index--) {
    const character = text[index]!;
    if (LINE_BREAKS.has(character)) return true;
    if (!/[\s\u0085]/.test(character)) return false;
  }
  return atLineStart;
}
