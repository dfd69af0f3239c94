import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { __DPGW_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end tier has its own config and platform (vitest.e2e.config.ts).
    exclude: ['test/e2e/**', 'node_modules/**'],
    // Spawned-binary tests spend much of their time waiting on the processes and servers they
    // start: on this machine's two cores, 3 workers run the suite in 94 s against 120 s with 2
    // (4 gain nothing more and contend harder; measured 2026-11-24).
    maxWorkers: 3,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
