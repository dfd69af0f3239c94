/**
 * The analytics store's own verdict on schema files: test/store/harness/SchemaVerdict.java run
 * against each store release the store tier's setup prepared (scripts/platform/schema-harness.mjs),
 * one JVM per release for all files.
 */
import { spawnSync } from 'node:child_process';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** JSON: [{ version, java, classpath }], one per store release. */
    schemaHarnesses: string;
  }
}

export interface StoreVerdict {
  accepted: boolean;
  /** The store's message when it refuses. */
  message?: string;
}

export interface SchemaHarness {
  version: string;
  java: string;
  classpath: string;
}

export const schemaHarnesses = (): SchemaHarness[] => JSON.parse(inject('schemaHarnesses')) as SchemaHarness[];

/** Each file's verdict from one store release. */
export function storeVerdicts(harness: SchemaHarness, files: readonly string[]): Map<string, StoreVerdict> {
  const run = spawnSync(harness.java, ['-cp', harness.classpath, 'SchemaVerdict', ...files], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`the schema harness for Pinot ${harness.version} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const verdicts = new Map<string, StoreVerdict>();
  for (const line of run.stdout.split('\n').filter((text) => text.startsWith('{'))) {
    const { file, accepted, message } = JSON.parse(line) as StoreVerdict & { file: string };
    verdicts.set(file, { accepted, message });
  }
  if (verdicts.size !== files.length) throw new Error(`the schema harness for Pinot ${harness.version} judged ${verdicts.size} of ${files.length} files`);
  return verdicts;
}
