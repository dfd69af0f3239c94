/**
 * What a command asks for when a value is missing (issue #36). At a terminal (stdin and
 * stderr TTYs, no --no-input) a missing value is asked for; otherwise the command stops at
 * once, naming every missing flag, before anything is sent. Each question stands for a flag
 * or an argument: once the questions are answered, dpgw prints the command line that runs
 * the same without them, so a person learns the flags and can script the command.
 */
import type { CommandContext } from '../../command-kit/command-context.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { shellWord } from '../../text/shell-word.js';

/** A value the command needs: its flag as help shows it (`--datasource <name|id>`, or `<file>` for an argument) and what was given. */
export interface Needed {
  flag: string;
  given: unknown;
}

function isMissing(given: unknown): boolean {
  return given === undefined || (Array.isArray(given) && given.length === 0);
}

export class Questions {
  private readonly answeredFlags: string[] = [];
  private readonly answeredOperands: string[] = [];

  constructor(private readonly context: Pick<CommandContext, 'name' | 'argv' | 'canPrompt' | 'reporter'>) {}

  /** Whether a person can answer: questions are asked, not refused. */
  get canAsk(): boolean {
    return this.context.canPrompt;
  }

  /** Whether any question was asked (and answered). */
  get asked(): boolean {
    return this.answeredFlags.length + this.answeredOperands.length > 0;
  }

  /** With no one to ask: one usage error naming every missing value, before any request. At a terminal: nothing (they are asked). */
  require(needed: readonly Needed[]): void {
    const missing = needed.filter((n) => isMissing(n.given)).map((n) => n.flag);
    if (missing.length > 0 && !this.canAsk) throw this.missing(missing);
  }

  /** A usage error for missing values, saying how to give them. */
  missing(flags: readonly string[], hint?: string): DpgwError {
    const noInput = this.context.argv.includes('--no-input');
    return new DpgwError('MISSING_ARGUMENT', `missing ${flags.join(', ')}`, {
      where: flags[0]!.split(' ')[0],
      hint: hint ?? `pass ${flags.length === 1 ? 'it' : 'them'} (${noInput ? 'without --no-input, ' : ''}at a terminal dpgw asks); see \`dpgw ${this.context.name} --help\``,
    });
  }

  /** A flag's value: as given, else asked for (or the usage error without a terminal). */
  async flag(flag: string, given: string | undefined, ask: () => Promise<string>): Promise<string> {
    if (given !== undefined) return given;
    if (!this.canAsk) throw this.missing([flag]);
    const answer = await ask();
    this.answeredFlags.push(longName(flag), answer);
    return answer;
  }

  /** A repeatable flag (`--group a --group b`): as given, else asked for. */
  async flags(flag: string, given: readonly string[] | undefined, ask: () => Promise<string[]>): Promise<string[]> {
    if (given !== undefined && given.length > 0) return [...given];
    if (!this.canAsk) throw this.missing([flag]);
    const answers = await ask();
    for (const answer of answers) this.answeredFlags.push(longName(flag), answer);
    return answers;
  }

  /** A value a flag may give, asked for when a person is there (a default otherwise): a guided run asks more than a scripted one needs. */
  async optional<T extends string | undefined>(flag: string, given: string | undefined, ask: () => Promise<T>): Promise<string | T> {
    if (given !== undefined || !this.canAsk) return given as T;
    const answer = await ask();
    if (answer !== undefined) this.answeredFlags.push(longName(flag), answer);
    return answer;
  }

  /** Records a flag the answers decided without a question of its own (an enablement chosen with its data set). */
  answered(flag: string, value: string): void {
    this.answeredFlags.push(longName(flag), value);
  }

  /** A flag without a value (`--infer-at-first-run`) the answer to a question stands for. */
  answeredSwitch(flag: string): void {
    this.answeredFlags.push(longName(flag));
  }

  /** A positional argument (`<file>`): as given, else asked for. */
  async operand(name: string, given: string | undefined, ask: () => Promise<string>): Promise<string> {
    if (given !== undefined) return given;
    if (!this.canAsk) throw this.missing([name]);
    const answer = await ask();
    this.answeredOperands.push(answer);
    return answer;
  }

  /** The command line that runs the same without questions: the words given, the answered arguments after the command's name, the answered flags last. */
  commandLine(): string {
    const { argv } = this.context;
    const split = argv.indexOf('--');
    const before = split < 0 ? [...argv] : argv.slice(0, split);
    const after = split < 0 ? [] : argv.slice(split);
    const end = endOfCommandName(before, this.context.name.split(' '));
    const words = [...before.slice(0, end), ...this.answeredOperands, ...before.slice(end), ...this.answeredFlags, ...after];
    return ['dpgw', ...words.map(shellWord)].join(' ');
  }

  /** After the last question: the same command without questions, on stderr. Nothing when nothing was asked. */
  done(): void {
    if (this.asked) this.context.reporter.info(`${this.context.reporter.err.dim('same without questions:')} ${this.commandLine()}`);
  }
}

/** `--datasource <name|id>` → `--datasource`. */
function longName(flag: string): string {
  return flag.split(' ')[0]!;
}

/** Where the command's name ends in argv (after global flags such as `--profile x` that may come first). */
function endOfCommandName(argv: readonly string[], path: readonly string[]): number {
  let at = 0;
  let end = 0;
  for (const word of path) {
    const found = argv.indexOf(word, at);
    if (found < 0) return argv.length;
    at = end = found + 1;
  }
  return end;
}
