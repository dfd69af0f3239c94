/**
 * Rows as aligned columns, kubectl- and gh-style: on a terminal the table is fitted to its
 * width (the widest columns cut with '…', the first column never); piped, every value is
 * written whole, so `grep` and `awk` see the real names.
 */
import type { ChalkInstance } from 'chalk';
import { serverText } from '../text/terminal-text.js';

export interface TextTableOptions {
  /** The terminal's width; undefined when the output is not a terminal (nothing is cut). */
  width?: number;
  style: ChalkInstance;
}

const GAP = '  ';
const NARROWEST = 6;

export function textTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, { width, style }: TextTableOptions): string {
  // Cells are the catalog's words: one line each, any control character escaped.
  const cells = rows.map((row) => row.map((cell) => serverText(cell)));
  const widths = header.map((title) => title.length);
  for (const row of cells) for (let column = 0; column < row.length; column++) widths[column] = Math.max(widths[column]!, lengthOf(row[column]!));
  if (width !== undefined) {
    let over = widths.reduce((sum, w) => sum + w, 0) + GAP.length * (widths.length - 1) - width;
    while (over > 0) {
      const widest = widths.reduce((best, w, column) => (column > 0 && w > widths[best]! ? column : best), 1);
      if (widths.length < 2 || widths[widest]! <= NARROWEST) break;
      const cut = Math.min(over, widths[widest]! - NARROWEST);
      widths[widest]! -= cut;
      over -= cut;
    }
  }
  const fit = (text: string, column: number) => {
    const room = widths[column]!;
    const length = lengthOf(text);
    if (length <= room) return text.padEnd(room + (text.length - length));
    return `${[...text].slice(0, room - 1).join('')}…`;
  };
  const line = (row: readonly string[]) => row.map((cell, column) => fit(cell, column)).join(GAP).trimEnd();
  return [style.bold(line(header)), ...cells.map(line)].join('\n');
}

/** Characters as a terminal counts them (code points); plain ASCII, the common case, without splitting. */
function lengthOf(text: string): number {
  return NON_ASCII.test(text) ? [...text].length : text.length;
}

// eslint-disable-next-line no-control-regex -- the test is for anything beyond ASCII
const NON_ASCII = /[^\u0000-\u007f]/;
