// npm start: the contract's workflow on the embedded sandbox. Starts `dpgw sandbox`,
// renders and checks the query engine's access-control.properties (step 1), signs in,
// provisions the track data set with `dpgw provision` (steps 2–6: the stream checked
// before the table, the table consuming every partition after it), runs it again to
// show it changes nothing, infers the track schema from the topic and checks it
// against the example schema, shows a wrong stream password refused before any table
// is sent, then proves steps 7 and 8 in the query engine: the analyst
// sees the table and gets rows, the outsider sees nothing and is denied. Any failing
// step fails the run; the sandbox is stopped at the end.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInOrder } from './ordered-output.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'dpgw');
const configDir = mkdtempSync(join(tmpdir(), 'dpgw-start-'));
// Settings and the token cache both in the temporary folder: the tour leaves no session in the user's own cache.
const env = { ...process.env, DPGW_CONFIG_DIR: configDir, XDG_CACHE_HOME: configDir, DPGW_PROFILE: 'sandbox' };
for (const key of Object.keys(env)) if (key.startsWith('DPGW_') && !['DPGW_CONFIG_DIR', 'DPGW_PROFILE'].includes(key)) delete env[key];

const say = (text) => process.stdout.write(`${text}\n`);

function startSandbox() {
  const child = spawn(process.execPath, [bin, 'sandbox', '--json', '--port', '0', '--auth-port', '0', '--query-port', '0', '--dashboard-port', '0', '--stream-port', '0', '--topic-delay', '300', '--write-profile', 'sandbox'], { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  // The sandbox's messages (e.g. "sandbox stopped") join the tour's stream, in order, rather than racing it on stderr.
  child.stderr.setEncoding('utf8').on('data', (chunk) => process.stdout.write(chunk));
  // 'close', not 'exit': its last words ("sandbox stopped") are read before the tour's own last line.
  const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  const ready = new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
      try {
        resolve(JSON.parse(stdout));
      } catch {
        // not complete yet
      }
    });
    exited.then((code) => reject(new Error(`dpgw sandbox exited with ${code} before it was ready`)));
  });
  return { ready, stop: () => (child.kill('SIGINT'), exited) };
}

// Each command's stdout and stderr go to our stdout as one sequence of lines, in the order written.
function dpgw(args, input, extraEnv = {}) {
  return runInOrder(process.execPath, [bin, ...args], { env: { ...env, ...extraEnv }, cwd: root, input }, (line) => say(line));
}

const sandbox = startSandbox();
let failed = false;
try {
  const settings = await sandbox.ready;
  const user = (name) => settings.users.find((u) => u.username === name);
  const accessControlFile = join(configDir, 'access-control.properties');
  say(`sandbox: gateway ${settings.gateway}, identity ${settings.authUrl}/auth/realms/${settings.realm}, message stream ${settings.stream.brokerList}, query engine ${settings.queryEngine}, dashboard tool ${settings.dashboardUrl}, platform ${settings.platformVersion}\n`);
  const steps = [
    { title: 'platform health', args: ['health', 'v2catalog'] },
    { title: "step 1: the query engine's access-control.properties, delegating to the policy engine", args: ['access-control', 'render', '-o', accessControlFile] },
    { title: 'step 1: check it as an operator would before installing it', args: ['access-control', 'check', accessControlFile] },
    { title: 'sign in as admin (the token of step 3)', args: ['login', '--password-stdin'], input: `${user('admin').password}\n` },
    { title: 'provision the track data set: enable → stream check → schema → table → storage touch → consuming', args: ['provision', 'examples/track/provision.yaml'] },
    { title: 'run it again: safe to re-run, nothing to change', args: ['provision', 'examples/track/provision.yaml', '--detailed-exitcode'] },
    { title: "the track schema inferred from the topic's messages, checked against the example schema", args: ['schema', 'infer', '--dataset', 'track', '--check', 'examples/track/schema.yaml'] },
    // A table of another name: one the store holds is compared first, and a wrong password is then a difference (exit 2), not a refusal of the brokers.
    { title: 'a wrong stream password: refused by the brokers before the table is sent (exit 4 expected)', args: ['table', 'create', '--dataset', 'track', '--schema', 'examples/track/schema.yaml', '--name', 'track_check', '--stream-password', 'env:WRONG_STREAM_PASSWORD'], env: { WRONG_STREAM_PASSWORD: 'not-the-stream-password' }, exitCode: 4 },
    { title: 'the catalog: what is enabled, in which enablement, for which groups, with which topic and storages', args: ['catalog', 'datasets'] },
    { title: 'the track data set in full, and whether its table exists', args: ['catalog', 'show', 'track'] },
    { title: 'the table as the analytics store holds it (stream password masked)', args: ['table', 'get', 'track'] },
    { title: 'sign in as analyst, a member of the enablement group track-readers', args: ['login', '--profile', user('analyst').profile, '--password-stdin'], input: `${user('analyst').password}\n` },
    { title: 'step 7: the analyst sees schema default and the table, and gets rows', args: ['verify', '--dataset', 'track', '--profile', user('analyst').profile] },
    { title: 'sign in as outsider, in none of the groups', args: ['login', '--profile', user('outsider').profile, '--password-stdin'], input: `${user('outsider').password}\n` },
    { title: 'step 8: the outsider sees no schema and no table, and the SELECT is denied', args: ['verify', '--dataset', 'track', '--expect', 'hidden', '--profile', user('outsider').profile] },
    { title: 'step 9: the analyst maps the table (lon, lat) on a dashboard in the dashboard tool', args: ['dashboard', '--dataset', 'track', '--dashboard', 'Tracks', '--profile', user('analyst').profile] },
    { title: 'step 9, refused: the outsider cannot, and nothing is created (exit 3 expected)', args: ['dashboard', '--dataset', 'track', '--dashboard', 'Tracks', '--profile', user('outsider').profile], exitCode: 3 },
  ];
  for (const step of steps) {
    say(`── ${step.title}\n$ dpgw ${step.args.join(' ')}`);
    const result = await dpgw(step.args, step.input, step.env);
    if (result.code !== (step.exitCode ?? 0)) {
      say(`   failed with exit code ${result.code}\n`);
      failed = true;
      break;
    }
    say('');
  }
} catch (error) {
  say(`npm start: ${error.message}`);
  failed = true;
} finally {
  await sandbox.stop();
  rmSync(configDir, { recursive: true, force: true });
}
say(failed ? 'npm start: the run failed' : 'npm start: done; the sandbox is stopped');
process.exitCode = failed ? 1 : 0;
