/**
 * Every documented shell example, run as a newcomer runs them: README.md first, then the docs pages in the
 * order README.md first links them (test/helpers/documented-examples.ts extracts them), each line in `sh`,
 * one after another, in one workspace folder with `examples` beside it as in a clone, one HOME and
 * XDG_CONFIG_HOME of their own and `dpgw` (this build) on the PATH, so what a line leaves (a profile, a
 * session, a file, a table) is there for the next. The quick start's `dpgw sandbox` runs in the background
 * for the whole walk; a line that asks at a terminal gets, at a real pty, what a reader types. The examples of
 * `--help` follow in a folder of their own (README.md, "How the examples are checked", gives their order).
 *
 * A line exits 0 unless its comment starts with `exit N` (README.md, "How the examples are checked").
 * The three short tables below are all the runner knows beyond the pages; an entry whose line is no
 * longer on its page fails the test, so they cannot rot.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { CTRL_C, ENTER, commandAtTerminal, screen, type Keystrokes } from '../helpers/at-terminal.js';
import { COMMAND_PATHS } from '../helpers/command-tree.js';
import { documentedExamples, dpgwOnPath, examplesOf, helpExamples, inSh, readingOrder, type DocumentedExample } from '../helpers/documented-examples.js';
import { cleanEnv, ROOT } from '../helpers/run-dpgw.js';

/** What the running sandbox printed (and wrote beside its profile), as a reader reads it off the screen. */
interface SandboxValues {
  gateway: string;
  passwords: Record<string, string>;
  ciSecret: string;
}

interface Keyed {
  page: string;
  text: string;
}

/** Lines that cannot run here, and why. */
const NOT_RUNNABLE: Array<Keyed & { why: string }> = [
  { page: 'README.md', text: 'npm install && npm start    # build, start the embedded sandbox, run contract steps 1–9 on it (render the access-control file, provision the track data set twice with the stream checked before the table and the table consuming after it, infer the track schema from its topic, show a wrong stream password refused, show the catalog and the stored table, verify as analyst and as outsider, map it on a dashboard), stop it', why: 'installs and builds the clone this test runs from (test/cli/start-script.test.ts runs scripts/start.mjs on the build npm test made)' },
  { page: 'README.md', text: 'npm test                    # build, then the whole test suite', why: 'this test is part of npm test' },
  { page: 'README.md', text: 'eval "$(dpgw completion bash)"                                  # in ~/.bashrc', why: 'a line for bash, not sh: test/cli/completion.test.ts runs it in bash' },
  { page: 'README.md', text: 'eval "$(dpgw completion zsh)"                                   # in ~/.zshrc, after `autoload -Uz compinit && compinit`', why: 'a line for zsh, which this machine lacks' },
  { page: 'README.md', text: 'curl -H "Authorization: Bearer $(dpgw auth token)" …', why: '… stands for any gateway request' },
  { page: 'README.md', text: 'dpgw login --grant device --client-id dpgw-cli   # single sign-on or MFA: approve in a browser', why: 'approved in a browser' },
  { page: 'README.md', text: "dpgw sandbox --write-profile sandbox     # gateway :8080, identity provider :8180, message stream :9092, query engine :8190, dashboard tool :8188; Ctrl-C stops it", why: 'the quick start started this sandbox (README.md:16); it runs in the background' },
  { page: 'docs/dashboard.md', text: 'export DPGW_DASHBOARD_URL=https://superset.example DPGW_DASHBOARD_USER=analyst', why: 'a real Superset' },
  { page: 'docs/dashboard.md', text: 'dpgw dashboard --dataset track --dashboard "Tracks" --dashboard-password env:SUPERSET_PASSWORD', why: 'a real Superset' },
  { page: 'docs/e2e.md', text: 'npm run test:e2e          # build, start the components, run test/e2e/, stop them', why: 'real Keycloak, Kafka, Pinot, Trino and OPA' },
  { page: 'docs/e2e.md', text: 'npm run platform:keycloak # start Keycloak by hand (prints its settings as JSON; Ctrl-C stops it)', why: 'a real Keycloak' },
  { page: 'docs/e2e.md', text: 'npm run platform:kafka    # likewise Kafka', why: 'a real Kafka' },
  { page: 'docs/e2e.md', text: 'npm run platform:pinot    # likewise Pinot (controller :9000, broker :8000)', why: 'a real Pinot' },
  { page: 'docs/e2e.md', text: "npm run platform:opa      # likewise OPA with dpgw's query-access policy", why: 'a real OPA' },
  { page: 'docs/e2e.md', text: 'npm run platform:trino    # likewise Trino (needs Keycloak and Pinot up; DPGW_TRINO_* settings, see the script)', why: 'a real Trino' },
  { page: 'docs/schema-infer.md', text: 'kcat -C -t my.topic -c 200 -e | dpgw schema infer - --name track', why: 'kcat and a real Kafka topic' },
  { page: 'docs/secrets.md', text: "dpgw config set clientSecret \\\n  'base64:exec:kubectl get secret backend-client -n data-platform -o jsonpath={.data.client-secret}'", why: 'kubectl and a cluster' },
  { page: 'docs/secrets.md', text: 'dpgw config set clientSecret \\\n  "exec:kubectl get secret backend-client -n data-platform -o go-template={{index .data \\"client-secret\\" | base64decode}}"', why: 'kubectl and a cluster' },
  { page: 'docs/secrets.md', text: "--stream-password 'base64:exec:kubectl get secret stream-internal-user -n data-platform -o jsonpath={.data.password}'", why: 'a flag to add to a command, and kubectl' },
  { page: 'docs/secrets.md', text: "dpgw config set clientSecret 'exec:vault kv get -field=client-secret secret/data-platform/backend'", why: 'vault' },
  { page: 'dpgw auth token --help', text: 'curl -H "Authorization: Bearer $(dpgw auth token)" …', why: '… stands for any gateway request' },
  { page: 'dpgw table delete --help', text: 'dpgw table delete track', why: 'the deletion of the line before, at a terminal: test/cli/lifecycle-delete.test.ts types the name there' },
  { page: 'dpgw schema delete --help', text: 'dpgw schema delete track', why: 'the deletion of the line before, at a terminal (typed as for a table)' },
  { page: 'dpgw sandbox --help', text: 'dpgw sandbox --write-profile sandbox', why: "the quick start's sandbox runs; a second would take its ports" },
  { page: 'dpgw completion --help', text: 'eval "$(dpgw completion bash)"', why: 'a line for bash, not sh: test/cli/completion.test.ts runs it in bash' },
  { page: 'docs/benchmarks.md', text: 'git worktree add ../dpgw-before d91204e', why: 'a benchmark: minutes of two builds side by side' },
  { page: 'docs/benchmarks.md', text: '(cd ../dpgw-before && npm ci && npm run build)', why: 'a benchmark' },
  { page: 'docs/benchmarks.md', text: 'BENCH_BASELINE=$PWD/../dpgw-before npm run bench:provision', why: 'a benchmark' },
  { page: 'docs/benchmarks.md', text: 'BENCH_BASELINE=$PWD/../dpgw-before npm run bench:provision -- --large', why: 'a benchmark' },
  { page: 'docs/benchmarks.md', text: 'BENCH_BASELINE=$PWD/../dpgw-before npm run bench:real -- --rounds 8', why: 'a benchmark (real components)' },
];

/** Placeholders with an obvious sandbox value: the line as run, filled from what the sandbox printed. */
const FILLED: Array<Keyed & { run: (sandbox: SandboxValues, text: string) => string }> = [
  // The reader's password file: the admin password the sandbox printed.
  { page: 'README.md', text: 'dpgw login --password-stdin < password.txt   # scripts', run: (s, text) => `printf '%s\\n' '${s.passwords.admin}' > password.txt && ${text}` },
  { page: 'README.md', text: 'DPGW_PASSWORD=… dpgw login                    # pipelines', run: (s, text) => text.replace('…', s.passwords.admin!) },
  { page: 'README.md', text: 'DPGW_USERNAME=admin DPGW_PASSWORD=… dpgw catalog sources   # or let the first command sign in by itself', run: (s, text) => text.replace('…', s.passwords.admin!) },
  // --help's: the password file, as on the README; after trying logout, the reader signs in again for the examples after it.
  { page: 'dpgw login --help', text: 'dpgw login --username admin --password-stdin < password.txt', run: (s, text) => `printf '%s\\n' '${s.passwords.admin}' > password.txt && ${text}` },
  { page: 'dpgw logout --help', text: 'dpgw logout', run: (_s, text) => `${text} && dpgw login --username admin --password-stdin < password.txt` },
  // A table config as the store answers it: the one `table get` prints.
  { page: 'dpgw table template --help', text: 'dpgw table template table-config.json -o template.yaml', run: (_s, text) => `dpgw table get track --json > table-config.json && ${text}` },
  { page: 'dpgw access-control check --help', text: 'dpgw access-control check /etc/trino/access-control.properties', run: (_s, text) => text.replace('/etc/trino/access-control.properties', 'access-control.properties') },
  // The service account's secret: the sandbox wrote it beside the profile sandbox-ci.
  { page: 'README.md', text: 'DPGW_GRANT=client-credentials DPGW_CLIENT_ID=dpgw-ci DPGW_CLIENT_SECRET=… dpgw catalog sources   # a service account: no username, no password, no login', run: (s, text) => text.replace('…', s.ciSecret) },
  // The coordinator's file: here, the one the line before rendered.
  { page: 'README.md', text: 'dpgw access-control check /etc/trino/access-control.properties   # every wrong key with file:line:column, exit 2', run: (_s, text) => text.replace('/etc/trino/access-control.properties', 'access-control.properties') },
  // "each profile signed in with `dpgw login --profile …`" (the comment above them): the user's password, as a pipeline gives it.
  { page: 'README.md', text: 'dpgw verify --dataset track --profile sandbox-analyst --wait 120          # schema, table, ≥ 1 row; asks again while ingesting', run: (s, text) => `DPGW_PASSWORD='${s.passwords.analyst}' ${text}` },
  { page: 'README.md', text: 'dpgw verify --dataset track --profile sandbox-outsider --expect hidden   # no schema, no table, SELECT denied', run: (s, text) => `DPGW_PASSWORD='${s.passwords.outsider}' ${text}` },
  // A CI repository's manifest: here, the quick start's.
  { page: 'docs/ci.md', text: 'dpgw provision provision.yaml --plan --detailed-exitcode || test $? -eq 7', run: (_s, text) => text.replace('provision.yaml', 'track/provision.yaml') },
  // "with no gateway set anywhere": a config folder with no config.yaml.
  { page: 'docs/error-codes.md', text: 'dpgw catalog sources --json     # exit 2 with no gateway set anywhere, and on stdout', run: (_s, text) => `XDG_CONFIG_HOME="$PWD/no-config" ${text}` },
];

/** Lines that ask at a terminal, and what a reader types there (and the exit that follows, when typing ends the command). */
const TYPED: Array<Keyed & { steps: (sandbox: SandboxValues) => Keystrokes[]; exit?: number }> = [
  { page: 'README.md', text: 'dpgw login                               # as admin, with the password the sandbox printed', steps: (s) => [{ when: 'Password', keys: `${s.passwords.admin}${ENTER}` }] },
  { page: 'README.md', text: 'dpgw login                                   # asks for the password on a terminal', steps: (s) => [{ when: 'Password', keys: `${s.passwords.admin}${ENTER}` }] },
  { page: 'docs/tables.md', text: 'dpgw table status track --watch 5     # until Ctrl-C', steps: () => [{ when: 'PARTITION', keys: CTRL_C }], exit: 130 },
  { page: 'dpgw table status --help', text: 'dpgw table status track --watch 5', steps: () => [{ when: 'PARTITION', keys: CTRL_C }], exit: 130 },
];

/** The quick start's sandbox, started in the background; on free ports, as other tests run beside this one. */
const SANDBOX_LINE: Keyed = { page: 'README.md', text: 'dpgw sandbox --write-profile sandbox     # a platform on 127.0.0.1 to try dpgw on; leave it running, go on in another shell' };
const FREE_PORTS = '--port 0 --auth-port 0 --query-port 0 --dashboard-port 0 --stream-port 0';

const same = (a: Keyed, b: Keyed) => a.page === b.page && a.text === b.text;
const where = (example: DocumentedExample) => `${example.page}:${example.line}`;

const folders: string[] = [];
let sandboxProcess: ChildProcess | undefined;
afterAll(async () => {
  if (sandboxProcess && sandboxProcess.exitCode === null) {
    const exited = new Promise((resolve) => sandboxProcess!.once('exit', resolve));
    sandboxProcess.kill('SIGINT');
    await exited;
  }
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Starts the sandbox line in the background and reads its banner as a reader does: the addresses and each user's password. */
function startSandbox(text: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<SandboxValues> {
  const line = text.replace(/(\s+#.*)?$/, ` ${FREE_PORTS}`);
  sandboxProcess = spawn('sh', ['-c', `exec ${line}`], { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let banner = '';
  let errors = '';
  sandboxProcess.stderr!.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${where({ ...SANDBOX_LINE, line: 0, expectedExit: 0 })}: no banner after 30 s\n${banner}${errors}`)), 30_000);
    sandboxProcess!.once('exit', (code) => reject(new Error(`README.md: the sandbox line exited ${code} before its banner\n${banner}${errors}`)));
    sandboxProcess!.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      banner += chunk;
      if (!/^profile "[^"]+" written/m.test(banner)) return;
      clearTimeout(timer);
      const passwords = Object.fromEntries([...banner.matchAll(/^ {2}(\w+) {2,}(\S+) {2}/gm)].filter(([, user]) => ['admin', 'analyst', 'outsider'].includes(user!)).map(([, user, password]) => [user!, password!]));
      const gateway = /^ {2}gateway +(\S+)/m.exec(banner)![1]!;
      const ciSecret = readFileSync(join(options.env.XDG_CONFIG_HOME!, 'dpgw/sandbox/sandbox-ci-client-secret'), 'utf8').trim();
      resolve({ gateway, passwords, ciSecret });
    });
  });
}

/** The last lines of what a failed line wrote, enough to see why. */
function tail(text: string, lines = 12): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

it('every shell example of README.md and docs/*.md, then of --help, runs as written, in reading order, against the quick start sandbox', async () => {
  const { examples: onPages, pages, unreached } = documentedExamples(ROOT);
  // Then the examples of --help, in the order `dpgw --help` lists the commands: a reader who has read the pages tries them next.
  // The deletions after the examples that need the table, a --dry-run before its deletion, the table's before the
  // schema's (the store refuses to delete a schema a table uses), and before `config`'s, whose `config use dev` leaves
  // the sandbox's profile.
  const deletion = (example: DocumentedExample) => /^dpgw (table|schema) delete /.exec(example.text)?.[1];
  const helpInOrder = helpExamples(ROOT, COMMAND_PATHS);
  const isConfig = (example: DocumentedExample) => example.text.startsWith('dpgw config ');
  const inHelp = [
    ...helpInOrder.filter((e) => !deletion(e) && !isConfig(e)),
    // What a deletion would do, before it is done.
    ...helpInOrder.filter((e) => deletion(e) === 'table').sort((a, b) => Number(b.text.includes('--dry-run')) - Number(a.text.includes('--dry-run'))),
    ...helpInOrder.filter((e) => deletion(e) === 'schema'),
    ...helpInOrder.filter(isConfig),
  ];
  const examples = [...onPages, ...inHelp];
  const failures: string[] = [];
  for (const page of unreached) failures.push(`${page}: README.md links this page nowhere, so no reader reaches its examples: link it from README.md`);
  for (const [table, entries] of [['NOT_RUNNABLE', NOT_RUNNABLE], ['FILLED', FILLED], ['TYPED', TYPED], ['SANDBOX_LINE', [SANDBOX_LINE]]] as const) {
    for (const entry of entries) if (!examples.some((example) => same(example, entry))) failures.push(`${entry.page}: the line ${table} lists is no longer on the page (update the list): ${entry.text}`);
  }

  const root = mkdtempSync(join(tmpdir(), 'dpgw-reader-'));
  folders.push(root);
  const home = join(root, 'home');
  const workspace = join(root, 'workspace');
  for (const folder of [home, workspace]) mkdirSync(folder);
  const bin = dpgwOnPath();
  folders.push(bin);
  symlinkSync(join(ROOT, 'examples'), join(workspace, 'examples'));
  const env = cleanEnv({ HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), PATH: `${bin}:${process.env.PATH}` });
  delete env.DPGW_CONFIG_DIR;
  let options = { cwd: workspace, env };

  let sandbox: SandboxValues | undefined;
  let ran = 0;
  let notRunnable = 0;
  for (const example of examples) {
    if (example === inHelp[0] && sandbox) {
      // The examples of --help are tried in a folder of their own (init's and export's files of the pages are in the
      // first), signed in again as the quick start signs in: the pages end signed in as the service account.
      const helpFolder = join(root, 'trying-help');
      mkdirSync(helpFolder);
      symlinkSync(join(ROOT, 'examples'), join(helpFolder, 'examples'));
      options = { cwd: helpFolder, env };
      const login = await commandAtTerminal(['sh', '-c', 'dpgw login'], { ...options, steps: [{ when: 'Password', keys: `${sandbox.passwords.admin}${ENTER}` }], timeoutSeconds: 60 });
      if (login.code !== 0) failures.push(`before the examples of --help: dpgw login exited ${login.code}\n${tail(screen(login.stdout)).replace(/^/gm, '  | ')}`);
    }
    if (NOT_RUNNABLE.some((entry) => same(entry, example))) {
      notRunnable++;
      continue;
    }
    ran++;
    if (same(example, SANDBOX_LINE)) {
      sandbox = await startSandbox(example.text, options);
      continue;
    }
    if (!sandbox) {
      failures.push(`${where(example)}: runs before the quick start's sandbox line (${SANDBOX_LINE.page}: ${SANDBOX_LINE.text})`);
      continue;
    }
    const filled = FILLED.find((entry) => same(entry, example));
    const typed = TYPED.find((entry) => same(entry, example));
    const text = filled ? filled.run(sandbox, example.text) : example.text;
    const result = typed ? await commandAtTerminal(['sh', '-c', text], { ...options, steps: typed.steps(sandbox), timeoutSeconds: 120 }) : await inSh(text, options);
    const expected = typed?.exit ?? example.expectedExit;
    if (result.code !== expected) {
      const said = typed ? screen(result.stdout) : result.stderr || result.stdout;
      const why = typed?.exit !== undefined ? ' (after the keys TYPED lists)' : expected ? ' (its `# exit N` comment)' : '';
      // The filled line with the sandbox's secrets masked, as dpgw masks them.
      const masked = [...Object.values(sandbox.passwords), sandbox.ciSecret].reduce((line, secret) => line.split(secret).join('***'), text);
      const ranAs = text !== example.text ? `\n  ran as (FILLED): ${masked}` : typed ? '\n  at a terminal (TYPED)' : '';
      failures.push(`${where(example)}: exit ${result.code}, expected ${expected}${why}\n  $ ${example.text}${ranAs}\n${tail(said).replace(/^/gm, '  | ')}`);
    }
  }
  console.log(`documented examples: ${onPages.length} on ${pages.length} pages, ${inHelp.length} in --help; ran: ${ran}; listed as not runnable here: ${notRunnable}; failed: ${failures.length}`);
  // The README says how many there are: the figure is checked here, so it cannot go stale as pages gain examples.
  const stated = /Today: (\d+) examples on (\d+) pages and (\d+) in `--help`, (\d+) run, (\d+) listed as not runnable here\./.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  const counted = `Today: ${onPages.length} examples on ${pages.length} pages and ${inHelp.length} in \`--help\`, ${ran} run, ${notRunnable} listed as not runnable here.`;
  if (stated?.[0] !== counted) failures.push(`README.md: its "How the examples are checked" says ${stated ? `"${stated[0]}"` : 'no "Today: N examples on P pages and H in `--help`, R run, L listed as not runnable here."'}; write "${counted}"`);
  expect(failures.length, `${failures.length} problems with the documented examples, in reading order (a failure can follow from an earlier one's):\n\n${failures.join('\n\n')}\n`).toBe(0);
}, 900_000);

it('the examples as the runner takes them from a page: continuations joined, a heredoc whole, console lines after `$ `, `# exit N`, other fences skipped; a docs page README links nowhere is named', () => {
  const page = [
    '```sh',
    'dpgw a \\',
    '  --flag   # exit 7',
    '',
    '# a comment line',
    "cat > f.yaml <<'EOF'",
    'x: 1',
    'EOF',
    'dpgw b   # the exit 2 of another command',
    '```',
    '```yaml',
    'dpgw: not a command',
    '```',
    '```console',
    '$ dpgw c   # exit 6',
    'output line',
    '```',
    '```text',
    'dpgw synopsis [--x]',
    '```',
  ].join('\n');
  expect(examplesOf('p.md', page)).toEqual([
    { page: 'p.md', line: 2, text: 'dpgw a \\\n  --flag   # exit 7', expectedExit: 7 },
    { page: 'p.md', line: 6, text: "cat > f.yaml <<'EOF'\nx: 1\nEOF", expectedExit: 0 },
    { page: 'p.md', line: 9, text: 'dpgw b   # the exit 2 of another command', expectedExit: 0 },
    { page: 'p.md', line: 15, text: 'dpgw c   # exit 6', expectedExit: 6 },
  ]);
  const root = mkdtempSync(join(tmpdir(), 'dpgw-pages-'));
  folders.push(root);
  mkdirSync(join(root, 'docs'));
  for (const name of ['a.md', 'b.md', 'lost.md']) writeFileSync(join(root, 'docs', name), '');
  writeFileSync(join(root, 'README.md'), 'see [b](docs/b.md#x), then [a](docs/a.md) and [b again](docs/b.md)');
  expect(readingOrder(root)).toEqual({ pages: ['README.md', 'docs/b.md', 'docs/a.md'], unreached: ['docs/lost.md'] });
});
