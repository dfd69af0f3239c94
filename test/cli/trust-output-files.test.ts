/**
 * Files dpgw writes for the user are never written through a symbolic link, and an
 * existing file is never replaced without --force (reports excepted: they are the run's
 * own output, but never through a link). A merge request's checkout can hold any link:
 * a committed `dpgw-junit.xml -> ~/.bashrc` must leave ~/.bashrc as it was. And the
 * reports parse with a real XML parser whatever the manifest's keys hold.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { cleanEnv, ROOT, spawnDpgw, type RunResult } from '../helpers/run-dpgw.js';
import { adminPipelineEnv, signInEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchemaBeside } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

const VICTIM_TEXT = '# the victim: a shell start-up file, say\nexport PATH=$HOME/bin:$PATH\n';
const MESSAGES = join(ROOT, 'examples/track/track-messages.jsonl');
// eslint-disable-next-line no-control-regex -- the characters XML 1.0 forbids are what the reports must not hold
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]/;
const POLICY = 'http://opa.platform.internal:8181/v1/data/dpgw/query_access/allow';

/** A checkout folder and, beside it, the file a committed link would reach (`../victim`). */
function checkoutWithVictim(): { checkout: string; victim: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dpgw-links-')));
  const checkout = join(root, 'checkout');
  mkdirSync(checkout);
  const victim = join(root, 'victim');
  writeFileSync(victim, VICTIM_TEXT);
  return { checkout, victim };
}

/** A link as git checks one out: relative (`../victim`), in the folder, to the victim outside it. */
function committedLink(folder: string, name: string, victim: string): string {
  const link = join(folder, name);
  symlinkSync(relative(folder, victim), link);
  return link;
}

const stderrLines = (result: RunResult) => result.stderr.trimEnd().split('\n');
const refusedLine = (where: string, link: string, victim: string, hint: string) => `dpgw: ${where}: ${link} is a symbolic link to ${victim}: dpgw writes no file through a link — ${hint}`;
const forceHint = (victim: string) => `remove the link, or pass --force to replace the link itself (${victim} is left as it is)`;

function expectLinkKept(link: string, victim: string) {
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
}

/** The link replaced by a file of its own; what it pointed to as it was. */
function expectLinkReplaced(link: string, victim: string) {
  expect(lstatSync(link).isFile()).toBe(true);
  expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
}

describe('provision --report through a committed link', () => {
  it('dpgw-junit.xml -> ../victim: exit 2 in one line naming the link and where it leads, before anything is sent, the victim untouched; also with a refused manifest', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const { checkout, victim } = checkoutWithVictim();
    trackSchemaBeside(checkout);
    const good = join(checkout, 'provision.yaml');
    writeFileSync(good, `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml }\n`);
    const refusedManifest = join(checkout, 'refused.yaml');
    writeFileSync(refusedManifest, `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml, shell: rc }\n`);
    const junit = committedLink(checkout, 'dpgw-junit.xml', victim);
    const codeQuality = committedLink(checkout, 'gl-code-quality-report.json', victim);
    for (const [manifest, report] of [[good, `junit=${junit}`], [refusedManifest, `junit=${junit}`], [good, `codequality=${codeQuality}`], [refusedManifest, `codequality=${codeQuality}`]] as const) {
      for (const plan of [['--plan'], []]) {
        const result = await spawnDpgw(['provision', manifest, ...plan, '--report', report], { env });
        expect(result.code, result.stderr).toBe(2);
        const link = report.slice(report.indexOf('=') + 1);
        expect(stderrLines(result)).toEqual([refusedLine('--report', link, victim, 'remove the link, or give --report another path')]);
        expectLinkKept(link, victim);
      }
    }
    expect(sandbox.requestLog.of('gateway')).toEqual([]);
  });

  it('an earlier report (a regular file) is replaced without --force: the run owns it', async () => {
    const { checkout } = checkoutWithVictim();
    const manifest = join(checkout, 'provision.yaml');
    writeFileSync(manifest, 'dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [g], schema: track-schema.yaml, shell: rc }\n');
    const report = join(checkout, 'dpgw-junit.xml');
    writeFileSync(report, 'an earlier report\n');
    const result = await spawnDpgw(['provision', manifest, '--plan', '--report', `junit=${report}`], { env: cleanEnv({ DPGW_GATEWAY: 'http://127.0.0.1:1', DPGW_TOKEN: 'report-test-token-1234' }) });
    expect(result.code).toBe(2);
    expect(readFileSync(report, 'utf8')).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuite /);
  });
});

describe('dpgw export --output DIR', () => {
  async function exported() {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const { checkout, victim } = checkoutWithVictim();
    trackSchemaBeside(checkout);
    const manifest = join(checkout, 'provision.yaml');
    writeFileSync(manifest, `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml }\n`);
    const provisioned = await spawnDpgw(['provision', manifest, '--wait-consuming', '0'], { env });
    expect(provisioned.code, provisioned.stderr).toBe(0);
    const out = join(checkout, 'exported');
    mkdirSync(out);
    return { env, out, victim, dpgw: (args: string[]) => spawnDpgw(['export', '--output', out, ...args], { env }) };
  }

  it('a link in the folder (the manifest, or a schema file the store names): exit 2 in one line, nothing written; --force replaces the link itself', async () => {
    const { out, victim, dpgw } = await exported();
    for (const name of ['provision.yaml', 'track.schema.yaml']) {
      const link = committedLink(out, name, victim);
      const refused = await dpgw([]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(stderrLines(refused)).toEqual([refusedLine('--output', link, victim, forceHint(victim))]);
      expect(readdirSync(out)).toEqual([name]);
      expectLinkKept(link, victim);
      const forced = await dpgw(['--force']);
      expect(forced.code, forced.stderr).toBe(0);
      expectLinkReplaced(link, victim);
      expect(readFileSync(link, 'utf8')).not.toBe('');
      // The folder empty again for the next name.
      for (const file of readdirSync(out)) rmSync(join(out, file));
    }
  });

  it('an empty file in the folder is not replaced without --force', async () => {
    const { out, dpgw } = await exported();
    writeFileSync(join(out, 'track.schema.yaml'), '');
    const refused = await dpgw([]);
    expect(refused.code).toBe(2);
    expect(stderrLines(refused)).toEqual([`dpgw: --output: ${join(out, 'track.schema.yaml')} exists: not overwritten — pass --force to replace it, or choose another folder`]);
    expect(readdirSync(out)).toEqual(['track.schema.yaml']);
    expect(readFileSync(join(out, 'track.schema.yaml'), 'utf8')).toBe('');
  });
});

describe('dpgw init DIR', () => {
  it('a link in the folder (provision.yaml, schema.yaml, the JSON Schema for editors): exit 2 in one line before anything is asked or read, the victim untouched', async () => {
    for (const name of ['provision.yaml', 'schema.yaml', 'provision-manifest.schema.json']) {
      const { checkout, victim } = checkoutWithVictim();
      const link = committedLink(checkout, name, victim);
      // No gateway that answers: the refusal comes before any request.
      const result = await spawnDpgw(['init', checkout, '--datasource', 'mock-data-library', '--dataset', 'track', '--group', 'g', '--no-input'], { env: cleanEnv({ DPGW_GATEWAY: 'http://127.0.0.1:1', DPGW_TOKEN: 'init-test-token-1234' }) });
      expect(result.code, result.stderr).toBe(2);
      expect(stderrLines(result)).toEqual([`dpgw: ${link} is a symbolic link to ${victim}: dpgw writes no file through a link — ${forceHint(victim)}`]);
      expectLinkKept(link, victim);
    }
  });

  it('--force replaces the link itself, never its target', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const enabled = await spawnDpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP], { env });
    expect(enabled.code, enabled.stderr).toBe(0);
    const { checkout, victim } = checkoutWithVictim();
    const manifestLink = committedLink(checkout, 'provision.yaml', victim);
    const result = await spawnDpgw(['init', checkout, '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP, '--no-input', '--force'], { env });
    expect(result.code, result.stderr).toBe(0);
    expectLinkReplaced(manifestLink, victim);
    expect(readFileSync(manifestLink, 'utf8')).toContain('dataset: track');
  });
});

describe('schema infer -o and access-control render -o', () => {
  it('schema infer -o a link: exit 2 in one line; an existing file: refused; --force replaces the link itself', async () => {
    const { checkout, victim } = checkoutWithVictim();
    const link = committedLink(checkout, 'schema.yaml', victim);
    const refused = await spawnDpgw(['schema', 'infer', MESSAGES, '-o', link]);
    expect(refused.code).toBe(2);
    expect(stderrLines(refused)).toEqual([refusedLine('--output', link, victim, forceHint(victim))]);
    expectLinkKept(link, victim);

    const existing = join(checkout, 'existing.yaml');
    writeFileSync(existing, '');
    const notReplaced = await spawnDpgw(['schema', 'infer', MESSAGES, '-o', existing]);
    expect(notReplaced.code).toBe(2);
    expect(stderrLines(notReplaced)).toEqual([`dpgw: --output: ${existing} exists: not overwritten — pass --force to replace it, or choose another path`]);
    expect(readFileSync(existing, 'utf8')).toBe('');

    const forced = await spawnDpgw(['schema', 'infer', MESSAGES, '-o', link, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expectLinkReplaced(link, victim);
    expect(readFileSync(link, 'utf8')).toContain('schemaName: track_messages');
    expect(readdirSync(checkout).sort()).toEqual(['existing.yaml', 'schema.yaml']);
  });

  it('access-control render -o a link: exit 2 in one line, its target neither read nor written; --force replaces the link itself', async () => {
    const { checkout, victim } = checkoutWithVictim();
    const link = committedLink(checkout, 'access-control.properties', victim);
    const refused = await spawnDpgw(['access-control', 'render', '--policy-uri', POLICY, '-o', link]);
    expect(refused.code).toBe(2);
    expect(stderrLines(refused)).toEqual([refusedLine('--output', link, victim, forceHint(victim))]);
    expectLinkKept(link, victim);
    const forced = await spawnDpgw(['access-control', 'render', '--policy-uri', POLICY, '-o', link, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expectLinkReplaced(link, victim);
    expect(readFileSync(link, 'utf8')).toContain(`opa.policy.uri=${POLICY}`);
  });
});

describe("dpgw's own files: config.yaml and the token cache", () => {
  it('config set where config.yaml is a link (kept in a dotfiles repository, say): exit 2 naming it, the file it leads to as it was; DPGW_CONFIG_DIR at its folder writes it', async () => {
    const env = cleanEnv();
    const dotfiles = realpathSync(mkdtempSync(join(tmpdir(), 'dpgw-dotfiles-')));
    const real = join(dotfiles, 'config.yaml');
    const text = 'profiles:\n  dev:\n    realm: data-platform\n';
    writeFileSync(real, text, { mode: 0o600 });
    const link = join(env.DPGW_CONFIG_DIR!, 'config.yaml');
    symlinkSync(real, link);
    const result = await spawnDpgw(['config', 'set', 'gateway', 'https://gateway.dev.example', '--profile', 'dev'], { env });
    expect(result.code).toBe(2);
    expect(stderrLines(result)).toEqual([`dpgw: ${link} is a symbolic link to ${real}: dpgw writes no file through a link — remove the link, or point DPGW_CONFIG_DIR at the folder of the file it leads to`]);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe(text);
    const direct = await spawnDpgw(['config', 'set', 'gateway', 'https://gateway.dev.example', '--profile', 'dev'], { env: { ...env, DPGW_CONFIG_DIR: dotfiles } });
    expect(direct.code, direct.stderr).toBe(0);
    expect(readFileSync(real, 'utf8')).toContain('gateway: https://gateway.dev.example');
  });

  it('a token cache file that is a link: login leaves what it leads to as it was, no token written there', async () => {
    const sandbox = await sandboxes.start();
    const admin = sandbox.users.find((u) => u.username === 'admin')!;
    const env = signInEnv(sandbox, { DPGW_USERNAME: 'admin', DPGW_PASSWORD: admin.password });
    const { victim } = checkoutWithVictim();
    // The session file of this identity (one per identity): where a first login wrote it, a link in its place.
    expect((await spawnDpgw(['login'], { env })).code).toBe(0);
    const tokens = join(env.XDG_CACHE_HOME!, 'dpgw', 'tokens');
    const [file] = readdirSync(tokens).filter((name) => name.endsWith('.json'));
    const link = join(tokens, file!);
    rmSync(link);
    symlinkSync(victim, link);
    const result = await spawnDpgw(['login'], { env });
    expect(result.code).toBe(2);
    expect(stderrLines(result)).toContain(`dpgw: ${link} is a symbolic link to ${victim}: dpgw writes no file through a link — remove the link and run again`);
    expect(readlinkSync(link)).toBe(victim);
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
  });
});

describe('the reports parse whatever the manifest holds', () => {
  /** Keys and names with every kind of character XML 1.0 forbids, and line breaks, as YAML's double-quoted escapes. */
  const HOSTILE = ['"bad\\x01\\x08key"', '"nonchar\\uFFFEand\\uFFFF"', '"line\\nbreak\\r\\nand\\ttab"', '"esc\\x1b[2Jkey\\x7f"'];

  it('JUnit parses with a strict XML 1.0 parser, names on one line; Code Quality is JSON without those characters', async () => {
    const { checkout } = checkoutWithVictim();
    const manifest = join(checkout, 'provision.yaml');
    const entries = HOSTILE.map((key, index) => `  - { datasource: mock-data-library, dataset: ${key}, groups: [g], schema: s${index}.yaml, ${key}: x }`);
    writeFileSync(manifest, `dataSets:\n${entries.join('\n')}\n${HOSTILE[1]}: top\n`);
    const junit = join(checkout, 'dpgw-junit.xml');
    const codeQuality = join(checkout, 'gl-code-quality-report.json');
    const result = await spawnDpgw(['provision', manifest, '--plan', '--report', `junit=${junit}`, '--report', `codequality=${codeQuality}`], { env: cleanEnv({ DPGW_GATEWAY: 'http://127.0.0.1:1', DPGW_TOKEN: 'report-test-token-1234' }) });
    expect(result.code).toBe(2);

    const text = readFileSync(junit, 'utf8');
    const names: string[] = [];
    const errors: string[] = [];
    const parser = new SaxesParser();
    parser.on('error', (error) => errors.push(error.message));
    parser.on('opentag', (tag) => {
      if (tag.name === 'testcase') names.push(String(tag.attributes.name));
    });
    parser.write(text).close();
    expect(errors).toEqual([]);
    expect(names.length).toBeGreaterThanOrEqual(HOSTILE.length);
    // The keys are there, shown escaped as the terminal shows them.
    expect(names.join(' ')).toContain('line\\nbreak\\r\\nand\\ttab');
    expect(names.join(' ')).toContain('nonchar\\ufffeand\\uffff');
    for (const line of text.split('\n').filter((l) => l.includes('<testcase'))) expect(line).toMatch(/^ {2}<testcase .*>$/);
    expect(text).not.toMatch(NOT_XML);

    const report = readFileSync(codeQuality, 'utf8');
    expect(report).not.toMatch(NOT_XML);
    const issues = JSON.parse(report) as Array<{ description: string }>;
    expect(issues.length).toBeGreaterThanOrEqual(HOSTILE.length);
    for (const issue of issues) expect(issue.description).not.toMatch(/[\n\r]/);
  });
});
