/**
 * The table `catalog`, `table` and `schema` listings print: columns aligned by what a terminal
 * shows (code points), a server's control characters escaped before they are measured, and
 * fitted to a terminal's width with '…'. Plain ASCII cells take a shorter path than the rest
 * (src/output/text-table.ts); both are held to the same layout here.
 */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { textTable } from '../../src/output/text-table.js';

const style = new Chalk({ level: 0 });

describe('textTable', () => {
  it('aligns plain, accented and escaped cells alike, and ends no line with spaces', () => {
    const table = textTable(
      ['NAME', 'TOPIC', 'NOTE'],
      [
        ['plain', 'orders', ''],
        ['café', 'zürich.events', 'x'],
        ['evil\u001b[2J', 'a\nb', '\u202e'],
      ],
      { style },
    );
    expect(table).toEqual([
      'NAME           TOPIC          NOTE',
      'plain          orders',
      'café           zürich.events  x',
      'evil\\u001b[2J  a\\nb           \\u202e',
    ]);
  });

  it('at a terminal, cuts the widest column (never the first) until the table fits, marking the cut with …', () => {
    const rows = [['short', 'a-long-topic-name-that-does-not-fit', 'éééééééééééééééééééé']];
    const table = textTable(['DATA SET', 'TOPIC', 'SELF'], rows, { width: 40, style });
    const lines = table;
    expect(lines.every((line) => [...line].length <= 40)).toBe(true);
    expect(lines).toEqual(['DATA SET  TOPIC     SELF', 'short     a-long-…  éééééééééééééééééééé']);
    // Piped (no width), nothing is cut.
    expect(textTable(['DATA SET', 'TOPIC', 'SELF'], rows, { style })[1]).toBe('short     a-long-topic-name-that-does-not-fit  éééééééééééééééééééé');
  });
});
