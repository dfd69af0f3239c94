/**
 * The table `catalog`, `table` and `schema` listings print: columns aligned by what a terminal
 * shows (display width: a CJK character or an emoji two columns, a combining mark none), a
 * server's control characters escaped before they are measured, and
 * fitted to a terminal's width with '…'. Plain ASCII cells take a shorter path than the rest
 * (src/output/text-table.ts); both are held to the same layout here.
 */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { textTable } from '../../src/output/text-table.js';
import { displayWidth } from '../../src/text/display-width.js';

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

  it('measures display width: CJK characters and emoji take two columns, combining marks none, so the next column lines up', () => {
    const table = textTable(
      ['GROUP', 'TOPIC'],
      [
        ['分析チーム', 'a'],
        ['🎉 ops', 'b'],
        ['👩‍🔬 lab', 'c'],
        ['cafe\u0301', 'd'],
        ['plain', 'e'],
      ],
      { style },
    );
    expect(table).toEqual(['GROUP       TOPIC', '分析チーム  a', '🎉 ops      b', '👩‍🔬 lab      c', 'cafe\u0301        d', 'plain       e']);
  });

  it('escapes first, then measures: an escaped control is the characters it is shown as', () => {
    expect(textTable(['NAME', 'X'], [['日本\u001b', 'y'], ['abcdefghijklmn', 'z']], { style })).toEqual(['NAME            X', '日本\\u001b      y', 'abcdefghijklmn  z']);
  });

  it('at a terminal, cuts wide characters whole, within the column, never half an emoji', () => {
    const rows = [['first', '分析チームのデータセット', 'x']];
    const table = textTable(['NAME', 'GROUPS', 'Z'], rows, { width: 22, style });
    // 12 columns for GROUPS: 11 for the text, a wide character that would take the 11th and 12th is left out and its column padded.
    expect(table).toEqual(['NAME   GROUPS        Z', 'first  分析チーム …  x']);
    expect(table.map((line) => displayWidth(line))).toEqual([22, 22]);
    const emoji = textTable(['NAME', 'GROUPS', 'Z'], [['first', '👩‍🔬👩‍🔬👩‍🔬👩‍🔬👩‍🔬👩‍🔬', 'x']], { width: 20, style });
    expect(emoji).toEqual(['NAME   GROUPS      Z', 'first  👩‍🔬👩‍🔬👩‍🔬👩‍🔬 …  x']);
  });
});
