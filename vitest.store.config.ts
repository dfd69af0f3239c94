import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

/**
 * The store tier: dpgw's checks held against the analytics store's own example files and its own
 * schema reader (Maven Central artifacts, fetched once into ~/.cache/dpgw by test/store/global-setup.ts).
 */
export default defineConfig({
  define: { __DPGW_VERSION__: JSON.stringify(pkg.version) },
  test: {
    // The folders each file's dpgw runs used go when the file ends: left behind, they filled the disk.
    setupFiles: ['test/helpers/remove-made-folders.ts'],
    include: ['test/store/**/*.test.ts'],
    globalSetup: ['test/store/global-setup.ts'],
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 900_000,
  },
});
