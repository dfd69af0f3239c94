/**
 * Editors (issue #48 §4): the manifests `init` and `export` write open with a `# yaml-language-server: $schema=…`
 * line; it resolves, from the manifest's own folder as yaml-language-server resolves it, to the manifest's JSON
 * Schema written beside it, which validates the manifest; `dpgw manifest schema` prints the very file the package
 * ships (docs/provision-manifest.schema.json).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });
const SHIPPED = readFileSync(join(ROOT, 'docs/provision-manifest.schema.json'), 'utf8');

/** The schema a manifest's first line points at, read as an editor reads it (relative to the manifest's folder), and whether it validates the manifest. */
function editorSchemaOf(manifestFile: string) {
  const text = readFileSync(manifestFile, 'utf8');
  const line = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text);
  expect(line, text.split('\n')[0]).not.toBeNull();
  const target = line![1]!;
  // Relative, so it resolves for a teammate who cloned the repository: no absolute path, no URL, no way out of the folder.
  expect(target).toMatch(/^\.\/[^/]+$/);
  const schemaText = readFileSync(resolve(dirname(manifestFile), target), 'utf8');
  const validate = new Ajv2020({ strict: false }).compile(JSON.parse(schemaText));
  const valid = validate(parse(text));
  return { schemaText, valid, errors: validate.errors };
}

describe('the manifest schema editors check with', () => {
  it('dpgw manifest schema prints the shipped file; -o writes it, leaves an equal one, refuses a different one without --force', async () => {
    const printed = await spawnDpgw(['manifest', 'schema']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toBe(SHIPPED);
    const file = join(mkdtempSync(join(tmpdir(), 'dpgw-manifest-schema-')), 'provision-manifest.schema.json');
    expect((await spawnDpgw(['manifest', 'schema', '-o', file])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(SHIPPED);
    const again = await spawnDpgw(['manifest', 'schema', '-o', file]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('unchanged');
    writeFileSync(file, '{"older": true}\n');
    const refused = await spawnDpgw(['manifest', 'schema', '-o', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^dpgw: --output: .* exists and differs from this dpgw's manifest schema: not overwritten — pass --force/m);
    expect((await spawnDpgw(['manifest', 'schema', '-o', file, '--force'])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(SHIPPED);
  });

  it("dpgw init's manifest opens with the line; it resolves to the schema written beside it, which validates the manifest", async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const folder = join(mkdtempSync(join(tmpdir(), 'dpgw-init-editor-')), 'vessel');
    for (const source of [['--from-messages', 'examples/track/track-messages.jsonl'], ['--infer-at-first-run']]) {
      const result = await spawnDpgw(['init', folder, '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', TRACK_GROUP, ...source, '--force', '--no-input'], { env });
      expect(result.code, result.stderr).toBe(0);
      const { schemaText, valid, errors } = editorSchemaOf(join(folder, 'provision.yaml'));
      expect(schemaText).toBe(SHIPPED);
      expect(valid, JSON.stringify(errors)).toBe(true);
    }
    // A second init into a folder is refused for its manifest only: the copy there is this dpgw's own, not named.
    const other = join(folder, 'other');
    await spawnDpgw(['init', other, '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', TRACK_GROUP, '--infer-at-first-run', '--no-input'], { env });
    const kept = await spawnDpgw(['init', other, '--datasource', 'mock-data-library', '--dataset', 'vessel', '--group', TRACK_GROUP, '--infer-at-first-run', '--no-input'], { env });
    expect(kept.stderr).toMatch(/provision\.yaml exists: not replaced/);
  });

  it("dpgw export's manifest opens with the line; it resolves to the schema written beside it, which validates the manifest", async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const provisioned = await spawnDpgw(['provision', 'examples/track/provision.yaml', '--wait-consuming', '0'], { env });
    expect(provisioned.code, provisioned.stderr).toBe(0);
    const out = join(mkdtempSync(join(tmpdir(), 'dpgw-export-editor-')), 'exported');
    const exported = await spawnDpgw(['export', '--output', out], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(`wrote ${join(out, 'provision-manifest.schema.json')}`);
    const { schemaText, valid, errors } = editorSchemaOf(join(out, 'provision.yaml'));
    expect(schemaText).toBe(SHIPPED);
    expect(valid, JSON.stringify(errors)).toBe(true);
  });
});
