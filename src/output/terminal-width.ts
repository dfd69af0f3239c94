/** The width a text table is fitted to: the terminal's when stdout is one, else undefined (piped: nothing is cut). */
import type { OutputStream } from './io.js';

export function terminalWidth(stdout: OutputStream): number | undefined {
  return stdout.isTTY === true && (stdout.columns ?? 0) > 0 ? stdout.columns : undefined;
}
