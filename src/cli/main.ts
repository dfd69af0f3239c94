/** The dpgw binary's entry: run the CLI on the real process. */
import { processIo } from './io.js';
import { runCli } from './run-cli.js';

// `dpgw … | head` closes the pipe early; that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
