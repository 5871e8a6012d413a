/** @param {number[]} xs */
function sortedFinite(xs) {
  return xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
}

/**
 * Median of the finite values (the mean of the middle two for an even count); NaN when there are none.
 * @param {number[]} xs
 */
export function median(xs) {
  const v = sortedFinite(xs);
  if (v.length === 0) return Number.NaN;
  const m = v.length >> 1;
  const mid = v[m] ?? Number.NaN;
  return v.length % 2 ? mid : ((v[m - 1] ?? Number.NaN) + mid) / 2;
}

/**
 * Nearest-rank percentile `p` (0-100] of the finite values: the smallest value with at least p% of the
 * values at or below it; NaN when there are none.
 * @param {number[]} xs
 * @param {number} p
 */
export function quantile(xs, p) {
  const v = sortedFinite(xs);
  if (v.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * v.length);
  return v[Math.min(v.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

/**
 * `x` with `digits` decimals, or `missing` when it is not a finite number (a target that did not run).
 * @param {number} x
 */
export function fixed(x, digits = 2, missing = "-") {
  return Number.isFinite(x) ? x.toFixed(digits) : missing;
}
