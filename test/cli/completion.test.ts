/**
 * Tab completion as a bash user gets it: the script `dpgw completion bash` prints is
 * loaded into a real bash with dpgw on its PATH, and its completion function is called
 * the way bash calls it at a Tab (COMP_WORDS, COMP_CWORD → COMPREPLY).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { startSandbox, TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';

const bin = mkdtempSync(join(tmpdir(), 'dpgw-completion-bin-'));
symlinkSync(BIN, join(bin, 'dpgw'));

/** What bash offers after typing `line` (the words after the last space being completed) and pressing Tab. */
function tab(line: string, env: NodeJS.ProcessEnv = cleanEnv()): string[] {
  const words = line.split(' ');
  const script = [
    'eval "$(dpgw completion bash)"',
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_dpgw_complete',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const result = spawnSync('bash', ['--noprofile', '--norc', '-c', script], { env: { ...env, PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin` }, encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return result.stdout.split('\n').filter(Boolean);
}

/** tab(), without blocking this process: for a server (the sandbox) that runs in it. */
function tabWhileServing(line: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const words = line.split(' ');
  const script = ['eval "$(dpgw completion bash)"', `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`, `COMP_CWORD=${words.length - 1}`, '_dpgw_complete', 'printf "%s\\n" "${COMPREPLY[@]}"'].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-c', script], { env: { ...env, PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin` } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', () => (stderr === '' ? resolve(stdout.split('\n').filter(Boolean)) : reject(new Error(`a Tab wrote to stderr: ${stderr}`))));
  });
}

describe('dpgw completion bash, in bash', () => {
  it('completes commands, subcommands and options from the command tree', () => {
    expect(tab('dpgw sch')).toEqual(['schema']);
    expect(tab('dpgw schema ')).toEqual(['push', 'list', 'get', 'delete', 'validate', 'infer']);
    expect(tab('dpgw table create --da')).toEqual(['--dataset']);
    expect(tab('dpgw table create --dr')).toEqual(['--dry-run']);
    // Global options too, after the command's own.
    expect(tab('dpgw health --js')).toEqual(['--json']);
  });

  it("completes an option's choices and the profiles of config.yaml", () => {
    expect(tab('dpgw verify --expect ')).toEqual(['visible', 'hidden']);
    const env = cleanEnv();
    writeFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), 'profiles:\n  dev:\n    gateway: http://dev\n  prod:\n    gateway: https://prod\n  staging:\n    gateway: https://staging\n');
    expect(tab('dpgw enable --profile ', env)).toEqual(['dev', 'prod', 'staging']);
    expect(tab('dpgw enable --profile p', env)).toEqual(['prod']);
    // A value that follows an option is not taken for a subcommand.
    expect(tab('dpgw --profile dev sch', env)).toEqual(['schema']);
  });

  it('completes the arguments that are not files: profiles after config use, keys after config set, components after health, commands after help', () => {
    const env = cleanEnv();
    writeFileSync(join(env.DPGW_CONFIG_DIR!, 'config.yaml'), 'profiles:\n  dev:\n    gateway: http://dev\n  prod:\n    gateway: https://prod\n');
    expect(tab('dpgw config use ', env)).toEqual(['dev', 'prod']);
    expect(tab('dpgw config set gat', env)).toEqual(['gateway']);
    expect(tab('dpgw config unset platformV', env)).toEqual(['platformVersion']);
    // The value after the key is the user's to type.
    expect(tab('dpgw config set gateway ', env)).toEqual([]);
    expect(tab('dpgw health v1m')).toEqual(['v1mq']);
    expect(tab('dpgw help tab')).toEqual(['table']);
    expect(tab('dpgw help table ')).toEqual(['create', 'render', 'list', 'get', 'delete', 'status', 'pause', 'resume', 'template']);
  });

  it('completes data sources and data sets from the live catalog; offline or signed out it offers nothing and says nothing', async () => {
    const sandbox = await startSandbox({ topicDelayMs: 0 });
    try {
      const env = await adminPipelineEnv(sandbox);
      expect((await spawnDpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP], { env })).code).toBe(0);
      expect(await tabWhileServing('dpgw enable --datasource mock-d', env)).toEqual(['mock-data-library']);
      // enable offers what the sources offer; the other commands what is enabled.
      expect(await tabWhileServing('dpgw enable --dataset ', env)).toEqual(['track', 'vessel', 'weather', 'telemetry']);
      expect(await tabWhileServing('dpgw table create --dataset ', env)).toEqual(['track']);
      expect(await tabWhileServing('dpgw catalog show t', env)).toEqual(['track']);
      // A minute's cache: the next Tab asks the gateway nothing.
      const asked = sandbox.requestLog.of('gateway').length;
      expect(await tabWhileServing('dpgw storage touch --dataset ', env)).toEqual(['track']);
      expect(sandbox.requestLog.of('gateway')).toHaveLength(asked);
      // Signed out: nothing, and nothing on stderr (tab() checks it is empty).
      expect(await tabWhileServing('dpgw table create --dataset ', { ...env, DPGW_TOKEN: '', XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'dpgw-cache-')) })).toEqual([]);
    } finally {
      await sandbox.close();
    }
    // Offline: a gateway nobody answers on.
    expect(await tabWhileServing('dpgw table create --dataset ', cleanEnv({ DPGW_GATEWAY: 'http://127.0.0.1:1', DPGW_TOKEN: 'offline-token-1234' }))).toEqual([]);
  });

  it("completes the store's tables and schemas after table get|delete|status|pause|resume and schema get|delete, from its listings", async () => {
    const sandbox = await startSandbox({ topicDelayMs: 0 });
    try {
      const env = await adminPipelineEnv(sandbox);
      const schema = join(ROOT, 'examples/track/schema.yaml');
      for (const args of [['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP], ['schema', 'push', schema], ['table', 'create', '--dataset', 'track', '--schema', schema, '--no-stream-check', '--wait-consuming', '0']]) {
        const result = await spawnDpgw(args, { env });
        expect(result.code, result.stderr).toBe(0);
      }
      for (const command of ['get', 'delete', 'status', 'pause', 'resume']) expect(await tabWhileServing(`dpgw table ${command} t`, env)).toEqual(['track']);
      expect(await tabWhileServing('dpgw schema get ', env)).toEqual(['track']);
      expect(await tabWhileServing('dpgw schema delete x', env)).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('a completion cache edited to hold names the catalog could not give (line breaks, controls): Tab offers only the names it could', async () => {
    const sandbox = await startSandbox({ topicDelayMs: 0 });
    try {
      const cache = mkdtempSync(join(tmpdir(), 'dpgw-cache-'));
      const env = { ...(await adminPipelineEnv(sandbox)), XDG_CACHE_HOME: cache };
      expect(await tabWhileServing('dpgw enable --dataset ', env)).toEqual(['track', 'vessel', 'weather', 'telemetry']);
      const folder = join(cache, 'dpgw', 'completion');
      for (const file of readdirSync(folder)) writeFileSync(join(folder, file), JSON.stringify({ at: Date.now(), names: ['track', 'evil\n--forged', 'x\u001b[2J', 7, 'vessel'] }));
      expect(await tabWhileServing('dpgw enable --dataset ', env)).toEqual(['track', 'vessel']);
    } finally {
      await sandbox.close();
    }
  });

  it('enable --datasource A --dataset: only what A offers, from its own cache (#31 §3)', async () => {
    const sandbox = await startSandbox({ topicDelayMs: 0 });
    try {
      const env = { ...(await adminPipelineEnv(sandbox)), XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'dpgw-cache-')) };
      // The unnarrowed names first, cached: the narrowed Tabs must not be answered from that cache.
      expect(await tabWhileServing('dpgw enable --dataset ', env)).toEqual(['track', 'vessel', 'weather', 'telemetry']);
      expect(await tabWhileServing('dpgw enable --datasource mock-data-library --dataset ', env)).toEqual(['track', 'vessel', 'weather']);
      expect(await tabWhileServing('dpgw enable --datasource=mock-sensor-feed --dataset t', env)).toEqual(['telemetry']);
      expect(await tabWhileServing('dpgw enable --datasource mock-sensor-feed --dataset tr', env)).toEqual([]);
      const [sensorFeed] = JSON.parse((await spawnDpgw(['catalog', 'sources', '--json'], { env })).stdout).filter((s: { name: string }) => s.name === 'mock-sensor-feed');
      expect(await tabWhileServing(`dpgw enable --datasource ${sensorFeed.id} --dataset `, env)).toEqual(['telemetry']);
      // A source the catalog does not have offers nothing.
      expect(await tabWhileServing('dpgw enable --datasource nowhere --dataset ', env)).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('offers nothing for a file argument, so bash completes file names (-o default)', () => {
    expect(tab('dpgw schema push exa')).toEqual([]);
    const registered = spawnSync('bash', ['--noprofile', '--norc', '-c', 'eval "$(dpgw completion bash)"; complete -p dpgw'], { env: { ...cleanEnv(), PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin` }, encoding: 'utf8' });
    expect(registered.stdout.trim()).toBe('complete -o default -F _dpgw_complete dpgw');
  });
});

describe('dpgw completion zsh and fish', () => {
  // No zsh or fish on this machine: the scripts are checked for what they call, not run.
  it.each([
    ['zsh', /compdef _dpgw_complete dpgw/, /dpgw __complete "\$\{\(@\)words\[2,CURRENT\]\}"/],
    ['fish', /complete -c dpgw -a '\(__dpgw_complete\)'/, /dpgw __complete \$words\[2\.\.-1\]/],
  ])('%s: registers a function that asks dpgw __complete', async (shell, registers, asks) => {
    const result = await spawnDpgw(['completion', shell]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(registers);
    expect(result.stdout).toMatch(asks);
  });

  it('an unknown shell: exit 2, one line', async () => {
    const result = await spawnDpgw(['completion', 'powershell']);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual(["dpgw: command-argument value 'powershell' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish. — see `dpgw completion --help`"]);
  });
});

describe('the install lines, as documented, in a new user\'s empty home (#31 §3)', () => {
  // Read from README.md and `dpgw completion --help` and run as written, so the docs cannot drift from what works.
  const readmeLine = (shell: string): string => {
    const line = readFileSync(join(ROOT, 'README.md'), 'utf8')
      .split('\n')
      .find((l) => l.includes(`dpgw completion ${shell}`) && !l.startsWith('|'));
    if (!line) throw new Error(`README.md has no install line for ${shell}`);
    return line.replace(/\s+# .*$/, '');
  };
  const helpLine = async (shell: string): Promise<string> => {
    const help = (await spawnDpgw(['completion', '--help'])).stdout;
    const line = new RegExp(`^ {2}${shell} {2,}(.+?)(?: {3}in ~/.*)?$`, 'm').exec(help)?.[1];
    if (!line) throw new Error(`dpgw completion --help has no install line for ${shell}:\n${help}`);
    return line.trim();
  };
  const inEmptyHome = (shell: string, line: string) => {
    const home = mkdtempSync(join(tmpdir(), 'dpgw-new-home-'));
    const result = spawnSync(shell, shell === 'bash' ? ['--noprofile', '--norc', '-c', line] : ['-c', line], { env: { ...cleanEnv(), HOME: home, PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin` }, encoding: 'utf8' });
    return { home, ...result };
  };

  it.each([['README.md', async () => readmeLine('fish')], ['dpgw completion --help', () => helpLine('fish')]])('fish, from %s: makes the folder fish reads and writes the script there', async (_, line) => {
    const { home, status, stderr } = inEmptyHome('sh', await line());
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const installed = join(home, '.config/fish/completions/dpgw.fish');
    expect(existsSync(installed)).toBe(true);
    expect(readFileSync(installed, 'utf8')).toBe((await spawnDpgw(['completion', 'fish'])).stdout);
  });

  it.each([['README.md', async () => readmeLine('bash')], ['dpgw completion --help', () => helpLine('bash')]])('bash, from %s: registers the completion', async (_, line) => {
    const { status, stdout, stderr } = inEmptyHome('bash', `${await line()}\ncomplete -p dpgw`);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout.trim()).toBe('complete -o default -F _dpgw_complete dpgw');
  });

  it('zsh: the documented lines say the same, compinit first', async () => {
    // No zsh on this machine to run them in: both say to load compinit before the eval (compdef is compinit's).
    expect(readmeLine('zsh')).toBe('eval "$(dpgw completion zsh)"');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('eval "$(dpgw completion zsh)"                                   # in ~/.zshrc, after `autoload -Uz compinit && compinit`');
    expect(await helpLine('zsh')).toBe('eval "$(dpgw completion zsh)"');
    expect((await spawnDpgw(['completion', '--help'])).stdout).toContain('in ~/.zshrc, after autoload -Uz compinit && compinit');
  });
});
