// Builds the dpgw binary in two parts, because start-up time is a feature:
//  - dist/cli/dpgw.cjs: CommonJS (Node starts CommonJS faster than ESM) with
//    commander and the command tree: all that --help, --version and usage errors need;
//  - dist/cli/dispatch.js: ESM, imported when a command runs, with each command's
//    handler split into a chunk of its own so a command loads only what it uses.
// Runtime dependencies other than commander stay external (node_modules).
import { readFile, rm } from 'node:fs/promises';
import { build } from 'esbuild';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
// kafkajs: a dev dependency, loaded only by the sandbox's backed mode of the end-to-end tier.
const external = [...Object.keys(pkg.dependencies).filter((name) => name !== 'commander'), 'kafkajs'];
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  external,
  define: { __DPGW_VERSION__: JSON.stringify(pkg.version) },
  minify: true,
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
};

await rm(new URL('../dist/cli', import.meta.url), { recursive: true, force: true });

await build({
  ...common,
  entryPoints: { dispatch: 'src/cli/dispatch.ts' },
  outdir: 'dist/cli',
  format: 'esm',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});

/** Keeps `import('./dispatch.js')` a real dynamic import of the ESM part. */
const dispatchStaysOutside = {
  name: 'dispatch-stays-outside',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/dispatch\.js$/ }, () => ({ path: './dispatch.js', external: true }));
  },
};
await build({
  ...common,
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/cli/dpgw.cjs',
  format: 'cjs',
  plugins: [dispatchStaysOutside],
});
