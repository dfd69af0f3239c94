import { describe, expect, it } from 'vitest';
import { holdsControlCharacter, jsonSafe, serverText, terminalSafe } from '../../src/text/terminal-text.js';

describe('terminalSafe', () => {
  it('leaves text without controls as it is, line breaks and tabs included', () => {
    const text = 'DATA SET  TOPIC\nds1\tbench.ds1 — ünïcode\n';
    expect(terminalSafe(text)).toBe(text);
  });

  it("keeps dpgw's colours and escapes every other control", () => {
    expect(terminalSafe('\u001b[1mbold\u001b[22m \u001b]0;title\u0007 \r \u009b \u202e x')).toBe('\u001b[1mbold\u001b[22m \\u001b]0;title\\u0007 \\r \\u009b \\u202e x');
  });

  it('escapes the line and paragraph separators, which break a line as a line feed does', () => {
    expect(terminalSafe('a\u2028b\u2029c\n')).toBe('a\\u2028b\\u2029c\n');
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
