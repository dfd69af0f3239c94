/**
 * At a terminal, a command missing a value asks for it from the live catalog (issue #36 §1);
 * without one, or with --no-input, it stops at once naming the flag. Driven through a real
 * pseudo-terminal, keys typed as a person types them.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { atTerminal, CTRL_C, DOWN, ENTER, screen, TAB, UP } from '../helpers/at-terminal.js';
import { cleanEnv, ROOT, runInProcess, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv, changesThePlatform } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { TRACK_SCHEMA_FILE } from '../helpers/track.js';

const sandboxes = sandboxPerTest();

describe('dpgw enable asks for what is missing', () => {
  it('at a terminal: source, data set (typed to search), a new enablement and its groups; then the same command with flags', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const result = await atTerminal(['enable'], {
      env,
      timeoutSeconds: 12,
      steps: [
        { when: 'Data source:', keys: DOWN },
        { when: '❯ mock-sensor-feed', keys: UP },
        { when: '❯ mock-data-library', keys: ENTER },
        { when: 'Data set:', keys: 'ves' },
        { when: '❯ vessel  (not enabled)', keys: ENTER },
        { when: 'Enablement:', keys: ENTER },
        { when: 'Name of the new enablement:', keys: `${TAB}-fleet${ENTER}` },
        { when: 'Groups that may read it', keys: `fleet-readers ${TRACK_GROUP}${ENTER}` },
      ],
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain('vessel  (not enabled)');
    expect(text).toContain(`same without questions: dpgw enable --datasource mock-data-library --dataset vessel --enablement vessel-fleet --group fleet-readers --group ${TRACK_GROUP}`);
    expect(text).toMatch(/✓ enabled vessel \(created enablement vessel-fleet for groups fleet-readers, /);
  });

  it('Ctrl-C at a question: exit 130, nothing sent', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const result = await atTerminal(['enable', '--datasource', 'mock-data-library'], { env, when: 'Data set:', keys: CTRL_C });
    expect(result.code, screen(result.stdout)).toBe(130);
    expect(sandbox.requestLog.of('gateway').filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('without a terminal, or with --no-input at one: exit 2 at once, naming the missing flags', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const piped = await runInProcess(['enable', '--group', TRACK_GROUP], env);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('missing --datasource <name|id>, --dataset <name>');
    const noInput = await atTerminal(['enable', '--no-input', '--dataset', 'track'], { env, when: 'never typed', keys: '' });
    expect(noInput.code).toBe(2);
    expect(screen(noInput.stdout)).toContain('missing --datasource <name|id>');
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
  });
});

/** A folder to run in: the track schema as schema.yaml, and a YAML file that is no schema (not offered). */
function schemaFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'dpgw-ask-'));
  copyFileSync(TRACK_SCHEMA_FILE, join(folder, 'schema.yaml'));
  writeFileSync(join(folder, 'notes.yaml'), 'title: not a schema\n');
  mkdirSync(join(folder, 'node_modules', 'x'), { recursive: true });
  copyFileSync(TRACK_SCHEMA_FILE, join(folder, 'node_modules', 'x', 'schema.yaml'));
  return folder;
}

const ENABLE_TRACK = ['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP];

async function trackEnabled() {
  const sandbox = await sandboxes.start({ topicDelayMs: 0 });
  const env = await adminPipelineEnv(sandbox);
  const enabled = await spawnDpgw(ENABLE_TRACK, { env });
  expect(enabled.code, enabled.stderr).toBe(0);
  return { sandbox, env, sent: () => sandbox.requestLog.of('gateway').length };
}

describe('table create|render ask for the data set and the schema file', () => {
  it('at a terminal: the enabled data set, then a schema file found under the folder; then the same command with flags', async () => {
    const { env } = await trackEnabled();
    const result = await atTerminal(['table', 'render'], {
      env,
      cwd: schemaFolder(),
      timeoutSeconds: 15,
      steps: [
        { when: 'Data set:', keys: ENTER },
        { when: '❯ schema.yaml  (schema track)', keys: ENTER },
      ],
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain('another file…');
    expect(text).not.toContain('notes.yaml');
    expect(text).not.toContain('node_modules');
    expect(text).toContain('same without questions: dpgw table render --dataset track --schema schema.yaml');
    expect(text).toMatch(/^tableName: track$/m);
  });

  it('"another file…": a typed path that is no file is asked again', async () => {
    const { env } = await trackEnabled();
    const result = await atTerminal(['table', 'render', '--dataset', 'track'], {
      env,
      cwd: schemaFolder(),
      timeoutSeconds: 15,
      steps: [
        { when: 'Schema file:', keys: DOWN },
        { when: '❯ another file…', keys: ENTER },
        { when: 'Path of the schema file:', keys: `no-such.yaml${ENTER}` },
        { when: 'no file at no-such.yaml', keys: `${'\\x7f'.repeat(12)}schema.yaml${ENTER}` },
      ],
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain('same without questions: dpgw table render --dataset track --schema schema.yaml');
  });

  it('Ctrl-C at the schema file question: exit 130, nothing sent', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const result = await atTerminal(['table', 'create', '--dataset', 'track'], { env, cwd: schemaFolder(), when: 'Schema file:', keys: CTRL_C });
    expect(result.code, screen(result.stdout)).toBe(130);
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
  });

  it('without a terminal: exit 2 at once naming both flags, nothing sent', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const piped = await runInProcess(['table', 'create'], env);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('missing --dataset <name>, --schema <file|name>');
    const schemaOnly = await runInProcess(['table', 'render', '--dataset', 'track'], env);
    expect(schemaOnly.code).toBe(2);
    expect(schemaOnly.stderr).toContain('missing --schema <file|name>');
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
  });
});

describe('storage touch, verify and dashboard ask for the data set', () => {
  it('at a terminal: storage touch takes the enabled data set chosen', async () => {
    const { env } = await trackEnabled();
    const result = await atTerminal(['storage', 'touch'], { env, timeoutSeconds: 12, when: 'Data set:', keys: ENTER });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toMatch(/same without questions: dpgw storage touch --dataset track\n/);
  });

  it('a data set enabled in two enablements: the one chosen becomes --enablement', async () => {
    const { env } = await trackEnabled();
    const again = await spawnDpgw([...ENABLE_TRACK, '--enablement', 'track-2'], { env });
    expect(again.code, again.stderr).toBe(0);
    const result = await atTerminal(['storage', 'touch'], {
      env,
      timeoutSeconds: 12,
      steps: [
        { when: 'Data set:', keys: 'track-2' },
        { when: '❯ track  (mock-data-library, enablement track-2', keys: ENTER },
      ],
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain('same without questions: dpgw storage touch --dataset track --enablement track-2');
  });

  it('without a terminal: exit 2 naming --dataset, nothing sent', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    for (const argv of [['storage', 'touch'], ['verify'], ['dashboard']]) {
      const piped = await runInProcess(argv, env);
      expect(piped.code, argv.join(' ')).toBe(2);
      expect(piped.stderr).toContain('missing --dataset <name>');
    }
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
  });
});

describe('schema push|validate ask for the file; schema get|delete for the name', () => {
  it('at a terminal: schema push offers the schema files under the folder', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const result = await atTerminal(['schema', 'push'], { env, cwd: schemaFolder(), when: '❯ schema.yaml  (schema track)', keys: ENTER });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain('same without questions: dpgw schema push schema.yaml');
    expect(sandbox.requestLog.of('gateway').filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('at a terminal: schema get takes a typed name, checked as the argument is', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    expect((await spawnDpgw(['schema', 'push', TRACK_SCHEMA_FILE], { env })).code).toBe(0);
    const result = await atTerminal(['schema', 'get'], {
      env,
      steps: [
        { when: 'Schema name:', keys: `tr ack${ENTER}` },
        { when: 'the schema name', keys: `${'\\x7f'.repeat(6)}track${ENTER}` },
      ],
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain('same without questions: dpgw schema get track');
    expect(text).toContain('schemaName: track');
  });

  it('without a terminal: exit 2 naming <file> or <name>, nothing sent', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    for (const [argv, missing] of [
      [['schema', 'push'], 'missing <file>'],
      [['schema', 'validate'], 'missing <file>'],
      [['schema', 'get'], 'missing <name>'],
      [['schema', 'delete', '--yes'], 'missing <name>'],
    ] as const) {
      const piped = await runInProcess([...argv], env);
      expect(piped.code, argv.join(' ')).toBe(2);
      expect(piped.stderr).toContain(missing);
    }
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
  });
});

describe('table get|delete|status, catalog show and provision ask for what they act on', () => {
  it("at a terminal: table get chooses from the store's tables", async () => {
    const { env } = await trackEnabled();
    expect((await spawnDpgw(['schema', 'push', TRACK_SCHEMA_FILE], { env })).code).toBe(0);
    const created = await spawnDpgw(['table', 'create', '--dataset', 'track', '--schema', TRACK_SCHEMA_FILE, '--wait-consuming', '0'], { env });
    expect(created.code, created.stderr).toBe(0);
    const result = await atTerminal(['table', 'get'], { env, when: '❯ track', keys: ENTER });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain('same without questions: dpgw table get track');
    expect(text).toContain('tableName: track');
  });

  it('at a terminal: catalog show chooses an enabled data set', async () => {
    const { env } = await trackEnabled();
    const result = await atTerminal(['catalog', 'show'], { env, when: 'Data set:', keys: ENTER });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain('same without questions: dpgw catalog show track');
    expect(text).toMatch(/topic\s+mock-data-library\.track\.track/);
  });

  it('at a terminal: provision offers the manifests under the folder (files with dataSets:)', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const folder = schemaFolder();
    writeFileSync(join(folder, 'provision.yaml'), `dataSets:\n  - dataset: track\n    datasource: mock-data-library\n    groups: [${TRACK_GROUP}]\n    schema: schema.yaml\n`);
    const result = await atTerminal(['provision', '--plan'], { env, cwd: folder, timeoutSeconds: 15, when: '❯ provision.yaml  (1 data set)', keys: ENTER });
    const text = screen(result.stdout);
    expect(text).not.toContain('schema.yaml  (');
    expect(text).toContain('same without questions: dpgw provision provision.yaml --plan');
    expect(result.code, text).toBe(0);
    expect(sandbox.requestLog.of('gateway').filter(changesThePlatform)).toEqual([]);
  });

  it('without a terminal: exit 2 naming the argument, nothing sent', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    for (const [argv, missing] of [
      [['table', 'get'], 'missing <name>'],
      [['table', 'delete', '--yes'], 'missing <name>'],
      [['table', 'status'], 'missing <name>'],
      [['catalog', 'show'], 'missing <dataset>'],
      [['provision'], 'missing <manifest>'],
    ] as const) {
      const piped = await runInProcess([...argv], env);
      expect(piped.code, argv.join(' ')).toBe(2);
      expect(piped.stderr).toContain(missing);
    }
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
  });
});

describe('config use asks for the profile', () => {
  const configured = async () => {
    const env = cleanEnv();
    for (const profile of ['dev', 'prod']) expect((await spawnDpgw(['config', 'set', 'gateway', `https://${profile}.example`, '--profile', profile], { env })).code).toBe(0);
    expect((await spawnDpgw(['config', 'use', 'dev'], { env })).code).toBe(0);
    return { env, file: join(env.DPGW_CONFIG_DIR!, 'config.yaml') };
  };

  it("at a terminal: chosen from config.yaml's profiles, the current one marked", async () => {
    const { env, file } = await configured();
    const result = await atTerminal(['config', 'use'], {
      env,
      steps: [
        { when: '❯ dev  (current)', keys: DOWN },
        { when: '❯ prod', keys: ENTER },
      ],
    });
    const text = screen(result.stdout);
    expect(result.code, text).toBe(0);
    expect(text).toContain('same without questions: dpgw config use prod');
    expect(readFileSync(file, 'utf8')).toMatch(/currentProfile: prod/);
  });

  it('without a terminal: exit 2 naming <profile>, nothing written', async () => {
    const { env, file } = await configured();
    const before = readFileSync(file, 'utf8');
    const piped = await runInProcess(['config', 'use'], env);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('missing <profile>');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});

describe('README "Asked at a terminal"', () => {
  it('its example runs as written and prints the line it shows', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Asked at a terminal'));
    const [command, said] = /```console\n\$ dpgw (.*)\n(.*)\n```/.exec(section)!.slice(1) as [string, string];
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const result = await runInProcess(command.replace(/\s+#.*$/, '').split(' '), env);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(said);
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
  });
});
