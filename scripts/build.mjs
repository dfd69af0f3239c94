// Builds the dpgw binary in two parts, because start-up time is a feature:
//  - dist/cli/dpgw.cjs: CommonJS (Node starts CommonJS faster than ESM) with
//    commander and the command tree: all that --help, --version and usage errors need;
//  - dist/cli/dispatch.js: ESM, imported when a command runs, with each command's
//    handler (src/commands/<command>/<command>.handler.ts) split into a chunk of its own,
//    so a command loads only what it uses.
// Every dependency is bundled, so an install of dpgw installs nothing else (docs/benchmarks.md,
// "The package"). The library entries (`dpgw`, `dpgw/sandbox`) are bundled into dist/pkg the
// same way; dist/lib keeps tsc's output for the type declarations and the repository's scripts.
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
/**
 * The stream client's compression codecs load their WebAssembly from a file beside them;
 * their `bundled` entry carries it inline, so it travels inside dpgw's own chunk.
 */
const inlineWasm = {
  name: 'inline-wasm',
  setup(builder) {
    builder.onResolve({ filter: /^@platformatic\/wasm-utils$/ }, (args) => builder.resolve('@platformatic/wasm-utils/bundled', { kind: args.kind, resolveDir: args.resolveDir }));
  },
};
/**
 * got imports http2-wrapper at load for its `http2` option, which dpgw never sets; loading it
 * builds a TLS socket and a secure context (about 20 ms of every command that asks the
 * gateway, docs/benchmarks.md, "Catalog listing"). The bundles get a stand-in that loads
 * the real module on first use.
 */
const http2WrapperOnDemand = {
  name: 'http2-wrapper-on-demand',
  setup(builder) {
    builder.onResolve({ filter: /^http2-wrapper$/ }, (args) => (args.namespace === 'http2-on-demand' ? undefined : { path: 'http2-wrapper', namespace: 'http2-on-demand', pluginData: args.resolveDir }));
    builder.onLoad({ filter: /.*/, namespace: 'http2-on-demand' }, (args) => ({
      // __esModule is asked when the stand-in is imported; answering it does not load the module.
      contents: "let real; const load = () => (real ??= require('http2-wrapper')); module.exports = new Proxy({}, { get: (_, key) => (key === '__esModule' ? undefined : load()[key]), has: (_, key) => key in load() });",
      loader: 'js',
      resolveDir: args.pluginData,
    }));
  },
};
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  define: { __DPGW_VERSION__: JSON.stringify(pkg.version) },
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [inlineWasm, http2WrapperOnDemand],
};
/** CommonJS dependencies bundled into ES modules still call require() for Node's own modules. */
const esmRequire = { js: "import { createRequire as __dpgwCreateRequire } from 'node:module'; const require = __dpgwCreateRequire(import.meta.url);" };

await rm(new URL('../dist/cli', import.meta.url), { recursive: true, force: true });

await build({
  ...common,
  entryPoints: { dispatch: 'src/cli/dispatch.ts' },
  outdir: 'dist/cli',
  format: 'esm',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  // The dependencies go into the chunks too: resolving and reading hundreds of small
  // files from node_modules cost more start-up than the code itself (docs/benchmarks.md).
  // The stream client is imported dynamically, so only the commands that use it load its chunk.
  banner: esmRequire,
});

await rm(new URL('../dist/pkg', import.meta.url), { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { index: 'src/index.ts', sandbox: 'src/sandbox/sandbox.ts' },
  outdir: 'dist/pkg',
  format: 'esm',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  minify: false,
  banner: esmRequire,
});

/** Keeps `import('./dispatch.js')` a real dynamic import of the ESM part. */
const dispatchStaysOutside = {
  name: 'dispatch-stays-outside',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/dispatch\.js$/ }, () => ({ path: './dispatch.js', external: true }));
  },
};
/**
 * A command's definition names its handler by an import (src/commands/<command>/*.command.ts);
 * dispatch.js makes that import, from the ES module part. The start-up bundle holds the same
 * definitions for the command tree but never calls that import, so it stays a bare
 * reference there instead of pulling every handler in.
 */
const handlersStayOutside = {
  name: 'handlers-stay-outside',
  setup(builder) {
    builder.onResolve({ filter: /\.handler\.js$/ }, (args) => ({ path: args.path, external: true }));
  },
};
/**
 * commander requires node:child_process at load for executable subcommands, which
 * dpgw does not use; loading it costs a cold start (docs/benchmarks.md). The start-up bundle
 * gets a stand-in that loads the real module on first use.
 */
const childProcessOnDemand = {
  name: 'child-process-on-demand',
  setup(builder) {
    builder.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.namespace === 'on-demand' ? { path: 'node:child_process', external: true } : { path: 'child_process', namespace: 'on-demand' },
    );
    builder.onLoad({ filter: /.*/, namespace: 'on-demand' }, () => ({
      contents: "let real; const load = () => (real ??= require('node:child_process')); module.exports = new Proxy({}, { get: (_, key) => load()[key], has: (_, key) => key in load() });",
      loader: 'js',
    }));
  },
};
await build({
  ...common,
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/cli/dpgw.cjs',
  format: 'cjs',
  // CommonJS has no import.meta: package-root.ts finds the installed package (its examples/, for --help) from this file's own URL.
  define: { ...common.define, 'import.meta.url': '__dpgwModuleUrl' },
  banner: { js: 'var __dpgwModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [...common.plugins, dispatchStaysOutside, handlersStayOutside, childProcessOnDemand],
});

// The build's identity, last in the bundle: bin/dpgw keys its code cache by it, so a new
// build never runs an old build's compiled code (docs/benchmarks.md, start-up).
const startBundle = new URL('../dist/cli/dpgw.cjs', import.meta.url);
const startSource = await readFile(startBundle, 'utf8');
const buildId = createHash('sha256').update(startSource).digest('hex').slice(0, 16);
await writeFile(startBundle, `${startSource.trimEnd()}\n// dpgw build ${buildId}\n`);
