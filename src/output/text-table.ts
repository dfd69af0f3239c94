/**
 * Rows as aligned columns, kubectl- and gh-style: on a terminal the table is fitted to its
 * width (the widest columns cut with '…', the first column never); piped, every value is
 * written whole, so `grep` and `awk` see the real names. Columns are measured as a terminal
 * shows them (display-width.ts: a CJK character or an emoji two columns), after escaping.
 */
import type { ChalkInstance } from 'chalk';
import { displayWidth, padToWidth, widthPrefix } from '../text/display-width.js';
import { serverText } from '../text/terminal-text.js';

export interface TextTableOptions {
  /** The terminal's width; undefined when the output is not a terminal (nothing is cut). */
  width?: number;
  style: ChalkInstance;
}

const GAP = '  ';
const NARROWEST = 6;

/** The table as lines: the header, then a line per row. */
export function textTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, { width, style }: TextTableOptions): string[] {
  // Cells are the catalog's words: one line each, any control character escaped. A listing of
  // 10,000 data sets has 70,000 cells, nearly all printable ASCII: those are taken as they are,
  // one column a character, with one test each (docs/benchmarks.md, "Catalog listing"); the
  // rest are escaped, then measured by the columns a terminal gives them.
  const columns = header.length;
  const cells: string[] = [];
  const lengths: number[] = [];
  const widths = header.map((title) => title.length);
  for (const row of rows) {
    for (let column = 0; column < columns; column++) {
      const raw = row[column] ?? '';
      const plain = PRINTABLE_ASCII.test(raw);
      const cell = plain ? raw : serverText(raw);
      const length = plain ? cell.length : displayWidth(cell);
      cells.push(cell);
      lengths.push(length);
      if (length > widths[column]!) widths[column] = length;
    }
  }
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
  const fit = (text: string, length: number, column: number) => {
    const room = widths[column]!;
    if (length <= room) return column === columns - 1 ? text : text + ' '.repeat(room - length);
    // Cut to one column less than its room, for the '…'; padded when a wide character would not fit whole.
    return `${padToWidth(widthPrefix(text, room - 1), room - 1)}…`;
  };
  const lines = [style.bold(header.map((title, column) => fit(title, title.length, column)).join(GAP).trimEnd())];
  for (let first = 0; first < cells.length; first += columns) {
    let line = '';
    for (let column = 0; column < columns; column++) line += (column === 0 ? '' : GAP) + fit(cells[first + column]!, lengths[first + column]!, column);
    lines.push(line.trimEnd());
  }
  return lines;
}
/** Space to tilde only: nothing to escape, and as many columns as characters. */
const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/;
