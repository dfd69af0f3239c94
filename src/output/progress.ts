/** Progress on stderr: an ora spinner on a terminal, one plain line otherwise, nothing with --quiet or --json. */
import type { Io } from '../cli/io.js';
import type { Reporter } from './reporter.js';

export interface Progress {
  update(text: string): void;
  stop(): void;
}

export async function startProgress(reporter: Reporter, io: Io, text: string): Promise<Progress> {
  if (reporter.options.quiet || reporter.options.json) return { update: () => undefined, stop: () => undefined };
  if (!io.stderr.isTTY) {
    reporter.info(`${text}…`);
    return { update: () => undefined, stop: () => undefined };
  }
  const { default: ora } = await import('ora');
  const spinner = ora({ text, stream: io.stderr as NodeJS.WritableStream, color: reporter.options.colorStderr ? 'cyan' : false, isEnabled: true }).start();
  return { update: (next) => (spinner.text = next), stop: () => spinner.stop() };
}
