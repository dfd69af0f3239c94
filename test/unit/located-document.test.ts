/** Manifests and schemas parse fast, and every complaint still says file:line:column. */
import { describe, expect, it } from 'vitest';
import { parseLocatedDocument } from '../../src/olap/located-document.js';
import { DpgwError } from '../../src/errors/dpgw-error.js';

const errorOf = (text: string, file: string): DpgwError => {
  try {
    parseLocatedDocument(text, file);
  } catch (error) {
    if (error instanceof DpgwError) return error;
    throw error;
  }
  throw new Error('parsed without an error');
};

describe('parseLocatedDocument', () => {
  it('gives the value and, when asked, the position of any value or key', () => {
    const document = parseLocatedDocument('version: 1\ndataSets:\n  - dataset: track\n    groups: [a, b]\n', 'm.yaml');
    expect(document.value).toEqual({ version: 1, dataSets: [{ dataset: 'track', groups: ['a', 'b'] }] });
    expect(document.at(['dataSets', 0, 'groups', 1])).toEqual({ file: 'm.yaml', line: 4, column: 17 });
    expect(document.keyAt(['dataSets', 0, 'groups'])).toEqual({ file: 'm.yaml', line: 4, column: 5 });
    // A path that does not exist points at its nearest parent.
    expect(document.at(['dataSets', 0, 'table', 'name'])).toEqual({ file: 'm.yaml', line: 3, column: 5 });
  });

  it('keeps YAML 1.2 core scalars: a date stays a string, yes stays a string', () => {
    expect(parseLocatedDocument('a: 2024-01-01\nb: yes\nc: 0x1F\nd: ~\n', 'x.yaml').value).toEqual({ a: '2024-01-01', b: 'yes', c: 31, d: null });
  });

  it('reports a YAML syntax error and a duplicate key with their positions', () => {
    const syntax = errorOf('a: [1, 2\nb: 3\n', 'bad.yaml');
    expect(syntax.message).toMatch(/^YAML syntax error: /);
    expect(String(syntax.where)).toMatch(/^bad\.yaml:\d+:\d+$/);
    const duplicate = errorOf('name: a\nother: 1\nname: b\n', 'dup.yaml');
    expect(duplicate.message).toMatch(/^YAML syntax error: .*unique/i);
    expect(duplicate.where).toEqual({ file: 'dup.yaml', line: 3, column: 1 });
  });

  it('parses .json as strict JSON, with the position of the mistake', () => {
    expect(parseLocatedDocument('{"a": [1, 2]}', 'x.json').value).toEqual({ a: [1, 2] });
    const trailing = errorOf('{\n  "a": 1,\n}\n', 'x.json');
    expect(trailing.message).toMatch(/^JSON syntax error: /);
    expect(String(trailing.where)).toMatch(/^x\.json:3:1$/);
    const truncated = errorOf('{\n  "a": [1,', 'cut.json');
    expect(String(truncated.where)).toMatch(/^cut\.json:\d+:\d+$/);
  });
});
