/**
 * The GitHub Actions guard: no line written through it starts (after whitespace) with `::`,
 * nor holds `##[`, however the text is cut into writes; dpgw's own workflow commands pass by
 * writeWorkflowCommand only. And the reporter: a message is one line, whatever it holds.
 */
import { describe, expect, it } from 'vitest';
import { guardedIo, guardWorkflowCommands, isGuarded } from '../../src/output/workflow-command-guard.js';
import { Reporter } from '../../src/output/reporter.js';
import { DpgwError } from '../../src/errors/dpgw-error.js';
import type { Io } from '../../src/output/io.js';

function capture() {
  const written: string[] = [];
  return { written, stream: { write: (chunk: string) => written.push(chunk), isTTY: false } };
}

/** What the runner would read: lines split at \n and \r, trimmed at the start as .NET TrimStart does. */
function commandsTheRunnerSees(text: string): string[] {
  return text.split(/\r\n|\r|\n/).filter((line) => /^[\s\u0085]*::/.test(line) || line.includes('##['));
}

/** Writes the text through a fresh guard in pieces cut at the given lengths. */
function throughGuard(pieces: string[]): string {
  const { written, stream } = capture();
  const guarded = guardWorkflowCommands(stream);
  for (const piece of pieces) guarded.write(piece);
  return written.join('');
}

/** Every way to cut the text into two writes, and into single characters. */
function cuts(text: string): string[][] {
  const ways: string[][] = [[text], [...text]];
  for (let at = 1; at < text.length; at++) ways.push([text.slice(0, at), text.slice(at)]);
  return ways;
}

describe('the workflow-command guard', () => {
  it('escapes a line that starts with :: after any whitespace, at the start and after every kind of line break', () => {
    const text = '::add-mask::x\nok\n  ::error title=ATTACK::x\r::stop-commands::t\r\n\t::group::g\n\u00a0\u3000::warning::w\u2028::notice::n\n';
    expect(throughGuard([text])).toBe('\\::add-mask::x\nok\n  \\::error title=ATTACK::x\r\\::stop-commands::t\r\n\t\\::group::g\n\u00a0\u3000\\::warning::w\u2028\\::notice::n\n');
  });

  it('leaves :: inside a line, a single colon and an empty line as they are', () => {
    const text = 'dpgw: x::y\nkey: value\n:a\n\n  text ::error\n';
    expect(throughGuard([text])).toBe(text);
  });

  it('breaks the older ##[command] form anywhere in a line', () => {
    expect(throughGuard(['status ##[add-mask]x and ##[error]y\n'])).toBe('status ##\\[add-mask]x and ##\\[error]y\n');
  });

  it('lets no command through however the text is cut into writes', () => {
    const attack = 'a\n  ::error title=ATTACK::x\nb ##[add-mask]x\n::add-mask::y\n';
    for (const pieces of cuts(attack)) {
      const out = throughGuard(pieces);
      expect(commandsTheRunnerSees(out), JSON.stringify(pieces)).toEqual([]);
      // Only backslashes are added: the text is otherwise the same.
      expect(out.replace(/\\(?=::|\[|:$)/gm, '')).toBe(attack);
    }
  });

  it("writes dpgw's own command as it is, on a line of its own, and guards what follows", () => {
    const { written, stream } = capture();
    const guarded = guardWorkflowCommands(stream);
    guarded.write('half a line');
    guarded.writeWorkflowCommand('::error title=dpgw::the gateway refused');
    guarded.write('::add-mask::x\n');
    expect(written.join('')).toBe('half a line\n::error title=dpgw::the gateway refused\n\\::add-mask::x\n');
  });

  it('guards only inside GitHub Actions, and once', () => {
    const { stream } = capture();
    const io = (env: NodeJS.ProcessEnv): Io => ({ stdout: stream, stderr: stream, stdin: process.stdin, env, cwd: '/' });
    expect(isGuarded(guardedIo(io({})).stdout)).toBe(false);
    const inActions = guardedIo(io({ GITHUB_ACTIONS: 'true' }));
    expect(isGuarded(inActions.stdout) && isGuarded(inActions.stderr)).toBe(true);
    expect(guardWorkflowCommands(inActions.stdout)).toBe(inActions.stdout);
  });
});

describe('the reporter writes a message as one line', () => {
  const attack = 'DOWN\n::error title=ATTACK::x\r::add-mask::x\u2028end';
  const escaped = String.raw`DOWN\n::error title=ATTACK::x\r::add-mask::x\u2028end`;

  function reporterWith(githubActions: boolean) {
    const out = capture();
    const err = capture();
    const stdout = githubActions ? guardWorkflowCommands(out.stream) : out.stream;
    const stderr = githubActions ? guardWorkflowCommands(err.stream) : err.stream;
    const reporter = new Reporter(stdout, stderr, { json: false, quiet: false, verbose: true, colorStdout: false, colorStderr: false, ...(githubActions ? { githubActions: {} } : {}) });
    return { reporter, stdout: () => out.written.join(''), stderr: () => err.written.join('') };
  }

  it('escapes the line breaks in every kind of message, and in each line of a result', () => {
    const { reporter, stdout, stderr } = reporterWith(false);
    reporter.info(`status ${attack}`);
    reporter.success(attack);
    reporter.warn(attack);
    reporter.problem(attack);
    reporter.notice(attack);
    reporter.trace(attack);
    reporter.next(attack);
    reporter.error(new DpgwError('REQUEST_REJECTED', `refused: ${attack}`, { hint: attack }));
    reporter.result({ data: null, human: () => ['TITLE', `row ${attack}`, '\tindented'] });
    const lines = stderr().trimEnd().split('\n');
    expect(lines).toHaveLength(8);
    for (const line of lines) expect(line).toContain(escaped);
    expect(stdout()).toBe(`TITLE\nrow ${escaped}\n\tindented\n`);
  });

  it('writes a stack as its message on one line and a line per frame', () => {
    const { reporter, stderr } = reporterWith(false);
    const error = new Error(attack);
    reporter.traceStack(error);
    const lines = stderr().trimEnd().split('\n');
    expect(lines[0]).toBe(`Error: ${escaped}`);
    expect(lines.slice(1).every((line) => /^\s+at /.test(line))).toBe(true);
  });

  it("in GitHub Actions: its annotations and groups are the only lines that start with '::'", () => {
    const { reporter, stderr } = reporterWith(true);
    reporter.group(`data set ${attack}`, [`  step ${attack}`, '::add-mask::raw line a caller passed']);
    reporter.error(new DpgwError('REQUEST_REJECTED', `refused: ${attack}`));
    const lines = stderr().trimEnd().split('\n');
    expect(lines.filter((line) => line.startsWith('::'))).toEqual([
      String.raw`::group::data set DOWN\n::error title=ATTACK::x\r::add-mask::x\u2028end`,
      '::endgroup::',
      // The annotation's message as the runner reads it: its line breaks %-escaped, inside the one command.
      String.raw`::error title=dpgw::refused: DOWN%0A::error title=ATTACK::x%0D::add-mask::x\u2028end`,
    ]);
    expect(lines).toContain('\\::add-mask::raw line a caller passed');
  });
});
