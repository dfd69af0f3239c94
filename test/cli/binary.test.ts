/** The built binary as a user meets it: no TTY, stdout and stderr apart, exit codes. */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { TOP_LEVEL_COMMANDS } from '../helpers/command-tree.js';

// eslint-disable-next-line no-control-regex -- ANSI escapes are what this looks for
const ANSI = /\u001b\[/;

describe('dpgw --help and --version', () => {
  it('lists every command with a description and an example', async () => {
    const { code, stdout, stderr } = await spawnDpgw(['--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const commandsSection = stdout.slice(stdout.indexOf('Commands:'), stdout.indexOf('Examples:'));
    const examplesSection = stdout.slice(stdout.indexOf('Examples:'));
    for (const command of TOP_LEVEL_COMMANDS) {
      expect(commandsSection).toMatch(new RegExp(`^  ${command}\\b.*\\S+\\s{2,}\\S`, 'm'));
      expect(examplesSection).toMatch(new RegExp(`^  ${command}\\b.*\\$ (curl .*|eval "\\$\\()?dpgw ${command}\\b`, 'm'));
    }
    expect(stdout).toMatch(/Exit codes: 0 ok, 1 failed \(a table that would not consume included\), 2 usage/);
    expect(stdout).not.toMatch(ANSI);
  });

  it('names the installed examples and docs by absolute path, wherever the package is installed', async () => {
    // A copy of the package elsewhere, as `npm i -g` leaves it: the paths are that copy's, and they exist.
    const install = mkdtempSync(join(tmpdir(), 'dpgw-install-'));
    for (const part of ['bin', 'dist', 'package.json', 'examples', 'docs', 'README.md']) cpSync(join(ROOT, part), join(install, part), { recursive: true });
    const help = (argv: string[]) =>
      new Promise<string>((resolve, reject) => execFile(process.execPath, [join(install, 'bin/dpgw'), ...argv], { env: cleanEnv(), cwd: tmpdir() }, (error, stdout) => (error ? reject(error) : resolve(stdout))));
    const top = await help(['--help']);
    const examples = /^Example files \(examples\/… above\): (.+)$/m.exec(top)?.[1];
    expect(examples).toBe(join(install, 'examples'));
    expect(existsSync(join(examples!, 'track', 'schema.yaml'))).toBe(true);
    expect(existsSync(join(examples!, 'track', 'provision.yaml'))).toBe(true);
    expect(top).toContain(`Docs: ${join(install, 'README.md')} and ${join(install, 'docs')}`);
    // A command whose example names examples/… says where that folder is.
    expect(await help(['table', 'create', '--help'])).toContain(`  (examples/ is ${join(install, 'examples')})`);
  });

  it('prints the package version', async () => {
    const { code, stdout } = await spawnDpgw(['--version']);
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('shows a subcommand example in its own help', async () => {
    const { code, stdout } = await spawnDpgw(['health', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: dpgw health [options] [component]');
    expect(stdout).toContain('$ dpgw health mq');
  });

  it('dpgw help <command> is the command\'s --help, as git help and gh help are; an unknown one is said', async () => {
    const help = await spawnDpgw(['help', 'table', 'create']);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await spawnDpgw(['table', 'create', '--help'])).stdout);
    expect((await spawnDpgw(['help'])).stdout).toBe((await spawnDpgw([])).stdout);
    const unknown = await spawnDpgw(['help', 'helth']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("dpgw: unknown command 'helth' (Did you mean health?) — see `dpgw --help`\n");
  });
});

/** What bin/dpgw's #! line starts node with for provision, export and sandbox. */
const HEAP_FLAGS = ['--max-semi-space-size=2', '--max-old-space-size=1024'];

describe("the #!/bin/sh line's choice of node flags", () => {
  // A `node` on PATH that prints what it was started with, one word a line.
  const fakeNodeDir = mkdtempSync(join(tmpdir(), 'dpgw-fake-node-'));
  writeFileSync(join(fakeNodeDir, 'node'), '#!/bin/sh\nfor word; do echo "$word"; done\n', { mode: 0o755 });
  // Every one of them is there on the machines CI runs on: a missing one fails, it is not skipped. BusyBox's sh runs dpgw in test/e2e/busybox-start.test.ts.
  const shells = ['/bin/sh', '/usr/bin/dash', '/usr/bin/bash'];
  const startedWith = (shell: string, argv: string[]) => execFileSync(shell, [BIN, ...argv], { env: { PATH: `${fakeNodeDir}:/usr/bin:/bin` }, encoding: 'utf8' }).split('\n').slice(0, -1);

  it.each(shells)('%s: the heap flags for the commands whose memory grows with the platform (provision, export, sandbox) and after a leading flag, none otherwise, every word passed as given', (shell) => {
    // Answers written from the build (bin/answer.js), and commands of a bounded size.
    for (const argv of [[], ['--version'], ['-V'], ['--help'], ['-h'], ['help'], ['help', 'provision'], ['provision', '--help'], ['table', 'create', '--help'], ['health', '-h'], ['bogus', '--help'], ['health'], ['catalog', 'datasets', '--json'], ['health', '--help', 'x'], ['a', 'b', 'c', '--help'], ['table', 'get', 'x']]) {
      expect(startedWith(shell, argv), argv.join(' ')).toEqual([BIN, ...argv]);
    }
    // The line names commands by their words: each must be one dpgw has (a renamed command would lose its flags unseen).
    const flagged = /case "\$1" in ([^)]*)\)/.exec(readFileSync(BIN, 'utf8').split('\n')[1]!)![1]!.split('|').filter((word) => !word.startsWith('-'));
    expect(flagged).toEqual(['provision', 'export', 'sandbox']);
    for (const command of flagged) expect(TOP_LEVEL_COMMANDS).toContain(command);
    // A leading flag hides the command from the shell: the flags, to be safe.
    for (const argv of [['provision', 'a manifest.yaml'], ['provision', 'a manifest.yaml', '--plan'], ['export', '--output', 'out'], ['sandbox'], ['--version', 'x'], ['--json', 'table', 'get', 'x'], ['--profile', 'ci', 'provision', 'p.yaml']]) {
      expect(startedWith(shell, argv), argv.join(' ')).toEqual([...HEAP_FLAGS, BIN, ...argv]);
    }
  });
});

describe("the #!/bin/sh line's malloc arenas", () => {
  // A `node` on PATH that prints the arena limit it was started with.
  const fakeNodeDir = mkdtempSync(join(tmpdir(), 'dpgw-fake-node-'));
  writeFileSync(join(fakeNodeDir, 'node'), '#!/bin/sh\necho "${MALLOC_ARENA_MAX-unset}"\n', { mode: 0o755 });
  const arenasOf = (shell: string, argv: string[], env: NodeJS.ProcessEnv = {}) => execFileSync(shell, [BIN, ...argv], { env: { PATH: `${fakeNodeDir}:/usr/bin:/bin`, ...env }, encoding: 'utf8' }).trim();

  it.each(['/bin/sh', '/usr/bin/dash', '/usr/bin/bash'])('%s: two glibc arenas for the long runs (provision, export, sandbox), unless the environment sets its own; other commands untouched', (shell) => {
    for (const argv of [['provision', 'p.yaml'], ['export', '--output', 'out'], ['sandbox'], ['--profile', 'ci', 'provision', 'p.yaml']]) expect(arenasOf(shell, argv), argv.join(' ')).toBe('2');
    expect(arenasOf(shell, ['provision', 'p.yaml'], { MALLOC_ARENA_MAX: '8' })).toBe('8');
    for (const argv of [['health'], ['catalog', 'datasets', '--json']]) expect(arenasOf(shell, argv), argv.join(' ')).toBe('unset');
  });
});

describe('the code caches of the two bundles', () => {
  const cacheFolder = (env: NodeJS.ProcessEnv) => join(env.XDG_CACHE_HOME!, 'dpgw', 'code-cache');
  const cacheFiles = (env: NodeJS.ProcessEnv) => readdirSync(cacheFolder(env)).sort();
  const key = `[0-9a-f]{16}-${process.version}-${process.arch}`;

  it('are written once, private to the user: the start-up bundle, and the commands once for each command; later starts run from them', async () => {
    const env = cleanEnv();
    const first = await spawnDpgw(['config', 'show', '--json'], { env });
    expect(first.code).toBe(0);
    const files = cacheFiles(env);
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(new RegExp(`^commands-${key}-config\\.bin$`));
    expect(files[1]).toMatch(new RegExp(`^dpgw-${key}\\.bin$`));
    expect(statSync(cacheFolder(env)).mode & 0o777).toBe(0o700);
    for (const file of files) expect(statSync(join(cacheFolder(env), file)).mode & 0o777).toBe(0o600);
    const written = files.map((file) => statSync(join(cacheFolder(env), file)).mtimeMs);
    // The same command again, and another subcommand of it: both run from the files written.
    expect(await spawnDpgw(['config', 'show', '--json'], { env })).toEqual(first);
    expect((await spawnDpgw(['config', 'path'], { env })).code).toBe(0);
    expect(cacheFiles(env)).toEqual(files);
    expect(files.map((file) => statSync(join(cacheFolder(env), file)).mtimeMs)).toEqual(written);
    // Another command gets its own, which holds the code it ran.
    expect((await spawnDpgw(['health', '--gateway', 'http://127.0.0.1:9'], { env })).code).toBe(5);
    expect(cacheFiles(env).filter((file) => !files.includes(file))).toEqual([expect.stringMatching(new RegExp(`^commands-${key}-health\\.bin$`))]);
  });

  it('a dependency kept in a file of its own (zod, for a manifest) runs from a cache of its own, written once', async () => {
    const env = cleanEnv();
    const folder = mkdtempSync(join(tmpdir(), 'dpgw-manifest-'));
    writeFileSync(join(folder, 'dpgw.yaml'), 'dataSets:\n  - dataset: trips\n');
    const plan = await spawnDpgw(['provision', join(folder, 'dpgw.yaml'), '--plan'], { env });
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain('dataSets[0].datasource: expected string');
    const vendor = cacheFiles(env).filter((file) => file.startsWith('vendor-'));
    expect(vendor).toEqual([expect.stringMatching(new RegExp(`^vendor-${key}-zod\\.bin$`))]);
    const written = statSync(join(cacheFolder(env), vendor[0]!)).mtimeMs;
    expect(await spawnDpgw(['provision', join(folder, 'dpgw.yaml'), '--plan'], { env })).toEqual(plan);
    expect(statSync(join(cacheFolder(env), vendor[0]!)).mtimeMs).toBe(written);
  });

  it('a damaged cache is compiled past and replaced, with nothing said', async () => {
    const env = cleanEnv();
    // --version and --help are answered without the bundles (bin/answer.js): a command loads them.
    await spawnDpgw(['config', 'path'], { env });
    const files = cacheFiles(env).map((file) => join(cacheFolder(env), file));
    expect(files).toHaveLength(2);
    for (const file of files) writeFileSync(file, 'not V8 code');
    const run = await spawnDpgw(['config', 'path'], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('config.yaml');
    for (const file of files) expect(readFileSync(file, 'utf8')).not.toBe('not V8 code');
  });

  it("a cache file someone else could have written is never run: compiled past and replaced by the user's own; a FIFO in its place does not hang a start", async () => {
    const env = cleanEnv();
    await spawnDpgw(['config', 'path'], { env });
    const [commands, startUp] = cacheFiles(env).map((file) => join(cacheFolder(env), file));
    // Valid caches, which a check of V8's alone would run: one writable by others, one (when the suite can give it away) another user's.
    chmodSync(startUp!, 0o666);
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chownSync(commands!, 65534, 65534);
    else chmodSync(commands!, 0o620);
    const before = [commands!, startUp!].map((file) => statSync(file).ino);
    const run = await spawnDpgw(['config', 'path'], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    for (const [i, file] of [commands!, startUp!].entries()) {
      const info = statSync(file);
      expect(info.ino, file).not.toBe(before[i]);
      expect(info.mode & 0o777).toBe(0o600);
      expect(info.uid).toBe(process.getuid?.());
    }
    rmSync(startUp!);
    execFileSync('mkfifo', ['-m', '600', startUp!]);
    const past = await spawnDpgw(['config', 'path'], { env });
    expect(past.code).toBe(0);
    expect(statSync(startUp!).isFile()).toBe(true);
  });

  it('node started with flags and without keeps a cache each, so neither replaces the other', async () => {
    const env = cleanEnv();
    await spawnDpgw(['config', 'path'], { env });
    const plain = cacheFiles(env);
    const flagged = await new Promise<number | null>((resolve) => execFile(process.execPath, [...HEAP_FLAGS, BIN, 'config', 'path'], { env }, (error) => resolve(error ? (error.code as number) : 0)));
    expect(flagged).toBe(0);
    expect(cacheFiles(env).filter((file) => !plain.includes(file))).toEqual([
      expect.stringMatching(new RegExp(`^commands-${key}-[0-9a-f]{8}-config\\.bin$`)),
      expect.stringMatching(new RegExp(`^dpgw-${key}-[0-9a-f]{8}\\.bin$`)),
    ]);
    // V8 flags from NODE_OPTIONS (a CI job's heap size) count as flags too: a file each, and each run again from its own.
    const fromEnvironment = { ...env, NODE_OPTIONS: '--max-old-space-size=4096' };
    expect((await spawnDpgw(['config', 'path'], { env: fromEnvironment })).code).toBe(0);
    const all = cacheFiles(env);
    expect(all).toHaveLength(plain.length + 4);
    const written = all.map((file) => statSync(join(cacheFolder(env), file)).mtimeMs);
    expect((await spawnDpgw(['config', 'path'], { env })).code).toBe(0);
    expect((await spawnDpgw(['config', 'path'], { env: fromEnvironment })).code).toBe(0);
    expect(cacheFiles(env)).toEqual(all);
    expect(all.map((file) => statSync(join(cacheFolder(env), file)).mtimeMs)).toEqual(written);
  });

  it('with the heap flags (provision, export, sandbox) the commands cache is written once the handler has loaded, before it runs; without them, at exit', async () => {
    // A gateway that accepts and never answers: the command is running when it connects, and is then killed outright (no exit handlers).
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const gateway = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const killedMidRun = async (flags: string[]) => {
      const env = cleanEnv();
      const child = spawn(process.execPath, [...flags, BIN, 'health', '--gateway', gateway], { env, stdio: 'ignore' });
      await new Promise((resolve) => silent.once('connection', resolve));
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('close', resolve));
      return existsSync(cacheFolder(env)) ? cacheFiles(env).filter((file) => file.startsWith('commands-')) : [];
    };
    try {
      expect(await killedMidRun(HEAP_FLAGS)).toEqual([expect.stringMatching(new RegExp(`^commands-${key}-[0-9a-f]{8}-health\\.bin$`))]);
      expect(await killedMidRun([])).toEqual([]);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it("other builds' files go once they are a day old; this build's, and another's written today, stay", async () => {
    const env = cleanEnv();
    mkdirSync(cacheFolder(env), { recursive: true });
    const other = (name: string, ageDays: number) => {
      const file = join(cacheFolder(env), name);
      writeFileSync(file, 'an older build');
      const when = new Date(Date.now() - ageDays * 24 * 60 * 60 * 1000);
      utimesSync(file, when, when);
      return name;
    };
    const old = [
      other(`dpgw-0123456789abcdef-${process.version}-${process.arch}.bin`, 2),
      other(`commands-0123456789abcdef-${process.version}-${process.arch}-health.bin`, 2),
      other(`vendor-0123456789abcdef-${process.version}-${process.arch}-zod.bin`, 2),
    ];
    const recent = other(`commands-fedcba9876543210-${process.version}-${process.arch}-health.bin`, 0.5);
    const unrelated = other('notes.txt', 30);
    expect((await spawnDpgw(['config', 'path'], { env })).code).toBe(0);
    const files = cacheFiles(env);
    expect(files).toEqual(expect.arrayContaining([recent, unrelated]));
    for (const name of old) expect(files).not.toContain(name);
    expect(files.filter((file) => new RegExp(`^(dpgw|commands)-${key}`).test(file) && !file.includes('fedcba9876543210'))).toHaveLength(2);
  });

  it('a command that talks HTTP builds no Intl object before its first request (the first one loads ICU data: ~10 ms)', async () => {
    const work = mkdtempSync(join(tmpdir(), 'dpgw-intl-'));
    const preload = join(work, 'count-intl.cjs');
    // Counts every Intl object built before the first connection, and says so when the process ends.
    writeFileSync(
      preload,
      `const net = require('node:net'); let connected = false; const built = [];
       for (const name of ['ListFormat', 'Segmenter', 'NumberFormat', 'DateTimeFormat', 'Collator', 'PluralRules', 'RelativeTimeFormat']) {
         const Real = Intl[name];
         Intl[name] = new Proxy(Real, { construct(target, args) { if (!connected) built.push(name); return Reflect.construct(target, args); } });
       }
       const connect = net.Socket.prototype.connect;
       net.Socket.prototype.connect = function (...args) { connected = true; return connect.apply(this, args); };
       process.on('exit', () => process.stderr.write('intl-before-connect:' + JSON.stringify({ connected, built }) + '\\n'));`,
    );
    // catalog datasets loads the text table's display-width measure (string-width builds its Intl.Segmenter on first use: scripts/build.mjs).
    for (const argv of [['health'], ['catalog', 'datasets']]) {
      const run = await spawnDpgw([...argv, '--gateway', 'http://127.0.0.1:9'], { env: cleanEnv({ NODE_OPTIONS: `--require=${preload}`, DPGW_TOKEN: 'not-sent' }) });
      expect(run.stderr).toContain('cannot reach 127.0.0.1:9');
      expect(JSON.parse(/intl-before-connect:(.*)/.exec(run.stderr)![1]!), argv.join(' ')).toEqual({ connected: true, built: [] });
    }
  });

  it('an unwritable cache folder costs nothing but the compile; NODE_DISABLE_COMPILE_CACHE turns the cache off', async () => {
    const blocked = cleanEnv();
    writeFileSync(join(blocked.XDG_CACHE_HOME!, 'dpgw'), 'a file where the folder would go');
    const run = await spawnDpgw(['config', 'path'], { env: blocked });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const disabled = cleanEnv({ NODE_DISABLE_COMPILE_CACHE: '1' });
    expect((await spawnDpgw(['config', 'path'], { env: disabled })).code).toBe(0);
    expect(existsSync(cacheFolder(disabled))).toBe(false);
  });
});

describe('bad input: one line, exit 2', () => {
  const oneLine = (stderr: string) => expect(stderr.trimEnd().split('\n')).toHaveLength(1);

  it('an unknown flag', async () => {
    const { code, stdout, stderr } = await spawnDpgw(['config', '--gatewya', 'http://x']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    oneLine(stderr);
    expect(stderr).toMatch(/^dpgw: unknown option '--gatewya' \(Did you mean --gateway\?\) — see `dpgw config --help`$/m);
  });

  it('an unknown command, and a group without its subcommand', async () => {
    const unknown = await spawnDpgw(['helth']);
    expect(unknown.code).toBe(2);
    oneLine(unknown.stderr);
    expect(unknown.stderr).toContain("unknown command 'helth' (Did you mean health?)");
    const group = await spawnDpgw(['schema']);
    expect(group.code).toBe(2);
    oneLine(group.stderr);
    expect(group.stderr).toContain('dpgw schema needs a subcommand: push, list, get, delete, validate, infer');
    const sub = await spawnDpgw(['schema', 'pish', 'x']);
    expect(sub.code).toBe(2);
    oneLine(sub.stderr);
    expect(sub.stderr).toContain("unknown command 'pish' for 'dpgw schema' (Did you mean push?)");
    // The same nearness as every "did you mean" of dpgw: no guess for a word that is far from all.
    expect((await spawnDpgw(['table', 'zzz'])).stderr).not.toContain('Did you mean');
    // Top-level too, where commander's looser guess offered `logout` for `bogus` (#31 §3).
    expect((await spawnDpgw(['bogus'])).stderr).toBe("dpgw: unknown command 'bogus' — see `dpgw --help`\n");
    expect((await spawnDpgw(['logut'])).stderr).toBe("dpgw: unknown command 'logut' (Did you mean logout?) — see `dpgw --help`\n");
    expect((await spawnDpgw(['health', '--watc', '1'])).stderr).toBe("dpgw: unknown option '--watc' (Did you mean --watch?) — see `dpgw health --help`\n");
    expect((await spawnDpgw(['health', '--bogus'])).stderr).toBe("dpgw: unknown option '--bogus' — see `dpgw health --help`\n");
  });

  it('an install missing its command code ends in one line and exit 1, not a stack', async () => {
    const install = mkdtempSync(join(tmpdir(), 'dpgw-broken-install-'));
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(install, part), { recursive: true });
    writeFileSync(join(install, 'dist/cli/commands.cjs'), 'exports.dispatch = ;\n');
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [join(install, 'bin/dpgw'), 'config', 'show'], { env: cleanEnv() }, (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stdout, stderr })),
    );
    expect(code).toBe(1);
    expect(stdout).toBe('');
    oneLine(stderr);
    expect(stderr).toMatch(/^dpgw: unexpected error: .+ — reinstall dpgw, or run again with --verbose and report it$/m);
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it('a checkout not built yet (dpgw run right after `npm link`) says to build it in one line, exit 1; --version and --help too', async () => {
    const checkout = mkdtempSync(join(tmpdir(), 'dpgw-unbuilt-'));
    for (const part of ['bin', 'src', 'package.json']) cpSync(join(ROOT, part), join(checkout, part), { recursive: true });
    for (const argv of [['config', 'show'], ['--version'], ['--help']]) {
      const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
        execFile(join(checkout, 'bin/dpgw'), argv, { env: cleanEnv() }, (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stdout, stderr })),
      );
      expect([code, stdout], argv.join(' ')).toEqual([1, '']);
      expect(stderr).toBe(`dpgw: cannot read ${join(checkout, 'dist/cli/dpgw.cjs')} (ENOENT): dpgw is not built — run \`npm run build\` in ${checkout}\n`);
    }
  });

  it('a malformed config file, with its line and column', async () => {
    const env = cleanEnv();
    const file = join(env.DPGW_CONFIG_DIR!, 'config.yaml');
    writeFileSync(file, 'profiles:\n  dev:\n    gateway: [http://gw\n');
    const { code, stdout, stderr } = await spawnDpgw(['config'], { env });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    oneLine(stderr);
    expect(stderr).toMatch(new RegExp(`^dpgw: ${file.replace(/[.]/g, '\\.')}:\\d+:\\d+: YAML syntax error: `));
  });

  it('an unknown profile, from the flag or the environment', async () => {
    const env = cleanEnv();
    writeFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), 'profiles:\n  dev:\n    gateway: http://gw\n  prod:\n    gateway: https://gw\n');
    const fromFlag = await spawnDpgw(['config', '--profile', 'staging'], { env });
    expect(fromFlag.code).toBe(2);
    oneLine(fromFlag.stderr);
    expect(fromFlag.stderr).toContain('unknown profile "staging" (from flag --profile)');
    expect(fromFlag.stderr).toContain('known profiles: dev, prod');
    const fromEnv = await spawnDpgw(['config'], { env: { ...env, DPGW_PROFILE: 'qa' } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('unknown profile "qa" (from env DPGW_PROFILE)');
  });

  it('an unknown profile names the profiles that exist, in every path: no config.yaml, a current profile it lacks, `config use`, another config folder', async () => {
    const env = cleanEnv();
    const none = await spawnDpgw(['config', '--profile', 'sbx'], { env });
    expect(none.code).toBe(2);
    oneLine(none.stderr);
    expect(none.stderr).toContain('no profiles exist yet in the config folder DPGW_CONFIG_DIR names');
    expect(none.stderr).toContain('`dpgw sandbox --write-profile sbx`');

    const file = join(env.DPGW_CONFIG_DIR!, 'config.yaml');
    writeFileSync(file, 'currentProfile: gone\nprofiles:\n  dev:\n    gateway: http://gw\n  sandbox:\n    gateway: http://gw\n', { mode: 0o600 });
    const current = await spawnDpgw(['config'], { env });
    expect(current.code).toBe(2);
    expect(current.stderr).toContain(`unknown profile "gone" (from profile "gone" ${file}:1:17)`);
    expect(current.stderr).toContain('known profiles: dev, sandbox in the config folder DPGW_CONFIG_DIR names');

    const use = await spawnDpgw(['config', 'use', 'sandbx'], { env });
    expect(use.code).toBe(2);
    expect(use.stderr).toContain('known profiles: dev, sandbox (did you mean "sandbox"?)');

    // The profile exists, but in another folder than the one this shell's settings name.
    const elsewhere = { ...env, DPGW_CONFIG_DIR: undefined, XDG_CONFIG_HOME: join(env.DPGW_CONFIG_DIR!, 'xdg') };
    const other = await spawnDpgw(['config', '--profile', 'sandbox'], { env: elsewhere });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('no profiles exist yet in the config folder under XDG_CONFIG_HOME');
  });
});

describe('colour', () => {
  it('is off without a TTY, on with FORCE_COLOR, and off again with --no-color or NO_COLOR', async () => {
    const env = cleanEnv();
    expect((await spawnDpgw(['config'], { env })).stdout).not.toMatch(ANSI);
    expect((await spawnDpgw(['config'], { env: { ...env, FORCE_COLOR: '1' } })).stdout).toMatch(ANSI);
    expect((await spawnDpgw(['config', '--no-color'], { env: { ...env, FORCE_COLOR: '1' } })).stdout).not.toMatch(ANSI);
    expect((await spawnDpgw(['config'], { env: { ...env, FORCE_COLOR: '1', NO_COLOR: '1' } })).stdout).not.toMatch(ANSI);
  });
});

describe('npm pack on a clean clone', () => {
  it('builds first (prepack); the package ships what users run, and installs as one package, without a warning', async () => {
    // The files a commit would hold (tracked, and new ones not ignored), as a fresh clone has them: no dist/.
    const clone = mkdtempSync(join(tmpdir(), 'dpgw-pack-'));
    const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
    for (const file of tracked) cpSync(join(ROOT, file), join(clone, file), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    const destination = mkdtempSync(join(tmpdir(), 'dpgw-tarball-'));
    const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--loglevel', 'error', '--pack-destination', destination], { cwd: clone, encoding: 'utf8', env: cleanEnv() })) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = packed[0]!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['bin/dpgw', 'dist/cli/dpgw.cjs', 'dist/cli/commands.cjs', 'dist/pkg/index.js', 'dist/pkg/sandbox.js', 'dist/lib/index.d.ts', 'templates/realtime-table.yaml']));
    // No source maps, no tsc output but the type declarations, no test or script.
    expect(files.filter((f) => f.endsWith('.map') || (f.startsWith('dist/lib/') && !f.endsWith('.d.ts')) || f.startsWith('test/') || f.startsWith('scripts/'))).toEqual([]);

    // Installed as a user does (npm install -g), offline: every dependency is inside the bundle.
    const prefix = mkdtempSync(join(tmpdir(), 'dpgw-global-'));
    const env = { ...cleanEnv(), npm_config_prefix: prefix };
    const installed = await new Promise<{ code: number | null; output: string }>((resolve) =>
      execFile('npm', ['install', '-g', '--offline', '--no-audit', '--no-fund', join(destination, packed[0]!.filename)], { env }, (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, output: stdout + stderr })),
    );
    expect(installed.code, installed.output).toBe(0);
    // This machine's npm warns about its own configuration ("Unknown user config"); nothing else may warn.
    expect(installed.output.split('\n').filter((line) => /warn|EBADENGINE/i.test(line) && !/Unknown user config/.test(line))).toEqual([]);
    expect(installed.output).toMatch(/added 1 package/);
    const version = execFileSync(join(prefix, 'bin', 'dpgw'), ['--version'], { encoding: 'utf8', env: cleanEnv() });
    expect(version.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    // A command runs from the installed bundles, through npm's link, and keeps its code caches.
    const commandEnv = cleanEnv();
    for (let start = 0; start < 2; start++) {
      expect(execFileSync(join(prefix, 'bin', 'dpgw'), ['config', 'path'], { encoding: 'utf8', env: commandEnv }).trim()).toBe(join(commandEnv.DPGW_CONFIG_DIR!, 'config.yaml'));
    }
    expect(readdirSync(join(commandEnv.XDG_CACHE_HOME!, 'dpgw', 'code-cache')).filter((file) => file.startsWith('commands-'))).toHaveLength(1);
    // The library's two entries load from the installed package alone.
    const library = execFileSync(process.execPath, ['--input-type=module', '-e', "const { GatewayClient } = await import('dpgw'); const { startSandbox } = await import('dpgw/sandbox'); const s = await startSandbox(); console.log(typeof GatewayClient, s.stream.brokerList.startsWith('127.0.0.1:')); await s.close();"], { cwd: join(prefix, 'lib'), encoding: 'utf8', env: cleanEnv() });
    expect(library.trim()).toBe('function true');
  }, 180_000);
});

describe('--json and --quiet hold for every outcome', () => {
  it('a usage error with --json is still one JSON error document on stdout, and one line on stderr', async () => {
    for (const argv of [['bogus', '--json'], ['enable', '--json'], ['schema', 'infer', '--sample', '--json']]) {
      const result = await spawnDpgw(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
      const document = JSON.parse(result.stdout) as { error: { kind: string; exitCode: number; message: string; hint: string } };
      expect(document.error).toMatchObject({ kind: 'usage', exitCode: 2, hint: expect.stringMatching(/--help`$/) });
      expect(result.stderr).toContain(document.error.message);
    }
    // Without --json, stdout stays empty.
    expect((await spawnDpgw(['bogus'])).stdout).toBe('');
  });

  it('--quiet drops warnings and keeps the result', async () => {
    const env = cleanEnv();
    const messages = join(env.DPGW_CONFIG_DIR!, 'messages.jsonl');
    writeFileSync(messages, '{"a": 1}\nnot json\n{"a": "x"}\n');
    const loud = await spawnDpgw(['schema', 'infer', messages], { env });
    expect(loud.stderr).toMatch(/^warning: .*messages\.jsonl:2: skipped/m);
    const quiet = await spawnDpgw(['schema', 'infer', messages, '--quiet'], { env });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toBe(loud.stdout);
  });
});
