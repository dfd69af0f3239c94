// npm start: the main job on the embedded sandbox. Starts `dpgw sandbox`, signs in,
// provisions the contract's track data set with `dpgw provision`, runs it again to
// show it changes nothing, prints what happened, and stops the sandbox. Any failing
// step fails the run.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'dpgw');
const configDir = mkdtempSync(join(tmpdir(), 'dpgw-start-'));
const env = { ...process.env, DPGW_CONFIG_DIR: configDir, DPGW_PROFILE: 'sandbox' };
for (const key of Object.keys(env)) if (key.startsWith('DPGW_') && !['DPGW_CONFIG_DIR', 'DPGW_PROFILE'].includes(key)) delete env[key];

const say = (text) => process.stdout.write(`${text}\n`);

function startSandbox() {
  const child = spawn(process.execPath, [bin, 'sandbox', '--json', '--port', '0', '--auth-port', '0', '--topic-delay', '300', '--write-profile', 'sandbox'], { env, cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
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

function dpgw(args, input) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env, cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

const sandbox = startSandbox();
let failed = false;
try {
  const settings = await sandbox.ready;
  const admin = settings.users.find((u) => u.username === 'admin');
  say(`sandbox: gateway ${settings.gateway}, identity ${settings.authUrl}/auth/realms/${settings.realm}, platform ${settings.platformVersion}\n`);
  const steps = [
    { title: 'platform health', args: ['health', 'v2catalog'] },
    { title: 'sign in as admin (the token of step 3)', args: ['login', '--password-stdin'], input: `${admin.password}\n` },
    { title: 'provision the track data set: enable → schema → table → storage touch', args: ['provision', 'examples/track/provision.yaml'] },
    { title: 'run it again: safe to re-run, nothing to change', args: ['provision', 'examples/track/provision.yaml', '--detailed-exitcode'] },
    { title: 'the table definition that was sent (stream password masked)', args: ['table', 'render', '--dataset', 'track', '--schema', 'examples/track/schema.yaml'] },
  ];
  for (const step of steps) {
    say(`── ${step.title}\n$ dpgw ${step.args.join(' ')}`);
    const result = await dpgw(step.args, step.input);
    if (result.stdout) say(result.stdout.trimEnd());
    if (result.stderr) say(result.stderr.trimEnd());
    if (result.code !== 0) {
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
