// The real policy engine for the end-to-end tier: Open Policy Agent, built once from
// the Go module proxy into ~/.cache/dpgw/opa-<version>/bin, run as a server on
// 127.0.0.1 with dpgw's query-access policy (templates/opa/query-access.rego) loaded
// and telemetry off. The query engine asks it; the platform writes grants into its data.
//
//   node scripts/platform/opa.mjs start    # prints the settings as JSON; stays in front
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runToEnd, runUntilReady, serveInFront } from './component-process.mjs';

export const OPA_VERSION = process.env.DPGW_OPA_VERSION ?? '1.22.2';
export const QUERY_ACCESS_POLICY = fileURLToPath(new URL('../../templates/opa/query-access.rego', import.meta.url));
/** Where Trino's OPA access control asks, relative to the server: one decision, and a batch of filter decisions. */
export const POLICY_PATHS = { allow: '/v1/data/dpgw/query_access/allow', batch: '/v1/data/dpgw/query_access/batch' };
const READY_TIMEOUT_MS = Number(process.env.DPGW_OPA_READY_TIMEOUT_MS ?? 60_000);

/** Builds the opa binary (once) with `go install`; returns its path. */
export async function opaBinary(version = OPA_VERSION) {
  const bin = join(homedir(), '.cache', 'dpgw', `opa-${version}`, 'bin');
  const opa = join(bin, 'opa');
  if (existsSync(opa)) return opa;
  mkdirSync(bin, { recursive: true });
  const go = await runToEnd('go', ['install', `github.com/open-policy-agent/opa@v${version}`], { env: { ...process.env, GOBIN: bin, GOFLAGS: '-buildvcs=false' } });
  if (go.status !== 0 || !existsSync(opa)) throw new Error(`go install of OPA ${version} failed: ${go.stderr}`);
  return opa;
}

/** Starts OPA with the query-access policy and the given data; returns its URL, the policy URLs and a stop function. */
export async function startOpa({ port = 18181, settings = { catalog: 'pinot' } } = {}) {
  const opa = await opaBinary();
  const dir = mkdtempSync(join(tmpdir(), 'dpgw-opa-'));
  const log = join(dir, 'opa.log');
  const url = `http://127.0.0.1:${port}`;
  const { stop, startSeconds } = await runUntilReady({
    name: `OPA ${OPA_VERSION}`,
    command: opa,
    args: ['run', '--server', '--addr', `127.0.0.1:${port}`, '--disable-telemetry', '--log-level', 'error', QUERY_ACCESS_POLICY],
    cwd: dir,
    log,
    timeoutMs: READY_TIMEOUT_MS,
    ready: async () => (await fetch(`${url}/health`)).ok,
    intervalMs: 200,
  });
  // The settings the policy reads, and no grants yet: the platform writes those.
  const put = async (path, value) => {
    const response = await fetch(`${url}/v1/data/dpgw/${path}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
    if (!response.ok) throw new Error(`OPA refused PUT ${path}: ${response.status} ${await response.text()}`);
  };
  await put('settings', settings);
  await put('grants', {});
  return { url, policyUri: `${url}${POLICY_PATHS.allow}`, batchedPolicyUri: `${url}${POLICY_PATHS.batch}`, version: OPA_VERSION, log, startSeconds, stop };
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === 'start') {
  await serveInFront(`OPA ${OPA_VERSION}`, () => startOpa({ port: Number(process.env.DPGW_OPA_PORT ?? 18181) }));
}
