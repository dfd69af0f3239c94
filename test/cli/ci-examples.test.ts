/**
 * The CI examples of docs/ci.md, run as their runner runs them: the plan step's command
 * of examples/ci/github-actions.yml and of examples/ci/gitlab-ci.yml, in `sh`, with `dpgw`
 * on the PATH, signed in as the sandbox's service account the examples name.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
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
  jobs: Record<string, { env: Record<string, string>; steps: Array<{ id?: string; run?: string }> }>;
}

/** The command of the GitHub workflow's plan step, and of the GitLab plan job's script after its install line. */
function planCommands(): { github: string; gitlab: string; workflowEnv: Record<string, string> } {
  const workflow = parse(readFileSync(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8')) as GithubWorkflow;
  const job = Object.values(workflow.jobs)[0]!;
  const gitlab = parse(readFileSync(join(ROOT, 'examples/ci/gitlab-ci.yml'), 'utf8')) as Record<string, { script: string[] }>;
  return { github: job.steps.find((step) => step.id === 'plan')!.run!, gitlab: gitlab['provision:plan']!.script.filter((line) => !line.startsWith('npm install'))[0]!, workflowEnv: job.env };
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
  });

  it('the GitLab plan job passes with changes to make', async () => {
    const { workspace, run } = await setUp();
    writeFileSync(join(workspace, 'provision.yaml'), `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: track } }\n`);
    const planned = await run(planCommands().gitlab);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('1 data set to change');
  });
});
