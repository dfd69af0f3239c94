/**
 * The CI examples of docs/ci.md, run as their runner runs them: the plan step's command
 * of examples/ci/github-actions.yml and of examples/ci/gitlab-ci.yml, in `sh`, with `dpgw`
 * on the PATH, signed in as the sandbox's service account the examples name.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SERVICE_ACCOUNT_CLIENT_ID, TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { BIN, cleanEnv, ROOT } from '../helpers/run-dpgw.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchemaBeside } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

interface GithubWorkflow {
  jobs: Record<string, { env: Record<string, string>; steps: Array<{ id?: string; run?: string; env?: Record<string, string> }> }>;
}

/** The command of the GitHub workflow's plan step, and of the GitLab plan job's script after its install line. */
function planCommands(): { github: string; gitlab: string; workflowEnv: Record<string, string> } {
  const workflow = parse(readFileSync(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8')) as GithubWorkflow;
  const job = Object.values(workflow.jobs)[0]!;
  const gitlab = parse(readFileSync(join(ROOT, 'examples/ci/gitlab-ci.yml'), 'utf8')) as Record<string, { script: string[] }>;
  return { github: job.steps.find((step) => step.id === 'plan')!.run!, gitlab: gitlab['provision:plan']!.script[0]!, workflowEnv: job.env };
}

async function setUp() {
  const sandbox = await sandboxes.start();
  const ci = sandbox.clients.find((c) => c.clientId === SERVICE_ACCOUNT_CLIENT_ID)!;
  const workspace = mkdtempSync(join(tmpdir(), 'dpgw-ci-'));
  trackSchemaBeside(workspace);
  // `npm install --global dpgw` puts `dpgw` on the PATH: here, a link to this build.
  const bin = mkdtempSync(join(tmpdir(), 'dpgw-bin-'));
  symlinkSync(BIN, join(bin, 'dpgw'));
  const { workflowEnv } = planCommands();
  // The workflow's own env, its ${{ vars / secrets }} filled as the repository would.
  const filled: Record<string, string> = {
    DPGW_GATEWAY: sandbox.gatewayUrl,
    DPGW_AUTH_URL: sandbox.authUrl,
    DPGW_REALM: sandbox.realm,
    DPGW_CLIENT_SECRET: ci.secret,
    DPGW_BROKER_LIST: sandbox.stream.brokerList,
    DPGW_REGISTRY_URL: sandbox.stream.registryUrl,
    DPGW_STREAM_USER: sandbox.stream.user,
    DPGW_STREAM_PASSWORD: sandbox.stream.password,
  };
  const env = { ...cleanEnv(), ...Object.fromEntries(Object.entries(workflowEnv).map(([name, value]) => [name, value.includes('${{') ? filled[name]! : value])), PATH: `${bin}:${process.env.PATH}` };
  const run = (command: string, extra: NodeJS.ProcessEnv = {}) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile('sh', ['-c', command], { cwd: workspace, env: { ...env, ...extra } }, (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })),
    );
  return { sandbox, workspace, env, run };
}

describe('the CI examples, as their runners run them', () => {
  it('the GitHub plan step passes with changes to make (exit 7 is fine), writes the summary and outputs, and fails on a refused schema', async () => {
    const { workspace, run } = await setUp();
    writeFileSync(join(workspace, 'provision.yaml'), `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: track } }\n`);
    const github = { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace, GITHUB_STEP_SUMMARY: join(workspace, 'summary.md'), GITHUB_OUTPUT: join(workspace, 'output.txt') };
    const { github: command } = planCommands();
    const planned = await run(command, github);
    expect(planned.code, planned.stderr).toBe(0);
    expect(readFileSync(github.GITHUB_OUTPUT, 'utf8')).toContain('exit-code=7');
    expect(readFileSync(github.GITHUB_STEP_SUMMARY, 'utf8')).toMatch(/^\| track \| create \|/m);
    // The service account signed in by itself: no login step, no password.
    expect(planned.stderr).toContain('signed in as service-account-dpgw-ci');

    // Apply, then a manifest whose schema drops a column the store holds: the plan step fails.
    expect((await run('dpgw provision provision.yaml', github)).code).toBe(0);
    const schema = readFileSync(join(workspace, 'track-schema.yaml'), 'utf8');
    writeFileSync(join(workspace, 'track-schema.yaml'), schema.replace(/ {2}- \{ name: alt, dataType: DOUBLE \}\n|\n {2}- name: alt\n {4}dataType: DOUBLE/, ''));
    const refused = await run(command, github);
    expect(refused.code).not.toBe(0);
    expect(readFileSync(github.GITHUB_OUTPUT, 'utf8')).toContain('exit-code=2');
    // The summary says why under its table: the pull request's reader needs no log.
    expect(readFileSync(github.GITHUB_STEP_SUMMARY, 'utf8')).toMatch(/^- \*\*track\*\* — schema \(refused\): .*alt/m);
  });

  it('the GitLab plan job passes with changes to make', async () => {
    const { workspace, run } = await setUp();
    writeFileSync(join(workspace, 'provision.yaml'), `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: track } }\n`);
    const planned = await run(planCommands().gitlab);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('1 data set to change');
  });
});

/** The install step of each example: the GitHub step `install` (bash -e, as the runner runs `run:`), and the GitLab jobs' shared before_script (one line after another, stopping at the first that fails). */
function installCommands(): { github: string; gitlab: string; gitlabJobsExtend: boolean } {
  const workflow = parse(readFileSync(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8')) as GithubWorkflow;
  const install = Object.values(workflow.jobs)[0]!.steps.find((step) => step.id === 'install')!;
  const gitlab = parse(readFileSync(join(ROOT, 'examples/ci/gitlab-ci.yml'), 'utf8')) as Record<string, { before_script?: string[]; extends?: string; script?: string[] }>;
  const jobs = Object.entries(gitlab).filter(([name]) => !name.startsWith('.'));
  return {
    github: install.run!,
    gitlab: gitlab['.install-dpgw']!.before_script!.join('\n'),
    gitlabJobsExtend: jobs.length === 2 && jobs.every(([, job]) => job.extends === '.install-dpgw' && !job.script!.some((line) => /npm (i|install)\b/.test(line))),
  };
}

describe('installing dpgw in the job: a pinned tarball, checked before it runs', () => {
  it('installs the tarball whose SHA-256 the variables pin, and refuses one that differs before npm sees it', async () => {
    // The organisation's copy of the packed dpgw, served over HTTPS (the step takes nothing else) with a private CA.
    const dir = mkdtempSync(join(tmpdir(), 'dpgw-package-'));
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    // This build, packed as `npm pack` packs it (the suite built dist/ already).
    const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--loglevel', 'error', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', env: cleanEnv() })) as Array<{ filename: string }>;
    const tarball = readFileSync(join(dir, packed[0]!.filename));
    const server = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (request, response) => {
      if (request.url === '/dpgw.tgz') response.end(tarball);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/dpgw.tgz`;
      const sha256 = createHash('sha256').update(tarball).digest('hex');
      const { github, gitlab, gitlabJobsExtend } = installCommands();
      expect(gitlabJobsExtend).toBe(true);
      // Run without blocking: the server answering the download is in this process.
      const install = async (shell: readonly string[], command: string, pinned: string) => {
        const prefix = mkdtempSync(join(tmpdir(), 'dpgw-global-'));
        const env = { ...cleanEnv(), RUNNER_TEMP: mkdtempSync(join(tmpdir(), 'dpgw-runner-')), DPGW_PACKAGE_URL: url, DPGW_PACKAGE_SHA256: pinned, CURL_CA_BUNDLE: join(dir, 'cert.pem'), npm_config_prefix: prefix, npm_config_offline: 'true' };
        const ran = await new Promise<{ code: number; output: string }>((resolve) =>
          execFile(shell[0]!, [...shell.slice(1), command], { env }, (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr })),
        );
        return { ...ran, installed: existsSync(join(prefix, 'bin', 'dpgw')) ? join(prefix, 'bin', 'dpgw') : undefined };
      };
      for (const [shell, command] of [[['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c'], github], [['sh', '-ec'], gitlab]] as const) {
        const good = await install(shell, command, sha256);
        expect(good.code, good.output).toBe(0);
        expect(execFileSync(good.installed!, ['--version'], { encoding: 'utf8', env: cleanEnv() }).trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
        // Any other tarball at that URL (a new release, or someone else's) fails the step, and nothing is installed.
        const other = await install(shell, command, createHash('sha256').update('another package').digest('hex'));
        expect(other.code).not.toBe(0);
        expect(other.output).toMatch(/FAILED/);
        expect(other.installed).toBeUndefined();
      }
    } finally {
      server.close();
    }
  }, 60_000);
});

/**
 * The end of life of each Node release line (github.com/nodejs/Release, schedule.json):
 * even releases get 30 months of long-term support, odd ones about 8 months. A release not
 * listed here fails the test below until its date is added.
 */
const NODE_END_OF_LIFE: Record<number, string> = {
  18: '2025-04-30',
  19: '2023-06-01',
  20: '2026-04-30',
  21: '2024-06-01',
  22: '2027-04-30',
  23: '2025-06-01',
  24: '2028-04-30',
  25: '2026-06-01',
  26: '2029-04-30',
};

/** Every Node release a CI file or a YAML/shell example sets up: setup-node's node-version, a node image, npm's node@N. */
function nodeReleasesNamed(text: string): number[] {
  const patterns = [/node-version:\s*['"]?(\d+)/g, /image:\s*['"]?node:(\d+)/g, /FROM\s+node:(\d+)/g, /\bnode@(\d+)/g];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => Number(match[1])));
}

/** The fenced YAML and shell blocks of a Markdown page. */
const fencedBlocks = (markdown: string) => [...markdown.matchAll(/^```(?:ya?ml|sh|bash|dockerfile)\n([\s\S]*?)^```/gm)].map((match) => match[1]!);

describe('the Node the CI examples set up, and what the README says dpgw supports', () => {
  it('every Node release an example sets up is in support today; the README names the engines floor and the releases CI runs', () => {
    const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
    const examples = readdirSync(join(ROOT, 'examples/ci')).map((name) => `examples/ci/${name}`);
    const named = [
      ...examples.map((file) => ({ file, releases: nodeReleasesNamed(readFileSync(join(ROOT, file), 'utf8')) })),
      ...pages.map((file) => ({ file, releases: fencedBlocks(readFileSync(join(ROOT, file), 'utf8')).flatMap(nodeReleasesNamed) })),
    ];
    // Each example file sets one up: a runner's default Node is whatever the image happens to hold.
    for (const file of examples) expect(named.find((entry) => entry.file === file)!.releases.length, file).toBeGreaterThan(0);
    const today = new Date().toISOString().slice(0, 10);
    const pastEnd = named.flatMap(({ file, releases }) => releases.filter((release) => !(NODE_END_OF_LIFE[release] && NODE_END_OF_LIFE[release] > today)).map((release) => `${file}: Node ${release} (end of life ${NODE_END_OF_LIFE[release] ?? 'not listed in this test'})`));
    expect(pastEnd).toEqual([]);

    // The README's Node paragraph: the floor package.json's engines declares, and every Node CI runs the suite on (.ci/run: this machine's, the floor's line, then node@N).
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const paragraph = readme.split('\n\n').find((block) => block.startsWith('**Node.js.**'));
    expect(paragraph, 'README.md: a paragraph starting **Node.js.**').toBeDefined();
    const floor = /^>=(\d+)\.(\d+)$/.exec((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node)!;
    expect(paragraph).toContain(`Node.js ${floor[1]}.${floor[2]} or newer`);
    const ciSentence = /CI \(`bash \.ci\/run`\) proves ([^.]*)\./.exec(paragraph!.replace(/\n/g, ' '))?.[1];
    for (const release of [Number(floor[1]), ...nodeReleasesNamed(readFileSync(join(ROOT, '.ci/run'), 'utf8'))]) expect(ciSentence, 'the README names each Node CI runs').toMatch(new RegExp(`Node ${release}\\b`));
    // A floor past its end of life is said to be so.
    if (NODE_END_OF_LIFE[Number(floor[1])]! <= today) expect(paragraph!.replace(/\n/g, ' ')).toMatch(new RegExp(`Node ${floor[1]} still, though it reached its end of life`));
  });
});
