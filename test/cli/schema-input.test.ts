/**
 * Schema files and inferred schemas at their edges (issue #30): values nested past the
 * bound, a maxLength the store's int cannot hold, column names the store refuses or a
 * terminal would mangle — each one line at file:line:column, exit 2, nothing sent — and
 * message fields named like YAML's other types, which `schema infer` must write so that
 * it (and any YAML 1.1 or 1.2 reader) reads them back as the same names.
 */
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSchema } from '../../src/olap/load-schema.js';
import { cleanEnv, runInProcess } from '../helpers/run-dpgw.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

const work = mkdtempSync(join(tmpdir(), 'dpgw-schema-input-'));
const file = (name: string, content: string) => {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
};

let gateway: RecordingServer;
beforeAll(async () => {
  gateway = await startRecordingServer({ 'POST /api/internal/olap/schemas': () => ({ status: 200, body: { status: 'ok' } }) });
});
afterAll(() => gateway.close());

/** `schema validate` and `schema push` of a file: both must refuse it the same way, push sending nothing. */
async function refused(path: string) {
  const env = cleanEnv({ DPGW_GATEWAY: gateway.url, DPGW_TOKEN: 'token' });
  const validate = await runInProcess(['schema', 'validate', path], env);
  const push = await runInProcess(['schema', 'push', path], env);
  expect(gateway.requests).toHaveLength(0);
  for (const result of [validate, push]) {
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trimEnd().split('\n'), result.stderr).toHaveLength(1);
  }
  return push.stderr.trimEnd();
}

const schemaWith = (spec: string) => `schemaName: edge\ndimensionFieldSpecs:\n  - name: id\n    dataType: STRING\n${spec}dateTimeFieldSpecs:\n  - { name: ts, dataType: LONG, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }\n`;
const at = (path: string, line: number, column: number | '') => `${path}:${line}:${column}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('schema files: nesting, maxLength and column names', () => {
  it('a default nested 5,000 deep (YAML flow, YAML block, JSON, YAML aliases) is one line at the place, not a stack overflow', async () => {
    const deep = 5000;
    const flow = file('deep-flow.yaml', schemaWith(`  - name: nested\n    dataType: STRING\n    defaultNullValue: ${'['.repeat(deep)}${']'.repeat(deep)}\n`));
    expect(await refused(flow)).toMatch(new RegExp(`^dpgw: ${at(flow, 7, 1)}\\d*: values nested more than 64 lists and mappings deep`));
    const json = file('deep.json', `{"schemaName": "edge", "dimensionFieldSpecs": [{"name": "nested", "dataType": "STRING", "defaultNullValue": ${'['.repeat(deep)}${']'.repeat(deep)}}]}`);
    expect(await refused(json)).toMatch(new RegExp(`^dpgw: ${at(json, 1, '')}\\d+: values nested more than 64 lists and mappings deep`));
    // 70 levels parse fine; the bound, not the parser, refuses them, at the 65th level's own line.
    const block = file('deep-block.yaml', schemaWith(`  - name: nested\n    dataType: STRING\n    defaultNullValue:\n${Array.from({ length: 70 }, (_, i) => `${'  '.repeat(i + 3)}k:\n`).join('')}${'  '.repeat(73)}1\n`));
    expect(await refused(block)).toMatch(new RegExp(`^dpgw: ${at(block, 69, 129)}: values nested more than 64 lists and mappings deep`));
    const aliases = file('deep-aliases.yaml', `${Array.from({ length: 200 }, (_, i) => `a${i}: &a${i} [${i === 0 ? 1 : `*a${i - 1}`}]`).join('\n')}\n${schemaWith('')}`);
    expect(await refused(aliases)).toMatch(/: values nested more than 64 lists and mappings deep/);
  });

  it('maxLength is a whole number up to 2147483647, as the store reads a Java int (a fraction cut, text read as the number)', async () => {
    for (const value of ['2147483648', '1e12', 'ten']) {
      const path = file('max-length.yaml', schemaWith(`  - name: text\n    dataType: STRING\n    maxLength: ${value}\n`));
      expect(await refused(path)).toMatch(new RegExp(`^dpgw: ${at(path, 7, 16)}: dimensionFieldSpecs\\[1\\]\\.maxLength: maxLength must be a whole number up to 2147483647, not`));
    }
    for (const value of ['2147483647', '1.5', '"10"', '0']) {
      const fine = file('max-length-fine.yaml', schemaWith(`  - name: text\n    dataType: STRING\n    maxLength: ${value}\n`));
      expect((await runInProcess(['schema', 'validate', fine])).code).toBe(0);
    }
  });

  it('column names with white space, line breaks, control or bidi characters, empty or megabytes long: refused, shown escaped', async () => {
    const cases: Array<[string, RegExp]> = [
      ['a\nb', /the column name "a\\nb" has white space \(U\+000A\) at position 2/],
      ['a\u202eb', /the column name "a\\u202eb" has a control or format character \(U\+202E\) at position 2/],
      ['\u2066x', /"\\u2066x" has a control or format character \(U\+2066\) at position 1/],
      ['x\u200f', /"x\\u200f" has a control or format character \(U\+200F\) at position 2/],
      ['x\u0007', /"x\\u0007" has a control or format character \(U\+0007\) at position 2/],
      ['x\u2028y', /"x\\u2028y" has white space \(U\+2028\) at position 2/],
      [' lead', /" lead" has a space at position 1/],
      ['trail ', /"trail " has a space at position 6/],
      ['two words', /"two words" has a space at position 4/],
      ['x'.repeat(2_000_000), /the column name "x{57}…" is 2000000 characters long/],
    ];
    for (const [name, message] of cases) {
      const path = file('names.json', JSON.stringify({ schemaName: 'edge', dimensionFieldSpecs: [{ name: 'id', dataType: 'STRING' }, { name, dataType: 'STRING' }] }));
      const line = await refused(path);
      expect(line).toMatch(new RegExp(`^dpgw: ${at(path, 1, '')}\\d+: dimensionFieldSpecs\\[1\\]\\.name: `));
      expect(line).toMatch(message);
      expect(line).toContain('column names are 1 to 512 characters without white space or control characters');
      // eslint-disable-next-line no-control-regex
      expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
      expect(line.length).toBeLessThan(400);
    }
    const empty = file('empty-name.yaml', schemaWith('  - name: ""\n    dataType: STRING\n'));
    expect(await refused(empty)).toMatch(/dimensionFieldSpecs\[1\]\.name: the field name is missing/);
  });
});

/** Field names a YAML reader takes as another type, or not as the same string, unless quoted. */
const YAML_LOOKALIKES = [
  'true', 'false', 'null', 'True', 'FALSE', 'Null', 'NULL', 'yes', 'no', 'Yes', 'NO', 'on', 'off', 'On', 'OFF', 'y', 'n', 'Y', 'N', '~',
  '1', '1.5', '-1', '+1', '0x1F', '0o17', '017', '1_000', '1:20', '1e3', '.inf', '-.inf', '.NaN', '2001-12-14', '2001-12-14t21:59:43.10-05:00',
  '-', ':', '?', '#x', 'a#b', 'a:b', '-x', '?x', ':x', '@x', '`x', '%x', '!x', '&x', '*x', '|', '>', '[x]', '{x}', 'a,b', '<<', '=', "'x'", '"x"', 'x\\y',
  'é', '名前', '😀', '_', 'a.b', 'a-b',
];

describe('schema infer writes names that it, and any YAML reader, reads back as the same names', () => {
  it('infer → write → load: every lookalike comes back as the same column name, under YAML 1.1 and 1.2', async () => {
    // The store refuses two columns differing only in case (SchemaUtils.validate, case-insensitive from release 1.0):
    // lookalikes such as true and True go to separate schemas.
    const batches: string[][] = [];
    for (const name of YAML_LOOKALIKES) {
      const batch = batches.find((names) => !names.some((other) => other.toLowerCase() === name.toLowerCase()));
      if (batch) batch.push(name);
      else batches.push([name]);
    }
    for (const [index, batch] of batches.entries()) {
      const message = Object.fromEntries(batch.map((name, position) => [name, `v${position}`]));
      const messages = file(`lookalikes-${index}.jsonl`, `${JSON.stringify(message)}\n${JSON.stringify(message)}\n`);
      const output = join(work, `lookalikes-${index}.yaml`);
      const inferred = await runInProcess(['schema', 'infer', messages, '--name', 'edge', '-o', output]);
      expect(inferred.code, inferred.stderr).toBe(0);
      const text = readFileSync(output, 'utf8');
      // Sorted: a JSON object holds integer-like keys ('1') first.
      const names = (schema: { dimensionFieldSpecs?: Array<{ name: unknown }> }) => (schema.dimensionFieldSpecs ?? []).map((spec) => spec.name).sort();
      const expected = [...batch].sort();
      expect(names(await loadSchema(output, () => {}))).toEqual(expected);
      for (const version of ['1.1', '1.2'] as const) expect(names(parseYaml(text, { version }))).toEqual(expected);
      expect((await runInProcess(['schema', 'validate', output])).code).toBe(0);
    }
  });

  it('a message field the store cannot take as a column is one line, escaped, and nothing is written', async () => {
    for (const name of [' x', 'x ', '', 'a\nb', 'a\u202eb', 'a\u0085b']) {
      const messages = file('bad-field.jsonl', `${JSON.stringify({ id: 'a', [name]: 1 })}\n`);
      const output = join(work, 'bad-field.yaml');
      const result = await runInProcess(['schema', 'infer', messages, '--name', 'edge', '-o', output]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trimEnd().split('\n'), result.stderr).toEqual([expect.stringMatching(/^dpgw: .*bad-field\.jsonl:1: a message field cannot be a column: the column name (is empty|".*" has .* at position \d+): column names are 1 to 512 characters/)]);
      // eslint-disable-next-line no-control-regex
      expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]|YAML syntax error/);
      expect(existsSync(output)).toBe(false);
    }
  });
});
