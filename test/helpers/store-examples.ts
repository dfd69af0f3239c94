/**
 * The analytics store's own example files, read from its pinot-tools jar at test time
 * (scripts/platform/store-examples.mjs unpacks them once, in the store tier's global setup).
 */
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    storeExamples: string;
  }
}

export interface StoreExampleFiles {
  /** The folder the files are in, for naming them relative to it (`examples/stream/…`). */
  root: string;
  schemas: string[];
  realtimeTableConfigs: string[];
  offlineTableConfigs: string[];
  /** Newline-delimited JSON messages (rawdata/*.json). */
  messages: string[];
}

/** Where the store tier's setup unpacked the examples; the cache folder when run outside it. */
export function storeExamplesRoot(): string {
  try {
    return inject('storeExamples');
  } catch {
    return join(homedir(), '.cache', 'dpgw', `pinot-${process.env.DPGW_PINOT_VERSION ?? '0.11.0'}`, 'examples');
  }
}

export function storeExampleFiles(root = storeExamplesRoot()): StoreExampleFiles {
  const all = (readdirSync(join(root, 'examples'), { recursive: true }) as string[]).map((file) => join(root, 'examples', file)).sort();
  const json = all.filter((file) => file.endsWith('.json'));
  return {
    root,
    schemas: json.filter((file) => /_schema\.json$/.test(file)),
    realtimeTableConfigs: json.filter((file) => /realtime_table_config\.json$/.test(file)),
    offlineTableConfigs: json.filter((file) => /offline_table_config\.json$/.test(file)),
    messages: json.filter((file) => /\/rawdata\/[^/]+\.json$/.test(file)),
  };
}

/** A file's name as the store's source tree names it (examples/stream/…/x_schema.json). */
export function exampleName(file: string, root = storeExamplesRoot()): string {
  return relative(root, file);
}
