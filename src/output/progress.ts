/** Progress on stderr: an ora spinner on a terminal, one plain line otherwise, nothing with --quiet or --json. */
import type { Io } from '../cli/io.js';
import type { Reporter } from './reporter.js';

export interface Progress {
  update(text: string): void;
  stop(): void;
}

export async function startProgress(reporter: Reporter, io: Io, text: string): Promise<Progress> {
  if (reporter.options.quiet || reporter.options.json) return { update: () => undefined, stop: () => undefined };
  // A terminal that reports no width (a fresh pseudo-terminal) makes ora clear ever more lines: a plain line then.
  if (!io.stderr.isTTY || !((io.stderr as Partial<NodeJS.WriteStream>).columns! > 0)) {
    reporter.info(`${text}…`);
    return { update: () => undefined, stop: () => undefined };
  }
  const { default: ora } = await import('ora');
  // discardStdin off: ora's stdin discarder puts the terminal in raw mode without reading
  // it, so Ctrl-C never became SIGINT (issue #14); the terminal's own Ctrl-C is kept.
  const spinner = ora({ text, stream: io.stderr as NodeJS.WritableStream, color: reporter.options.colorStderr ? 'cyan' : false, isEnabled: true, discardStdin: false }).start();
  return { update: (next) => (spinner.text = next), stop: () => spinner.stop() };
}
