import { describe, expect, it } from 'vitest';
import { holdsControlCharacter, jsonSafe, serverText, terminalLine } from '../../src/text/terminal-text.js';

describe('terminalLine', () => {
  it('leaves a line without controls as it is, tabs included', () => {
    const text = 'ds1\tbench.ds1 — ünïcode';
    expect(terminalLine(text)).toBe(text);
  });

  it('escapes every line break, so nothing inside a line starts one', () => {
    expect(terminalLine('status DOWN\n::error title=ATTACK::x\r::add-mask::x\u0085x')).toBe('status DOWN\\n::error title=ATTACK::x\\r::add-mask::x\\u0085x');
  });

  it("keeps dpgw's colours and escapes every other control", () => {
    expect(terminalLine('\u001b[1mbold\u001b[22m \u001b]0;title\u0007 \r \u009b \u202e x')).toBe('\u001b[1mbold\u001b[22m \\u001b]0;title\\u0007 \\r \\u009b \\u202e x');
  });

  it('escapes the line and paragraph separators, which break a line as a line feed does', () => {
    expect(terminalLine('a\u2028b\u2029c\n')).toBe('a\\u2028b\\u2029c\\n');
    expect(serverText('a\u2028b\u2029c\n')).toBe('a\\u2028b\\u2029c\\n');
    expect(holdsControlCharacter('a\u2028b')).toBe(true);
  });
});

describe('jsonSafe', () => {
  it('writes U+2028 and U+2029, which JSON.stringify leaves raw, as \\u escapes of the same document', () => {
    const json = JSON.stringify({ name: 'a\u2028b\u2029c\u009b' });
    expect(jsonSafe(json)).toBe('{"name":"a\\u2028b\\u2029c\\u009b"}');
    expect(JSON.parse(jsonSafe(json))).toEqual({ name: 'a\u2028b\u2029c\u009b' });
  });
});
