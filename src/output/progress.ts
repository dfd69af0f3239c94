/** Progress on stderr: an ora spinner on a terminal, one plain line otherwise, nothing with --quiet or --json. */
import type { Io } from './io.js';
import type { Reporter } from './reporter.js';

export interface Progress {
  /** false with --quiet or --json: nothing is shown, so a caller need not make the text. */
  readonly shown: boolean;
  update(text: string): void;
  /** A line that stays: above the spinner on a terminal, a line of its own in a log (a data set finished). */
  note(line: string): void;
  stop(): void;
}

/**
 * Starts at once and returns at once: ora loads in the background and the spinner starts
 * only if stop() has not been called by then. (A caller that awaited the load could stop
 * before the spinner existed, and the spinner then kept the process alive.)
 */
export function startProgress(reporter: Reporter, io: Io, text: string): Progress {
  if (reporter.options.quiet || reporter.options.json) return { shown: false, update: () => undefined, note: () => undefined, stop: () => undefined };
  // A terminal that reports no width (a fresh pseudo-terminal) makes ora clear ever more lines: a plain line then.
  if (!io.stderr.isTTY || !((io.stderr as Partial<NodeJS.WriteStream>).columns! > 0)) {
    reporter.info(`${text}…`);
    // A CI log shows each finished piece of work as it happens, not only the summary at the end.
    return { shown: true, update: () => undefined, note: (line) => reporter.info(line), stop: () => undefined };
  }
  let latest = text;
  let stopped = false;
  let spinner: { text: string; stop(): unknown; clear(): unknown; render(): unknown } | undefined;
  import('ora').then(
    ({ default: ora }) => {
      if (stopped) return;
      // discardStdin off: ora's stdin discarder puts the terminal in raw mode without reading
      // it, so Ctrl-C never became SIGINT; the terminal's own Ctrl-C is kept.
      spinner = ora({ text: latest, stream: io.stderr as NodeJS.WritableStream, color: reporter.options.colorStderr ? 'cyan' : false, isEnabled: true, discardStdin: false }).start();
    },
    // A spinner that cannot load is not worth failing a command for: the work goes on without it.
    () => undefined,
  );
  return {
    shown: true,
    update: (next) => {
      latest = next;
      if (spinner) spinner.text = next;
    },
    note: (line) => {
      spinner?.clear();
      reporter.info(line);
      spinner?.render();
    },
    stop: () => {
      stopped = true;
      spinner?.stop();
    },
  };
}
