/**
 * A place in a file travels as data (file, line, column) to every format that shows it: the
 * GitHub annotations, the step outputs, the JUnit and Code Quality reports. A colon is legal in
 * a Linux file name, so `x:9:9/a:1:2.yaml` is one file, and a manifest named `m:7:7` has no line
 * 7: nothing reads a place back out of its text.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, spawnDpgw } from '../helpers/run-dpgw.js';

/** A workflow's environment around a workspace, and a gateway nothing is sent to (a refused manifest sends nothing). */
function workflow() {
  const env = cleanEnv({ DPGW_GATEWAY: 'http://127.0.0.1:9', DPGW_TOKEN: 't' });
  const workspace = env.DPGW_CONFIG_DIR!;
  const folder = join(workspace, 'x:9:9');
  mkdirSync(folder);
  const files = { junit: join(workspace, 'junit.xml'), quality: join(workspace, 'quality.json'), outputs: join(workspace, 'outputs.txt') };
  Object.assign(env, { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace, GITHUB_STEP_SUMMARY: join(workspace, 'summary.md'), GITHUB_OUTPUT: files.outputs, CI_PROJECT_DIR: workspace });
  const reports = ['--report', `junit=${files.junit}`, '--report', `codequality=${files.quality}`];
  const read = () => ({
    junit: readFileSync(files.junit, 'utf8'),
    quality: JSON.parse(readFileSync(files.quality, 'utf8')) as Array<{ location: { path: string; lines: { begin: number } } }>,
    outputs: Object.fromEntries(readFileSync(files.outputs, 'utf8').trim().split('\n').map((line) => line.split('=') as [string, string])),
  });
  return { env, folder, reports, read };
}

const annotations = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('::error'));

describe('places in files whose names hold `:line:column`', () => {
  it('a manifest x:9:9/a:1:2.yaml with problems: each annotation and report item at that file and its own line; failed counts the data sets, not a key named dataSets[7]', async () => {
    const { env, folder, reports, read } = workflow();
    const manifest = join(folder, 'a:1:2.yaml');
    writeFileSync(
      manifest,
      'dataSets:\n' +
        '  - { datasource: mock-data-library, dataset: track, groups: [g], schema: missing.yaml }\n' +
        '  - { datasource: mock-data-library, dataset: vessel, groups: [g], schema: gone.yaml }\n' +
        '"dataSets[7]": 1\n',
    );
    const result = await spawnDpgw(['provision', manifest, ...reports], { env });
    expect(result.code, result.stderr).toBe(2);
    const places = annotations(result.stderr).map((line) => /^::error file=([^,]*),line=(\d+),col=\d+,/.exec(line)?.slice(1));
    // Line 1: the name taken from the path (`a:1:2`) is no name for its tables.
    expect(places).toEqual([
      ['x%3A9%3A9/a%3A1%3A2.yaml', '1'],
      ['x%3A9%3A9/a%3A1%3A2.yaml', '2'],
      ['x%3A9%3A9/a%3A1%3A2.yaml', '3'],
      ['x%3A9%3A9/a%3A1%3A2.yaml', '4'],
    ]);
    const { junit, quality, outputs } = read();
    expect(quality.map((issue) => [issue.location.path, issue.location.lines.begin])).toEqual([
      ['x:9:9/a:1:2.yaml', 1],
      ['x:9:9/a:1:2.yaml', 2],
      ['x:9:9/a:1:2.yaml', 3],
      ['x:9:9/a:1:2.yaml', 4],
    ]);
    expect([...junit.matchAll(/ file="([^"]*)"/g)].map((match) => match[1])).toEqual([manifest, manifest, manifest, manifest]);
    expect(outputs).toMatchObject({ 'exit-code': '2', failed: '2' });
  });

  it('a manifest named relative to a folder inside the workspace (cd teams/shop && dpgw provision provision.yaml): annotations, the step summary and Code Quality name it from the workspace', async () => {
    const { env, folder, reports, read } = workflow();
    const team = join(folder, 'shop');
    mkdirSync(team);
    writeFileSync(join(team, 'provision.yaml'), 'name: t\ndataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [g], schema: missing.yaml }\n');
    const result = await spawnDpgw(['provision', 'provision.yaml', ...reports], { env, cwd: team });
    expect(result.code, result.stderr).toBe(2);
    expect(annotations(result.stderr).map((line) => /^::error file=([^,]*),line=(\d+),/.exec(line)?.slice(1))).toEqual([['x%3A9%3A9/shop/provision.yaml', '3']]);
    expect(readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8')).toContain('- x:9:9/shop/provision.yaml:3:');
    expect(read().quality.map((issue) => [issue.location.path, issue.location.lines.begin])).toEqual([['x:9:9/shop/provision.yaml', 3]]);
  });

  it('--json: each problem says where as text, as before, and its field as a path to read without parsing field', async () => {
    const { env, folder } = workflow();
    const manifest = join(folder, 'a:1:2.yaml');
    writeFileSync(manifest, 'name: t\ndataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [g], schema: missing.yaml }\n');
    const result = await spawnDpgw(['provision', manifest, '--json'], { env });
    expect(result.code, result.stderr).toBe(2);
    const { error } = JSON.parse(result.stdout) as { error: { where: string; details: { issues: Array<{ where: string; field: string; path: unknown[] }> } } };
    expect(error.where).toMatch(/x:9:9\/a:1:2\.yaml:3:\d+$/);
    expect(error.details.issues).toEqual([expect.objectContaining({ where: error.where, field: 'dataSets[0].schema', path: ['dataSets', 0, 'schema'] })]);
  });

  it('a manifest named m:7:7 that does not exist: named as text, at no line 7 of a file m', async () => {
    const { env, folder, reports, read } = workflow();
    const missing = join(folder, 'm:7:7');
    const result = await spawnDpgw(['provision', missing, ...reports], { env });
    expect(result.code, result.stderr).toBe(2);
    const [annotation, ...others] = annotations(result.stderr);
    expect(others).toEqual([]);
    expect(annotation).toMatch(/^::error title=dpgw::/);
    expect(annotation).toContain(`::${missing}: `);
    const { junit, quality } = read();
    expect(quality.map((issue) => [issue.location.path, issue.location.lines.begin])).toEqual([['provision manifest', 1]]);
    expect([...junit.matchAll(/ file="([^"]*)"/g)].map((match) => match[1])).toEqual([missing]);
  });
});
