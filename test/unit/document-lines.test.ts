/** A document for the reporter: a serializer's lines, where no value can start a line of its own. */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { jsonLines, yamlLines } from '../../src/output/document-lines.js';

describe('yamlLines', () => {
  const attack = 'a description long enough for a YAML writer to fold it\n::error title=ATTACK::x\n\n  ::add-mask::x\r\u2028end';

  it('writes a multi-line string, key or value, as one double-quoted scalar on its line, read back the same', () => {
    const value = { description: attack, [attack]: 1, list: [attack] };
    const lines = yamlLines(value);
    expect(lines).toHaveLength(4);
    // U+2028 stays as YAML writes it: the reporter escapes it on the line.
    expect(lines[0]).toBe(`${String.raw`description: "a description long enough for a YAML writer to fold it\n::error title=ATTACK::x\n\n  ::add-mask::x\r`}\u2028end"`);
    expect(parse(lines.join('\n'))).toEqual(value);
  });

  it('quotes the rest as YAML readers expect it', () => {
    expect(yamlLines({ retention: '7', name: 'track', tab: 'a\tb', flag: false })).toEqual(["retention: '7'", 'name: track', String.raw`tab: "a\tb"`, 'flag: false']);
  });
});

describe('jsonLines', () => {
  it('is JSON.stringify with two spaces, a line each', () => {
    expect(jsonLines({ a: 'x\ny' })).toEqual(['{', String.raw`  "a": "x\ny"`, '}']);
  });
});
