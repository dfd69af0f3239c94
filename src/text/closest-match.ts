/**
 * The candidate nearest to a misspelt word, for "did you mean …?" hints; undefined when none is close.
 *
 * The one rule for every name dpgw looks up (commands, options, keys, catalog names): close
 * means at most max(1, floor(length / 3)) edits (editDistance below: an insertion, deletion,
 * substitution or swap of neighbours each count one), the length being the word's as typed,
 * case ignored. So `trak` (4 letters, 1 edit) gets `track` and `logut` gets `logout`, while
 * `bogus` (5 letters, 1 edit allowed) gets nothing: `logout` is 3 edits away, and a guess that
 * far is noise. commander's own guesses allow 40 % similarity, looser: they are turned off
 * (src/cli/program.ts). Ties go to the first candidate, in the order given.
 */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(1, Math.floor(word.length / 3));
  return bestDistance <= allowed ? best : undefined;
}

/**
 * The one way dpgw says a name is unknown. In a problem line, what follows `unknown key
 * "x"`: " (did you mean y?)", else "; known: a, b" (nothing when nothing is known).
 */
export function unknownNameSuffix(word: string, known: readonly string[]): string {
  const near = closestMatch(word, known);
  return near ? ` (did you mean ${near}?)` : known.length ? `; known: ${known.join(', ')}` : '';
}

/** As a hint: `did you mean "y"?`, else `known <what>: a, b`. */
export function unknownNameHint(word: string, known: readonly string[], what = 'keys'): string {
  const near = closestMatch(word, known);
  return near ? `did you mean "${near}"?` : `known ${what}: ${known.join(', ')}`;
}

/** Levenshtein distance with adjacent transpositions counted as one edit. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
