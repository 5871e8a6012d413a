/**
 * The known name a mistyped one most likely meant: `max-scael` → `max-scale`, `maxScale` → `max-scale`,
 * `--activtor` → `--activator`, `concurrency` → `containerConcurrency`. Shared by every bin's flags and by
 * thaw.config.yaml's unknown keys, so both suggest the same way.
 */

/** Lower case without separators, so `maxScale`, `max-scale` and `max_scale` are one word. */
function fold(s: string): string {
  return s.toLowerCase().replace(/[-_.\s]/g, "");
}

/** Levenshtein distance, with a transposition counted as one edit (`scael` → `scale`). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const prev = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = d;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The candidate closest to `name`, or undefined when none is close enough to be a likely typo: a match after
 * folding case and separators wins, then one containing the other as a whole word part
 * (`concurrency` in `containerConcurrency`), then the smallest edit distance within a third of the length,
 * then a candidate the name starts with (`enviroment` → `env`).
 */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  const folded = fold(name);
  if (folded === "") return undefined;
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const fc = fold(c);
    if (fc === "" || c === name) continue;
    let score: number;
    if (fc === folded) score = 0;
    else if (folded.length >= 4 && (fc.endsWith(folded) || fc.startsWith(folded))) score = 0.5;
    else if (fc.length >= 3 && folded.startsWith(fc)) score = 2;
    else {
      const d = editDistance(folded, fc);
      if (d > Math.max(1, Math.floor(Math.max(folded.length, fc.length) / 3))) continue;
      score = d;
    }
    if (score < bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}
