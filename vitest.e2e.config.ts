import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

/** The end-to-end tier: the built dpgw against real components started by scripts/platform/. */
export default defineConfig({
  define: { __DPGW_VERSION__: JSON.stringify(pkg.version) },
  test: {
    // The folders each file's dpgw runs used go when the file ends: left behind, they filled the disk.
    setupFiles: ['test/helpers/remove-made-folders.ts'],
    include: ['test/e2e/**/*.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
