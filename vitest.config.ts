import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { __DPGW_VERSION__: JSON.stringify(pkg.version) },
  test: {
    // The folders each file's dpgw runs used go when the file ends: left behind, they filled the disk.
    setupFiles: ['test/helpers/remove-made-folders.ts'],
    include: ['test/**/*.test.ts'],
    // The end-to-end tier and the store tier have their own configs (vitest.e2e.config.ts, vitest.store.config.ts).
    exclude: ['test/e2e/**', 'test/store/**', 'node_modules/**'],
    // Spawned-binary tests spend much of their time waiting on the processes and servers they
    // start: on two cores, 3 workers finish first; 4 contend harder (docs/benchmarks.md, "The test suite").
    maxWorkers: 3,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
