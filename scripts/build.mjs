// Builds the dpgw binary in two parts, because start-up time is a feature:
//  - dist/cli/dpgw.cjs: commander and the command tree: all that a usage error needs
//    (--help and --version are answered from text rendered below, without it);
//  - dist/cli/commands.cjs: loaded when a command runs: the dispatcher, every handler and
//    everything they use. Each handler, and what only it uses, runs its module code when the
//    command is dispatched to it (they are dynamic imports in the sources), so a command runs
//    only what it uses.
// Both are CommonJS, which bin/dpgw runs from V8's code cache: Node 20 has no such cache for
// ES modules, and its ES module loader spent more start-up on a command's thirty chunks than
// their code did (docs/benchmarks.md, "Start-up").
// Every dependency is bundled, so an install of dpgw installs nothing else (docs/benchmarks.md,
// "The package"). The library entries (`dpgw`, `dpgw/sandbox`) are bundled into dist/pkg as ES
// modules; dist/lib keeps tsc's output for the type declarations and the repository's scripts.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
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
 * got imports http2-wrapper at load time, and loading it builds a TLS context with every
 * root certificate (its js-stream-socket makes a TLSSocket): about 45 ms of CPU at each
 * start of a command that talks HTTP (docs/benchmarks.md, "Time"). got uses it only with
 * its `http2` option, which dpgw never sets (HTTP/1.1 with keep-alive, net/trust-and-proxy.ts);
 * in its place, a module that says so if that ever changes.
 */
const noHttp2Wrapper = {
  name: 'no-http2-wrapper',
  setup(builder) {
    builder.onResolve({ filter: /^http2-wrapper$/ }, () => ({ path: 'http2-wrapper', namespace: 'dpgw-no-http2' }));
    builder.onLoad({ filter: /.*/, namespace: 'dpgw-no-http2' }, () => ({
      contents: "const unused = () => { throw new Error('dpgw is built without HTTP/2 (scripts/build.mjs): got was asked for http2'); };\nexport default { get auto() { return unused(); }, get globalAgent() { return unused(); } };\n",
      loader: 'js',
    }));
  },
};
/**
 * got's type checks (@sindresorhus/is) build two Intl.ListFormat at load, for the wording of
 * an assertion that fails: the first Intl object of a process loads ICU's locale data, about
 * 10 ms at each start of a command that talks HTTP (docs/benchmarks.md, "Start-up"). Here
 * they are built when a message first needs one, with the same words. A new release that
 * words those lines otherwise fails the build, so this cannot silently stop applying.
 */
const listFormatsOnDemand = {
  name: 'list-formats-on-demand',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]@sindresorhus[\\/]is[\\/]distribution[\\/]index\.js$/ }, async (args) => {
      let source = await readFile(args.path, 'utf8');
      for (const type of ['conjunction', 'disjunction']) {
        const eager = new RegExp(`const (\\w+) = new Intl\\.ListFormat\\('en', \\{ style: 'long', type: '${type}' \\}\\);`);
        if (!eager.test(source)) throw new Error(`scripts/build.mjs (list-formats-on-demand): ${args.path} no longer builds its '${type}' Intl.ListFormat as expected; update the plugin`);
        source = source.replace(eager, (_, name) => `let ${name}Built; const ${name} = { format: (list) => (${name}Built ??= new Intl.ListFormat('en', { style: 'long', type: '${type}' })).format(list) };`);
      }
      return { contents: source, loader: 'js' };
    });
  },
};
/**
 * string-width (text tables measure display width, src/text/display-width.ts) builds an
 * Intl.Segmenter when it loads: the first Intl object of a process loads ICU's data, about
 * 10 ms at each start of a command that prints a table, though a table of plain ASCII never
 * asks it. Here it is built when a text first needs segmenting. A release that builds it
 * otherwise fails the build, so this cannot silently stop applying.
 */
const segmenterOnDemand = {
  name: 'segmenter-on-demand',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      // Older majors (inquirer's, through wrap-ansi) segment nothing.
      if (!source.includes('Intl.Segmenter')) return undefined;
      const eager = /^const (\w+) = new Intl\.Segmenter\(\);$/m;
      if (!eager.test(source)) throw new Error(`scripts/build.mjs (segmenter-on-demand): ${args.path} no longer builds its Intl.Segmenter as expected; update the plugin`);
      return { contents: source.replace(eager, (_, name) => `let ${name}Built; const ${name} = { segment: (text) => (${name}Built ??= new Intl.Segmenter()).segment(text) };`), loader: 'js' };
    });
  },
};
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  define: { __DPGW_VERSION__: JSON.stringify(pkg.version) },
  // DPGW_BUILD_MINIFY=0 keeps names readable in a CPU profile (docs/benchmarks.md, "Time").
  minify: process.env.DPGW_BUILD_MINIFY !== '0',
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [inlineWasm, noHttp2Wrapper, listFormatsOnDemand, segmenterOnDemand],
};
/** CommonJS dependencies bundled into ES modules still call require() for Node's own modules. */
const esmRequire = { js: "import { createRequire as __dpgwCreateRequire } from 'node:module'; const require = __dpgwCreateRequire(import.meta.url);" };

await rm(new URL('../dist/cli', import.meta.url), { recursive: true, force: true });

/** CommonJS has no import.meta: package-root.ts finds the installed package (its templates/, its examples/) from the bundle's own URL. */
const moduleUrl = {
  define: { ...common.define, 'import.meta.url': '__dpgwModuleUrl' },
  banner: { js: 'var __dpgwModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
};

/**
 * Three large dependencies stay out of commands.cjs, each in a file of its own that the first
 * command to import it requires (bin/dpgw runs each from a code cache of its own): the prompts
 * (inquirer, with the character sets of its editor prompt), asked only at a terminal, the
 * stream client (with its schema codecs), used by the stream checks, and zod, for manifests
 * and answers that need more than the quick checks. Out, they are 1.5 MB fewer to parse at
 * once when a command runs without its code cache (a CI runner's first start), which is also
 * what peak memory follows then.
 */
const SEPARATE_DEPENDENCIES = { '@inquirer/prompts': 'vendor/inquirer-prompts.cjs', '@platformatic/kafka': 'vendor/platformatic-kafka.cjs', zod: 'vendor/zod.cjs' };
const separateDependencies = {
  name: 'separate-dependencies',
  setup(builder) {
    builder.onResolve({ filter: /^(@inquirer\/prompts|@platformatic\/kafka|zod)$/ }, (args) => ({ path: `./${SEPARATE_DEPENDENCIES[args.path]}`, external: true }));
  },
};

await build({
  ...common,
  ...moduleUrl,
  entryPoints: ['src/cli/dispatch.ts'],
  outfile: 'dist/cli/commands.cjs',
  format: 'cjs',
  // Code run from a code cache has no loader for import() (Node 20): every import() of what
  // is not in the bundle (a separate dependency, one of Node's modules) becomes a require().
  supported: { 'dynamic-import': false },
  // The dependencies go in too: resolving and reading hundreds of small files from
  // node_modules cost more start-up than the code itself (docs/benchmarks.md).
  plugins: [...common.plugins, separateDependencies],
});
/**
 * The stream client compiles a JSON schema validator (ajv) for the options of each of its
 * calls when its modules load: about 150 ms of CPU at every start of a command that uses it
 * (`provision` with its stream checks, by default), for validators it calls only when a client
 * is made with `strict: true`, which dpgw never asks for (docs/benchmarks.md, "stream
 * pre-flight"). Here each is compiled on its first call instead, with the same schema and the
 * same `errors` after a call. A release that declares them otherwise fails the build.
 */
const VALIDATOR_AT_LOAD = /^export const (\w+) = ajv\.compile\(/gm;
const validatorsOnDemand = {
  name: 'validators-on-demand',
  setup(builder) {
    let made = 0;
    builder.onLoad({ filter: /[\\/]@platformatic[\\/]kafka[\\/]dist[\\/].*\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      let inFile = 0;
      const onDemand = source.replace(VALIDATOR_AT_LOAD, (_, name) => {
        inFile++;
        return `export const ${name} = __dpgwValidatorOnDemand(`;
      });
      if (inFile === 0) return undefined;
      made += inFile;
      const helper = `\nfunction __dpgwValidatorOnDemand(schema) {\n  let compiled;\n  const validate = (data) => {\n    compiled ??= ajv.compile(schema);\n    const valid = compiled(data);\n    validate.errors = compiled.errors;\n    return valid;\n  };\n  validate.errors = null;\n  return validate;\n}\n`;
      return { contents: onDemand + helper, loader: 'js' };
    });
    builder.onEnd(() => {
      if (made < 30) throw new Error(`scripts/build.mjs (validators-on-demand): found ${made} option validators in @platformatic/kafka, expected 30 or more; update the plugin`);
    });
  },
};
/** What dpgw imports of each, re-exported from its file: zod's `z` alone, so the rest of zod (its locales) is left out. */
const SEPARATE_EXPORTS = { '@inquirer/prompts': '*', '@platformatic/kafka': '*', zod: '{ z }' };
for (const [name, file] of Object.entries(SEPARATE_DEPENDENCIES)) {
  const plugins = name === '@platformatic/kafka' ? [...common.plugins, validatorsOnDemand] : common.plugins;
  await build({ ...common, ...moduleUrl, stdin: { contents: `export ${SEPARATE_EXPORTS[name]} from '${name}';`, resolveDir: fileURLToPath(new URL('..', import.meta.url)), loader: 'js' }, outfile: `dist/cli/${file}`, format: 'cjs', plugins });
}

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

/**
 * The start-up bundle's import of the dispatcher requires commands.cjs when a command runs
 * (src/cli/load-dispatch.ts): bin/dpgw hands in its own loader, from the code cache; this is
 * the way without it (NODE_DISABLE_COMPILE_CACHE=1, `node dist/cli/dpgw.cjs`).
 */
const dispatchStaysOutside = {
  name: 'dispatch-stays-outside',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/dispatch\.js$/ }, () => ({ path: 'dispatch', namespace: 'dpgw-commands' }));
    builder.onResolve({ filter: /^\.\/commands\.cjs$/ }, () => ({ path: './commands.cjs', external: true }));
    builder.onLoad({ filter: /.*/, namespace: 'dpgw-commands' }, () => ({ contents: "module.exports = require('./commands.cjs');", loader: 'js' }));
  },
};
/**
 * A command's definition names its handler by an import (src/commands/<command>/*.command.ts);
 * the dispatcher makes that import, in commands.cjs. The start-up bundle holds the same
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
  ...moduleUrl,
  plugins: [...common.plugins, dispatchStaysOutside, handlersStayOutside, childProcessOnDemand],
});

// The build's identity, of every bundle, last in the start-up bundle: bin/dpgw keys the code
// caches of all by it, so a new build never runs an old build's compiled code. (V8 checks a
// cache against the source's length, not its text: the key must change with the text.)
const startBundle = new URL('../dist/cli/dpgw.cjs', import.meta.url);
const startSource = await readFile(startBundle, 'utf8');
const buildHash = createHash('sha256').update(startSource);
for (const file of ['commands.cjs', ...Object.values(SEPARATE_DEPENDENCIES)]) buildHash.update(await readFile(new URL(`../dist/cli/${file}`, import.meta.url)));
const buildId = buildHash.digest('hex').slice(0, 16);
await writeFile(startBundle, `${startSource.trimEnd()}\n// dpgw build ${buildId}\n`);

// The version and every command's help, rendered from the command tree (src/cli/help-templates.ts)
// for bin/answer.js, which writes them without loading commander (docs/benchmarks.md, start-up):
// dist/cli/answers/version, usage.json (`dpgw` alone) and help/dpgw[.<command>[.<subcommand>]].json,
// one small file per answer, so that an answer reads and parses only its own.
// Rendered by tsc's output of the same sources, which reads its version as the bundle does.
globalThis.__DPGW_VERSION__ = pkg.version;
const { helpAnswers, answerFile } = await import('../dist/lib/cli/help-templates.js');
const answers = await helpAnswers();
const answersFolder = new URL('../dist/cli/answers/', import.meta.url);
await mkdir(new URL('help/', answersFolder), { recursive: true });
await writeFile(new URL('version', answersFolder), `${answers.version}\n`);
await writeFile(new URL('usage.json', answersFolder), JSON.stringify(answers.usage));
for (const [words, answer] of Object.entries(answers.help)) await writeFile(new URL(answerFile(words), answersFolder), JSON.stringify(answer));
