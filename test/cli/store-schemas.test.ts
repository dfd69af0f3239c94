/**
 * A schema written as the analytics store's own examples write them (issue 45, part 1):
 * the built CLI takes it, shows each field the store ignores as a warning at its
 * file:line:column, and refuses only what the store's reader refuses.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, spawnDpgw } from '../helpers/run-dpgw.js';

const work = mkdtempSync(join(tmpdir(), 'dpgw-store-schemas-'));
const file = (name: string, content: string) => {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
};

// Written here in the store's own JSON style: the colon TIMESTAMP format, fieldType on every field, notNull as text, a BYTES metric, a key the store ignores.
const STORE_STYLE = `{
  "schemaName": "visits",
  "dimensionFieldSpecs": [
    { "name": "page", "dataType": "STRING", "fieldType": "DIMENSION", "notNull": "true" }
  ],
  "metricFieldSpecs": [
    { "name": "visitorSketch", "dataType": "BYTES", "fieldType": "METRIC" }
  ],
  "dateTimeFieldSpecs": [
    { "name": "ts", "dataType": "TIMESTAMP", "fieldType": "DATE_TIME", "format": "1:MILLISECONDS:TIMESTAMP", "granularity": "1:SECONDS" }
  ],
  "owner": "web team"
}
`;

describe('dpgw schema validate, on a schema written as the store writes it', () => {
  it('exits 0, with the field the store ignores as a warning at its place', async () => {
    const path = file('visits.json', STORE_STYLE);
    const result = await spawnDpgw(['schema', 'validate', path], { env: cleanEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(`✓ ${path}: schema visits is valid`);
    expect(result.stderr.trim().split('\n')).toEqual([`warning: ${path}:12:3: owner: "owner" is not a field dpgw checks, so it is sent as written and the store ignores it unless it knows it; known: schemaName, dimensionFieldSpecs, metricFieldSpecs, dateTimeFieldSpecs, complexFieldSpecs, primaryKeyColumns, enableColumnBasedNullHandling, description`]);
    const json = await spawnDpgw(['schema', 'validate', path, '--json'], { env: cleanEnv() });
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: true, issues: [{ field: 'owner', severity: 'warning' }] });
  });

  it('push --dry-run shows the body the store would read: notNull "true" sent as true', async () => {
    const path = file('visits-push.json', STORE_STYLE);
    const result = await spawnDpgw(['schema', 'push', path, '--dry-run', '--json'], { env: cleanEnv({ DPGW_GATEWAY: 'http://127.0.0.1:9' }) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('"notNull": true');
    expect(result.stderr).toMatch(/warning: .*visits-push\.json:12:3: owner: /);
  });

  it('a misspelt group is a warning at its line; the schema is refused because the store is left with no columns', async () => {
    const path = file('misspelt.yaml', 'schemaName: t\ndimensionFieldSpec:\n  - { name: a, dataType: STRING }\n');
    const result = await spawnDpgw(['schema', 'push', path], { env: cleanEnv({ DPGW_GATEWAY: 'http://127.0.0.1:9', DPGW_TOKEN: 'token' }) });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^warning: ${path}:2:1: dimensionFieldSpec: .*\\(did you mean dimensionFieldSpecs\\?\\)$`)),
      expect.stringMatching(new RegExp(`^dpgw: ${path}:1:1: \\(top level\\): the schema has no columns: .* — fix the schema file; nothing was sent$`)),
    ]);
  });
});
