/**
 * `--watch` of `health` and `table status`: the latest read again every few seconds until
 * Ctrl-C or SIGTERM — in place on a terminal, a new block per read otherwise (a log keeps
 * them all). The server's words are escaped as any output is.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CommandContext } from '../../command-kit/command-context.js';
import { onStopSignal } from '../../command-kit/interruption.js';
import { redactText } from '../../secrets/redaction.js';
import { terminalLine } from '../../text/terminal-text.js';

export interface Watch {
  seconds: number;
  /** The latest read, rendered as lines. */
  show: () => readonly string[];
  /** Reads again. */
  refresh: () => Promise<void>;
  /** The word of the footer: "read", "checked". */
  done: string;
}

export async function watchUntilStopped(context: Pick<CommandContext, 'io' | 'reporter'>, watch: Watch): Promise<void> {
  const tty = context.io.stdout.isTTY === true;
  let stopped = false;
  const stopWatching = onStopSignal(() => (stopped = true));
  try {
    for (;;) {
      // Each line as the reporter writes one: secrets masked, every control in it escaped.
      const lines = [...watch.show(), context.reporter.out.dim(`${watch.done} ${new Date().toISOString()}; every ${watch.seconds} s, Ctrl-C stops`)];
      const text = lines.map((line) => `${terminalLine(redactText(line))}\n`).join('');
      context.io.stdout.write(tty ? `\u001b[H\u001b[2J${text}` : `${text}\n`);
      for (let waited = 0; waited < watch.seconds * 1000 && !stopped; waited += 100) await sleep(100);
      if (stopped) return;
      await watch.refresh();
    }
  } finally {
    stopWatching();
  }
}
