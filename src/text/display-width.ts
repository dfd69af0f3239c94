/**
 * How many columns a terminal gives a text: a CJK character or an emoji takes two, a combining
 * mark none (string-width, the measure ora and inquirer use for the same terminals). Measured
 * on text already made terminal-safe (terminal-text.ts serverText): an escaped control is the
 * characters it is shown as. Printable ASCII, nearly every cell dpgw prints, is one column a
 * character and never reaches string-width.
 */
import stringWidth from 'string-width';

/** Space to tilde only: as many columns as characters. */
const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/;

export function displayWidth(text: string): number {
  return PRINTABLE_ASCII.test(text) ? text.length : stringWidth(text);
}

/** The text padded with spaces to `columns` columns (as String#padEnd does by characters). */
export function padToWidth(text: string, columns: number): string {
  const width = displayWidth(text);
  return width >= columns ? text : text + ' '.repeat(columns - width);
}

let graphemes: Intl.Segmenter | undefined;

/** The longest start of the text that fits in `columns` columns, cut between characters as a person sees them (an emoji of several code points stays whole). */
export function widthPrefix(text: string, columns: number): string {
  if (PRINTABLE_ASCII.test(text)) return text.slice(0, columns);
  // Built on the first cut only: the first Intl object of a process loads ICU's data (docs/benchmarks.md, "Start-up").
  graphemes ??= new Intl.Segmenter();
  let kept = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const width = stringWidth(segment);
    if (used + width > columns) break;
    kept += segment;
    used += width;
  }
  return kept;
}
