/**
 * A table the analytics store would refuse at create time, refused by dpgw before anything is
 * sent (issue 45, part 5): the built binary against the sandbox, with a template whose upsert
 * table has no primary key in its schema and whose inverted index names a column the schema
 * lacks. `table render`, `table create` and `provision --plan` exit 2 naming the template's
 * line and column; `provision` stores no schema.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { ROOT, spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { trackSchemaBeside } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

/** dpgw's own template (so its stream connection is the run's), made an upsert table with an inverted index. */
function upsertTemplate(folder: string): { file: string; lineOf: (text: string) => number } {
  const text = readFileSync(join(ROOT, 'templates/realtime-table.yaml'), 'utf8')
    .replace('  loadMode: MMAP\n', '  loadMode: MMAP\n  invertedIndexColumns: [origin, orign]\n')
    .concat('routing:\n  instanceSelectorType: strictReplicaGroup\nupsertConfig:\n  mode: FULL\n');
  const file = join(folder, 'upsert-table.yaml');
  writeFileSync(file, text);
  const lines = text.split('\n');
  return { file, lineOf: (line) => lines.indexOf(line) + 1 };
}

async function setUp() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const folder = env.DPGW_CONFIG_DIR!;
  const dpgw = (args: string[]) => spawnDpgw(args, { env });
  const schemaPosts = () => sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET' && e.path.includes('/olap/schemas'));
  const template = upsertTemplate(folder);
  const schema = join(folder, trackSchemaBeside(folder));
  return { sandbox, folder, dpgw, schemaPosts, template, schema };
}

describe('a table the store would refuse is refused before anything is sent', () => {
  it('table render and table create name the template line of each bad key, exit 2, and send nothing', async () => {
    const { dpgw, schemaPosts, template, schema, sandbox } = await setUp();
    const enable = await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP]);
    expect(enable.code, enable.stderr).toBe(0);
    const mode = `${template.file}:${template.lineOf('  mode: FULL')}:9: upsertConfig.mode: an upsert table needs primary key columns: schema track has no primaryKeyColumns`;
    const inverted = `${template.file}:${template.lineOf('  invertedIndexColumns: [origin, orign]')}:34: tableIndexConfig.invertedIndexColumns[1]: inverted index column "orign" is not a column of schema track`;
    for (const command of ['render', 'create']) {
      const result = await dpgw(['table', command, '--dataset', 'track', '--schema', schema, '--template', template.file]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      // The first problem leads, every one is listed at its place.
      expect(result.stderr).toContain('(and 1 more problem)');
      expect(result.stderr).toContain(inverted);
      expect(result.stderr).toContain(mode);
    }
    expect(schemaPosts()).toEqual([]);
    expect(sandbox.store.tables.size).toBe(0);
  });

  it('provision --plan refuses it, and provision stores no schema before refusing', async () => {
    const { dpgw, folder, schemaPosts, template, sandbox } = await setUp();
    const manifest = join(folder, 'provision.yaml');
    writeFileSync(manifest, `name: orders\ndataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { template: upsert-table.yaml } }\n`);
    // At the data set's line in the manifest, with the template's line and key in parentheses.
    const mode = `${manifest}:3:47: dataSets[0].dataset: data set track: an upsert table needs primary key columns: schema track has no primaryKeyColumns (${template.file}:${template.lineOf('  mode: FULL')}:9: upsertConfig.mode)`;
    for (const args of [['--plan'], []]) {
      const result = await dpgw(['provision', manifest, ...args]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`inverted index column "orign" is not a column of schema track (${template.file}:${template.lineOf('  invertedIndexColumns: [origin, orign]')}:34: tableIndexConfig.invertedIndexColumns[1])`);
      expect(result.stderr).toContain(mode);
    }
    expect(schemaPosts()).toEqual([]);
    expect(sandbox.store.schemas.size).toBe(0);
  });

  it('a manifest that infers its schema: the plan does not hold the template against a stand-in schema; the run holds it against the inferred one before the schema is stored', async () => {
    const { dpgw, folder, schemaPosts, sandbox } = await setUp();
    const template = join(folder, 'indexed-table.yaml');
    const indexed = (columns: string) => readFileSync(join(ROOT, 'templates/realtime-table.yaml'), 'utf8').replace('  loadMode: MMAP\n', `  loadMode: MMAP\n  invertedIndexColumns: [${columns}]\n`);
    const manifest = join(folder, 'provision.yaml');
    writeFileSync(manifest, `name: orders\ndataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: { infer: {} }, table: { template: indexed-table.yaml } }\n`);

    // Before the data set is enabled its columns are unknown: the index on a column the messages carry is no problem.
    writeFileSync(template, indexed('origin'));
    const planned = await dpgw(['provision', manifest, '--plan']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stderr).not.toContain('is not a column');

    // The run infers the schema, then holds the table against it: a misspelt column is refused before the schema is stored.
    writeFileSync(template, indexed('orign'));
    const refused = await dpgw(['provision', manifest]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('inverted index column "orign" is not a column of schema track');
    expect(schemaPosts()).toEqual([]);
    expect(sandbox.store.schemas.size).toBe(0);
  });
});
