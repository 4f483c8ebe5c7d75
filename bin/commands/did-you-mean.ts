/**
 * "Did you mean": the known word nearest a mistyped command, subcommand or flag, by edit distance
 * (insertions, deletions, substitutions and swaps of two neighbours each cost 1), as `cdk synth`
 * does for a mistyped context key. A word too far from every candidate gets no suggestion rather
 * than a wrong one.
 */

/** The candidate nearest `word`, or undefined when none is within {@link closeEnough}. Ties go to the first. */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= closeEnough(word) ? best : undefined;
}

/** ` Did you mean "x"?`, or an empty string when nothing is near. */
export function didYouMean(word: string, candidates: Iterable<string>, quote: (s: string) => string = (s) => `"${s}"`): string {
  const found = nearest(word, candidates);
  return found === undefined ? '' : ` Did you mean ${quote(found)}?`;
}

/** How many edits still count as a typo: 1 for short words, a third of the length for longer ones. */
function closeEnough(word: string): number {
  return Math.max(1, Math.floor(word.length / 3));
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
