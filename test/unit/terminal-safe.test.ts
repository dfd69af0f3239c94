import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../src/text/terminal-text.js';

describe('terminalSafe', () => {
  it('leaves text without controls as it is, line breaks and tabs included', () => {
    const text = 'DATA SET  TOPIC\nds1\tbench.ds1 — ünïcode\n';
    expect(terminalSafe(text)).toBe(text);
  });

  it("keeps dpgw's colours and escapes every other control", () => {
    expect(terminalSafe('\u001b[1mbold\u001b[22m \u001b]0;title\u0007 \r \u009b \u202e x')).toBe('\u001b[1mbold\u001b[22m \\u001b]0;title\\u0007 \\r \\u009b \\u202e x');
  });
});
