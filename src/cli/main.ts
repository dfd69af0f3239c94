/** The dpgw binary's entry: run the CLI on the real process. */
import { processIo } from './io.js';
import { VERSION } from './version.js';

// `dpgw … | head` closes the pipe early; that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // The one answer that needs no command tree: skip loading commander.
  process.stdout.write(`${VERSION}\n`);
} else {
  void import('./run-cli.js').then(async ({ runCli }) => {
    process.exitCode = await runCli(argv, processIo());
  });
}
