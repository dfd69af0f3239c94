/** `dpgw sandbox` as a user runs it: starts, prints what to use, writes a profile, stops on Ctrl-C. */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { call } from '../helpers/sandbox-http.js';

interface Running {
  ready: Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the JSON document printed
  stop(): Promise<{ code: number | null; stderr: string }>;
}

function startSandboxProcess(args: string[], env: NodeJS.ProcessEnv, command: string[] = [process.execPath, BIN]): Running & { pid: number } {
  const child = spawn(command[0]!, [...command.slice(1), 'sandbox', '--json', '--port', '0', '--auth-port', '0', '--query-port', '0', '--dashboard-port', '0', '--stream-port', '0', ...args], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      try {
        resolve(JSON.parse(stdout));
      } catch {
        // not complete yet
      }
    });
    void exited.then((code) => reject(new Error(`sandbox exited ${code}: ${stderr}`)));
  });
  return {
    pid: child.pid!,
    ready,
    stop: async () => {
      child.kill('SIGINT');
      return { code: await exited, stderr };
    },
  };
}

describe('dpgw sandbox', () => {
  it('runs the platform, prints the settings as one JSON document, writes a profile, and stops on SIGINT', async () => {
    const env = cleanEnv();
    const sandbox = startSandboxProcess(['--write-profile', 'local', '--platform-version', '1.15.100', '--down', 'mq.connection', 'v1audit'], env);
    try {
      const settings = await sandbox.ready;
      expect(settings.gateway).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(settings.platformVersion).toBe('1.15.100');
      expect(settings.users.map((u: { username: string }) => u.username)).toEqual(['admin', 'analyst', 'outsider']);
      const health = await call('GET', `${settings.gateway}/api/health`);
      expect(health.status).toBe(503);
      expect(health.body.components.mq.components.connection.status).toBe('DOWN');
      expect(health.body.components.v1audit.status).toBe('DOWN');
      expect(health.body.components.gateway.status).toBe('UP');
      const admin = settings.users[0];
      const token = await call('POST', `${settings.authUrl}/auth/realms/${settings.realm}/protocol/openid-connect/token`, {
        form: new URLSearchParams({ username: admin.username, password: admin.password, client_id: settings.clientId, client_secret: settings.clientSecret, scope: 'openid', grant_type: 'password' }),
      });
      expect(token.status).toBe(200);

      const config = readFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), 'utf8');
      expect(config).toContain(`gateway: ${settings.gateway}`);
      expect(config).not.toContain(settings.clientSecret);
      const secretFile = join(env.DPGW_CONFIG_DIR!, 'sandbox', 'local-client-secret');
      expect(readFileSync(secretFile, 'utf8').trim()).toBe(settings.clientSecret);
      expect(statSync(secretFile).mode & 0o777).toBe(0o600);
      const shown = await spawnDpgw(['config', '--json', '--profile', 'local'], { env });
      expect(JSON.parse(shown.stdout).settings.clientSecret.value).toBe(`file:${secretFile}`);
      // The written profile is current, as `dpgw config use local` makes it: no --profile needed after.
      expect(config).toContain('currentProfile: local');
      const current = await spawnDpgw(['config', '--json'], { env });
      expect(JSON.parse(current.stdout)).toMatchObject({ profile: 'local', settings: { gateway: { value: settings.gateway } } });
    } finally {
      const { code, stderr } = await sandbox.stop();
      expect(code).toBe(0);
      expect(stderr).toContain('sandbox stopped');
    }
  });

  it("serves a message stream: the written profile names it, and docs/schema-infer.md's sandbox example runs as written", async () => {
    const env = cleanEnv();
    const sandbox = startSandboxProcess(['--write-profile', 'sandbox', '--topic-delay', '0'], env);
    try {
      const settings = await sandbox.ready;
      expect(settings.stream).toMatchObject({ brokerList: expect.stringMatching(/^127\.0\.0\.1:\d+$/), user: 'dpgw-stream' });
      const config = readFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), 'utf8');
      expect(config).toContain(`brokerList: ${settings.stream.brokerList}`);
      expect(config).not.toContain(settings.stream.password);
      const admin = settings.users.find((u: { username: string }) => u.username === 'admin');
      expect((await spawnDpgw(['login', '--profile', 'sandbox', '--password-stdin'], { env, input: `${admin.password}\n` })).code).toBe(0);
      expect((await spawnDpgw(['--profile', 'sandbox', 'enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', 'track-readers'], { env })).code).toBe(0);
      // docs/schema-infer.md, "On the sandbox", word for word.
      const checked = await spawnDpgw('--profile sandbox schema infer --dataset track --check examples/track/schema.yaml'.split(' '), { env });
      expect([checked.code, checked.stdout + checked.stderr]).toEqual([0, expect.stringContaining('✓ 200 messages fit examples/track/schema.yaml')]);
    } finally {
      expect((await sandbox.stop()).code).toBe(0);
    }
  });

  it("examples/track's two manifests, as the README runs them: the verified one, then the plain one again: nothing to change (exit 0) either way", async () => {
    const env = cleanEnv();
    const sandbox = startSandboxProcess(['--write-profile', 'sandbox', '--topic-delay', '0'], env);
    try {
      const settings = await sandbox.ready;
      // The profiles it wrote, each signed in as its user (the manifest's verify: names sandbox-analyst and sandbox-outsider).
      for (const user of settings.users as Array<{ profile: string; password: string }>) {
        const login = await spawnDpgw(['login', '--profile', user.profile, '--password-stdin'], { env, input: `${user.password}\n` });
        expect(login.code, login.stderr).toBe(0);
      }
      const verified = await spawnDpgw(['provision', 'examples/track/provision-verified.yaml'], { env });
      expect(verified.code, verified.stderr).toBe(0);
      expect(verified.stdout).toMatch(/^track .* passed +done/m);
      for (const manifest of ['examples/track/provision.yaml', 'examples/track/provision-verified.yaml']) {
        const again = await spawnDpgw(['provision', manifest, '--detailed-exitcode'], { env });
        expect([again.code, again.stderr], manifest).toEqual([0, expect.not.stringContaining('dpgw.manifest')]);
      }
    } finally {
      expect((await sandbox.stop()).code).toBe(0);
    }
  });

  it('takes users and passwords from a users file', async () => {
    const env = cleanEnv();
    const file = join(env.DPGW_CONFIG_DIR!, 'users.yaml');
    writeFileSync(file, 'users:\n  - { username: ops, password: ops-password-1, groups: [platform-admins] }\n  - { username: reader, password: reader-password-1, groups: [track-readers] }\nclients:\n  - { clientId: pipeline, secret: pipeline-secret-1 }\n');
    const sandbox = startSandboxProcess(['--users', file, '--write-profile', 'sandbox'], env);
    try {
      const settings = await sandbox.ready;
      // The README's `--users users.yaml --write-profile sandbox`: the profile named so provisions, as the admin group's user.
      expect(settings.users).toEqual([
        { username: 'ops', password: 'ops-password-1', groups: ['platform-admins'], profile: 'sandbox' },
        { username: 'reader', password: 'reader-password-1', groups: ['track-readers'], profile: 'sandbox-reader' },
      ]);
      expect(settings.profile).toBe('sandbox');
      const written = await spawnDpgw(['config', '--profile', 'sandbox', '--json'], { env });
      expect(JSON.parse(written.stdout).settings.username).toMatchObject({ value: 'ops' });
      expect(settings.clientId).toBe('pipeline');
      expect(settings.clientSecret).toBe('pipeline-secret-1');
    } finally {
      expect((await sandbox.stop()).code).toBe(0);
    }
  });

  it('prints settings for this shell that work when pasted: the users file\'s admin, its client secret quoted, the stream password read from the file it wrote', async () => {
    const env = cleanEnv();
    const file = join(env.DPGW_CONFIG_DIR!, 'users.yaml');
    // The admin is not the first user, and the secret holds what a shell would take apart.
    writeFileSync(file, 'users:\n  - { username: reader, password: reader-password-1, groups: [track-readers] }\n  - { username: ops, password: ops-password-1, groups: [platform-admins] }\nclients:\n  - { clientId: pipeline, secret: "it\'s a $HOME `secret`", directAccessGrants: true }\n');
    const child = spawn(process.execPath, [BIN, 'sandbox', '--users', file, '--port', '0', '--auth-port', '0', '--query-port', '0', '--dashboard-port', '0', '--stream-port', '0'], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const stdout = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('export DPGW_DASHBOARD_PASSWORD\n')) resolve(text);
        });
        void exited.then((code) => reject(new Error(`sandbox exited ${code}: ${text}`)));
      });
      expect(stdout).not.toContain('***');
      const lines = stdout.slice(stdout.indexOf('settings for this shell:')).split('\n').slice(1).filter((line) => line.trim() !== '');
      expect(lines).toHaveLength(7);
      // The users file brings its own clients: the sandbox's service-account and device clients are not there, nor said to be.
      expect(stdout).not.toMatch(/service account|device sign-in/);
      const pasted = await new Promise<string>((resolve, reject) =>
        execFile('sh', ['-c', `${lines.join('\n')}\nenv`], { env: { PATH: process.env.PATH, HOME: '/nowhere' } }, (error, out) => (error ? reject(error) : resolve(out))),
      );
      const shellEnv = Object.fromEntries(pasted.split('\n').filter((line) => line.startsWith('DPGW_')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
      const streamPasswordFile = join(env.DPGW_CONFIG_DIR!, 'sandbox', 'stream-password');
      expect(statSync(streamPasswordFile).mode & 0o777).toBe(0o600);
      expect(shellEnv).toMatchObject({ DPGW_USERNAME: 'ops', DPGW_CLIENT_ID: 'pipeline', DPGW_CLIENT_SECRET: "it's a $HOME `secret`", DPGW_STREAM_USER: 'dpgw-stream', DPGW_STREAM_PASSWORD: readFileSync(streamPasswordFile, 'utf8').trim() });
      expect(shellEnv.DPGW_STREAM_PASSWORD).toMatch(/^[\w-]{16,}$/);
      expect(shellEnv).toMatchObject({ DPGW_DASHBOARD_USER: 'ops', DPGW_DASHBOARD_PASSWORD: 'ops-password-1', DPGW_QUERY_CATALOG: 'pinot' });
      // Every command the profile would serve works from the pasted lines: the access-control file too.
      const render = await spawnDpgw(['access-control', 'render'], { env: { ...cleanEnv(), ...shellEnv } });
      expect(render.code, render.stderr).toBe(0);
      expect(render.stdout).toContain(`opa.policy.uri=${shellEnv.DPGW_POLICY_URI}`);
      // The pasted settings sign in: gateway, identity, realm, client and its secret, user.
      const login = await spawnDpgw(['login', '--password-stdin'], { env: { ...cleanEnv(), ...shellEnv }, input: 'ops-password-1\n' });
      expect(login.stderr).toContain('signed in to realm data-platform as ops');
      expect(login.code).toBe(0);
    } finally {
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    }
  });

  it('reports a bad users file, a bad port and a port in use in one line', async () => {
    const env = cleanEnv();
    const file = join(env.DPGW_CONFIG_DIR!, 'users.yaml');
    writeFileSync(file, 'users:\n  - { username: ops }\n');
    const badFile = await spawnDpgw(['sandbox', '--users', file, '--port', '0', '--auth-port', '0', '--query-port', '0', '--dashboard-port', '0', '--stream-port', '0'], { env });
    expect(badFile.code).toBe(2);
    expect(badFile.stderr).toBe(`dpgw: --users: ${file}: users[0] needs username and password — see README "Sandbox" for the users file format\n`);
    const badPort = await spawnDpgw(['sandbox', '--port', 'http'], { env });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('--port: "http" is not a port number from 0 to 65535');

    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as { port: number }).port;
      const inUse = await spawnDpgw(['sandbox', '--port', String(port), '--auth-port', '0', '--query-port', '0', '--dashboard-port', '0', '--stream-port', '0'], { env });
      expect(inUse.code).toBe(1);
      expect(inUse.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(inUse.stderr).toContain('in use');
    } finally {
      blocker.close();
    }
  });
});

describe('the installed command', () => {
  it("runs through npm's link in a bin directory with the V8 flags of its #! line", async () => {
    // npm installs a command on Linux and macOS as a symbolic link in a bin directory on PATH.
    const binDir = mkdtempSync(join(tmpdir(), 'dpgw-bin-'));
    symlinkSync(BIN, join(binDir, 'dpgw'));
    const env = cleanEnv({ PATH: `${binDir}${delimiter}${dirname(process.execPath)}${delimiter}${process.env.PATH}` });
    const running = startSandboxProcess([], env, ['dpgw']);
    try {
      await running.ready;
      // The #!/bin/sh line's shell replaced itself with node (exec): the process is node, started with the flags.
      const argv = readFileSync(`/proc/${running.pid}/cmdline`, 'utf8').split('\0');
      expect(argv).toEqual(expect.arrayContaining(['--max-semi-space-size=2', '--max-old-space-size=1024']));
      expect(argv.some((arg) => arg.endsWith(join('bin', 'dpgw')) || arg.endsWith('dpgw'))).toBe(true);
    } finally {
      expect((await running.stop()).code).toBe(0);
    }
  });
});
