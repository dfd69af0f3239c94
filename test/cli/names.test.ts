/**
 * Names that cannot be sent (path separators, escapes, quotes, spaces, line breaks) are
 * refused before any request, from flags and from manifests, each problem with its place;
 * and a manifest's problems are all listed at its own lines.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nameProblem } from '../../src/names/platform-names.js';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { TRACK_SCHEMA_FILE, trackSchemaBeside } from '../helpers/track.js';

const sandboxes = sandboxPerTest({ topicDelayMs: 50 });

async function setUp() {
  const sandbox = await sandboxes.start();
  const env = await adminPipelineEnv(sandbox);
  const gatewayRequests = () => sandbox.requestLog.of('gateway').length;
  return { sandbox, env, gatewayRequests };
}

const lines = (text: string) => text.trimEnd().split('\n');

describe('the name rule', () => {
  it.each([
    ['data set', 'track', undefined],
    ['data set', 'mock-data-library.track_2', undefined],
    ['data set', '../track', "starts with '.'"],
    ['enablement', 'a%2Fb', "has '%' at position 2"],
    ['group', 'track readers', 'has a space at position 6'],
    ['data set', "tr'ack", "has a quote (') at position 3"],
    ['data set', 'tr\nack', 'has a line break at position 3'],
    ['data set', 'tr\u0000ack', 'has a control character (U+0000) at position 3'],
    ['table', 'track.v2', "has '.' at position 6"],
    ['table', 'track-v2', undefined],
    ['schema', 'track__v2', 'has "__" at position 6, which the analytics store reserves'],
    ['data set', 'track__v2', undefined],
    ['schema', '', 'is empty'],
    ['topic', 'x'.repeat(250), 'is 250 characters long, more than 249'],
  ] as const)('%s %j: %s', (kind, name, expected) => {
    const problem = nameProblem(kind, name);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(expected);
    // Shown escaped: a name never breaks the one-line error.
    if (problem) expect([...problem].some((character) => character === '\n' || character === '\r' || character === '\u0000')).toBe(false);
  });
});

describe('hostile names from flags: exit 2, one line, nothing sent', () => {
  it.each([
    ['--dataset', '../track', ['enable', '--datasource', 'mock-data-library', '--group', TRACK_GROUP, '--dataset']],
    ['--dataset', 'tr\nack', ['enable', '--datasource', 'mock-data-library', '--group', TRACK_GROUP, '--dataset']],
    ['--enablement', 'a%2Fb', ['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP, '--enablement']],
    ['--group', 'readers"; drop', ['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP, '--group']],
    ['--name', 'track v2', ['table', 'create', '--dataset', 'track', '--schema', TRACK_SCHEMA_FILE, '--name']],
    ['--topic', 'lib/../x', ['table', 'create', '--dataset', 'track', '--schema', TRACK_SCHEMA_FILE, '--topic']],
  ])('%s %j', async (flag, name, args) => {
    const { env, gatewayRequests } = await setUp();
    const result = await spawnDpgw([...args, name], { env });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr.startsWith(`dpgw: ${flag}: the `)).toBe(true);
    expect(result.stderr).toContain(` name ${JSON.stringify(name)} `);
    expect(gatewayRequests()).toBe(0);
  });
});

describe('a manifest: every problem, at its own line, before any request', () => {
  it('bad names anywhere in it', async () => {
    const { env, gatewayRequests } = await setUp();
    const folder = env.DPGW_CONFIG_DIR!;
    trackSchemaBeside(folder);
    const file = join(folder, 'names.yaml');
    writeFileSync(
      file,
      [
        'dataSets:',
        '  - datasource: mock-data-library',
        '    dataset: "../track"',
        `    groups: [${TRACK_GROUP}, "bad group"]`,
        '    schema: track-schema.yaml',
        '  - datasource: mock-data-library',
        '    dataset: vessel',
        '    enablement: "x\\ny"',
        '    schema: track-schema.yaml',
        '    table: { name: a.b }',
        '',
      ].join('\n'),
    );
    const result = await spawnDpgw(['provision', file], { env });
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^dpgw: ${file}:3:14: dataSets\\[0\\]\\.dataset: the data set name "\\.\\./track" starts with '\\.'.* \\(and 3 more problems\\) — fix the manifest; nothing was sent$`)),
      expect.stringMatching(new RegExp(`^dpgw: ${file}:4:\\d+: dataSets\\[0\\]\\.groups\\[1\\]: the group name "bad group" has a space at position 4`)),
      expect.stringMatching(new RegExp(`^dpgw: ${file}:8:17: dataSets\\[1\\]\\.enablement: the enablement name "x\\\\ny" has a line break at position 2`)),
      expect.stringMatching(new RegExp(`^dpgw: ${file}:10:20: dataSets\\[1\\]\\.table\\.name: the table name "a\\.b" has '\\.' at position 2`)),
    ]);
    const json = await spawnDpgw(['provision', file, '--json'], { env });
    expect(JSON.parse(json.stdout).error.details.issues).toHaveLength(4);
    expect(gatewayRequests()).toBe(0);
  });

  it("problems of the template, the settings and inference are placed at each data set's line; a shared one once", async () => {
    const { env, gatewayRequests } = await setUp();
    const folder = env.DPGW_CONFIG_DIR!;
    trackSchemaBeside(folder);
    const file = join(folder, 'late.yaml');
    const entry = (dataset: string, extra = '') => `  - { datasource: mock-data-library, dataset: ${dataset}, groups: [${TRACK_GROUP}], schema: track-schema.yaml, table: { name: ${dataset}${extra} } }\n`;
    writeFileSync(file, `dataSets:\n${entry('track', ', timeColumn: nope')}${entry('vessel')}${entry('weather')}  - { datasource: mock-data-library, dataset: track.v2, groups: [${TRACK_GROUP}], schema: { infer: {} } }\n`);
    // No broker list: the template needs one for every data set.
    const result = await spawnDpgw(['provision', file], { env: { ...env, DPGW_BROKER_LIST: '' } });
    expect(result.code).toBe(2);
    const shown = lines(result.stderr).filter((line) => line.startsWith('dpgw:'));
    expect(shown[0]).toMatch(new RegExp(`^dpgw: ${file}:2:\\d+: dataSets\\[0\\]\\.dataset: data set track: \\$\\{brokerList\\} has no value: .* \\(also 2 more data sets: vessel, weather\\)`));
    expect(shown[0]).toContain('templates/realtime-table.yaml:');
    expect(shown.slice(1)).toEqual([expect.stringMatching(new RegExp(`^dpgw: ${file}:5:\\d+: dataSets\\[3\\]: the schema name "track\\.v2" has '\\.' .*schema\\.infer\\.name gives one$`))]);
    expect(gatewayRequests()).toBe(0);

    const withRegistry = await spawnDpgw(['provision', file], { env });
    expect(lines(withRegistry.stderr).filter((line) => line.startsWith('dpgw:'))).toEqual([
      expect.stringMatching(new RegExp(`^dpgw: ${file}:2:\\d+: dataSets\\[0\\]\\.dataset: data set track: time column "nope" is not a column of schema track \\(.*realtime-table\\.yaml:\\d+:\\d+: segmentsConfig\\.timeColumnName\\) \\(and 2 more problems\\)`)),
      expect.stringMatching(/data set track: transform destination "nope" is not a column of schema track/),
      expect.stringMatching(/dataSets\[3\]: the schema name "track\.v2"/),
    ]);
  });

  it('a long manifest: positions found without the slow parser still name the exact line, a flow mapping included', async () => {
    const { env, gatewayRequests } = await setUp();
    const folder = env.DPGW_CONFIG_DIR!;
    trackSchemaBeside(folder);
    const file = join(folder, 'long.yaml');
    const entries = Array.from({ length: 3_000 }, (_, i) => `  - datasource: mock-data-library\n    dataset: ds${i}\n    groups: [${TRACK_GROUP}]\n    schema: { infer: { name: ds${i} } }\n`).join('');
    // After 12,001 lines: a flow mapping with a key without value, then the bad name.
    writeFileSync(file, `# a comment: with a colon\ndataSets:\n${entries}  - { datasource: mock-data-library, groups, dataset: "bad name", schema: track-schema.yaml }\n`);
    const result = await spawnDpgw(['provision', file], { env });
    expect(result.code).toBe(2);
    const problems = lines(result.stderr);
    // In the order of the file: a key without a value is found at the key, before the name after it.
    expect(problems[0]).toMatch(new RegExp(`^dpgw: ${file}:12003:38: dataSets\\[3000\\]\\.groups: expected array, got null \\(and 1 more problem\\)`));
    expect(problems[1]).toMatch(new RegExp(`^dpgw: ${file}:12003:55: dataSets\\[3000\\]\\.dataset: the data set name "bad name" has a space`));
    expect(gatewayRequests()).toBe(0);
  });

  it('an inline schema is checked by the one schema rule, in the words of `schema validate`, at the manifest\'s lines', async () => {
    const { env, gatewayRequests } = await setUp();
    const folder = env.DPGW_CONFIG_DIR!;
    const schemaText = 'schemaName: inline\nmetricFieldSpecs:\n  - { name: a, dataType: STRING }\n';
    writeFileSync(join(folder, 'as-file.yaml'), schemaText);
    const file = join(folder, 'inline.yaml');
    writeFileSync(file, `dataSets:\n  - datasource: mock-data-library\n    dataset: track\n    groups: [${TRACK_GROUP}]\n    schema:\n      schemaName: inline\n      metricFieldSpecs:\n        - { name: a, dataType: STRING }\n`);
    const inline = await spawnDpgw(['provision', file], { env });
    const asFile = await spawnDpgw(['schema', 'validate', join(folder, 'as-file.yaml')], { env });
    expect(inline.code).toBe(2);
    const reason = 'metric "a" must be numeric (INT, LONG, FLOAT, DOUBLE, BIG_DECIMAL) or BYTES, not STRING';
    expect(asFile.stdout).toContain(reason);
    expect(lines(inline.stderr).filter((line) => line.startsWith('dpgw:'))).toEqual([expect.stringMatching(new RegExp(`^dpgw: ${file}:8:32: dataSets\\[0\\]\\.schema\\.metricFieldSpecs\\[0\\]\\.dataType: ${reason.replace(/[()]/g, '\\$&')}`))]);
    expect(gatewayRequests()).toBe(0);
  });

  it('reads schema and template files outside its folder only with --allow-outside-files', async () => {
    const { env, gatewayRequests } = await setUp();
    const folder = join(env.DPGW_CONFIG_DIR!, 'manifests');
    mkdirSync(folder);
    const file = join(folder, 'outside.yaml');
    writeFileSync(file, `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: ${TRACK_SCHEMA_FILE}, table: { template: ../../template.yaml } }\n`);
    writeFileSync(join(env.DPGW_CONFIG_DIR!, '..', 'template.yaml'), 'irrelevant: true\n');
    const refused = await spawnDpgw(['provision', file, '--plan'], { env });
    expect(refused.code).toBe(2);
    expect(lines(refused.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^dpgw: ${file}:2:\\d+: dataSets\\[0\\]\\.schema: schema file ${TRACK_SCHEMA_FILE} is outside the manifest's folder ${folder}: move it there, or pass --allow-outside-files to read it \\(and 1 more problem\\)`)),
      expect.stringMatching(new RegExp(`^dpgw: ${file}:2:\\d+: dataSets\\[0\\]\\.table\\.template: template .*template\\.yaml is outside the manifest's folder`)),
    ]);
    expect(gatewayRequests()).toBe(0);

    writeFileSync(file, `dataSets:\n  - { datasource: mock-data-library, dataset: track, groups: [${TRACK_GROUP}], schema: ${TRACK_SCHEMA_FILE} }\n`);
    const allowed = await spawnDpgw(['provision', file, '--plan', '--allow-outside-files'], { env });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('POST schema track');
  });
});
