/** The dpgw binary's entry: run the CLI on the real process. */
import { processIo } from '../output/io.js';
import { VERSION } from '../command-kit/version.js';
import { loadDispatch } from './load-dispatch.js';

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
  // Whatever escapes every command (a bug, or an error event nobody listened for) still
  // ends as one scrubbed line and exit 1, never a raw stack with what it may hold.
  process.on('uncaughtException', lastResort);
  process.on('unhandledRejection', lastResort);
  import('./run-cli.js')
    .then(async ({ runCli }) => {
      process.exitCode = await runCli(argv, processIo());
    })
    .catch(lastResort);
}

let reported = false;
function lastResort(error: unknown): void {
  if (reported) return;
  reported = true;
  // Without the dispatcher no command ran, so no secret was read that the message could hold.
  const fallback = (): number => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`dpgw: unexpected error: ${message.split('\n')[0]} — reinstall dpgw, or run again with --verbose and report it\n`);
    return 1;
  };
  loadDispatch()
    .then(({ reportUnexpectedError }) => reportUnexpectedError(error, argv, processIo()), fallback)
    .then((code) => process.exit(code), () => process.exit(fallback()));
}
