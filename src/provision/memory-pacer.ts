/**
 * Keeps a long provisioning run's memory flat. Every request leaves garbage
 * (got's per-request objects) that V8 promotes while requests wait on the
 * network, and with a large heap limit it lets that pile up for a long time
 * before collecting. Asking for a concurrent major collection every few data
 * sets keeps the peak near the live set; measured in docs/benchmarks.md.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'major'; execution: 'async' }) => Promise<void> | void;

let collect: Collect | undefined | null;

function collector(): Collect | undefined {
  if (collect === undefined) {
    try {
      // Exposes V8's gc() for this isolate from here on (as --expose-gc would at start-up).
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as Collect;
    } catch {
      collect = null;
    }
  }
  return collect ?? undefined;
}

/** Call once per finished data set; every `every` calls, a concurrent major collection starts. */
export function memoryPacer(every: number): () => void {
  let count = 0;
  return () => {
    if (++count % every !== 0) return;
    void collector()?.({ type: 'major', execution: 'async' });
  };
}
