/** Bounds of the Retry-After we advertise, in seconds. */
const MIN_S = 1;
const MAX_S = 60;

/**
 * Retry-After (whole seconds) for a 503 from a revision's recent cold-start durations: the mean of the
 * last five, rounded up, within [1, 60]. No history yet = 1 s, the soonest a client may usefully retry.
 */
export function retryAfterSeconds(recentColdStartsMs: readonly number[]): number {
  const last = recentColdStartsMs.slice(-5).filter((ms) => Number.isFinite(ms) && ms >= 0);
  if (last.length === 0) return MIN_S;
  const mean = last.reduce((a, b) => a + b, 0) / last.length;
  return Math.min(MAX_S, Math.max(MIN_S, Math.ceil(mean / 1000)));
}
