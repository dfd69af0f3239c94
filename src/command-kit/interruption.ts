/**
 * Ctrl-C at a terminal (SIGINT) and a CI runner's cancel (SIGTERM) mean the same to
 * dpgw: stop starting work, say what was done, exit 130. One place registers both.
 */
export type StopSignal = 'SIGINT' | 'SIGTERM';

const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM'];

/** Calls `handler` on Ctrl-C or SIGTERM until the returned function is called. */
export function onStopSignal(handler: (signal: StopSignal) => void): () => void {
  for (const signal of STOP_SIGNALS) process.on(signal, handler);
  return () => {
    for (const signal of STOP_SIGNALS) process.off(signal, handler);
  };
}

/**
 * A long run's answer to a stop: the first signal asks it to finish the steps under way
 * and start no new ones (`stopping()` turns true, `signal` aborts, `onFirst` says so); a second quits at once
 * with `exitCode`, after `onQuit` has said what that leaves half done. `release()` when the run is over.
 */
export function stopOnSignal(onFirst: (signal: StopSignal) => void, exitCode: number, onQuit?: () => void): { stopping(): boolean; release(): void; signal: AbortSignal } {
  let stopping = false;
  // Waits (for a topic) end at the first signal; requests under way finish.
  const aborter = new AbortController();
  const release = onStopSignal((signal) => {
    if (stopping) {
      onQuit?.();
      process.exit(exitCode);
    }
    stopping = true;
    aborter.abort();
    onFirst(signal);
  });
  return { stopping: () => stopping, release, signal: aborter.signal };
}
