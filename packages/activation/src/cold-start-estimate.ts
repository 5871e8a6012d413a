/** How many of a revision's most recent cold starts the estimate looks at. */
export const COLD_START_SAMPLES = 10;
/** The percentile of those that counts as "expected": high, so most clients told to wait that long find it ready. */
export const COLD_START_PERCENTILE = 0.9;
/** Bounds of the Retry-After we advertise, in seconds. */
const MIN_RETRY_S = 1;
const MAX_RETRY_S = 60;

/**
 * How long a cold start of this revision is expected to take (ms): the 90th percentile (nearest rank) of
 * its last ten measured cold starts, so one slow outlier among ten does not move it; undefined before any
 * was measured (callers then fall back to their defaults and never refuse a caller on a guess).
 */
export function expectedStartMs(recentColdStartsMs: readonly number[]): number | undefined {
  const last = recentColdStartsMs
    .slice(-COLD_START_SAMPLES)
    .filter((ms) => Number.isFinite(ms) && ms >= 0)
    .sort((a, b) => a - b);
  if (last.length === 0) return undefined;
  const rank = Math.ceil(COLD_START_PERCENTILE * last.length);
  return last[rank - 1] as number;
}

/**
 * Retry-After (whole seconds) for a 503 of a revision that is starting: its expected start rounded up,
 * within [1, 60]. Before any measured start: 1 s, the soonest a client may usefully come back (the retry
 * itself keeps the activation going).
 */
export function retryAfterSeconds(recentColdStartsMs: readonly number[]): number {
  const ms = expectedStartMs(recentColdStartsMs);
  if (ms === undefined) return MIN_RETRY_S;
  return Math.min(MAX_RETRY_S, Math.max(MIN_RETRY_S, Math.ceil(ms / 1000)));
}

/** A bounded record of measured cold starts per revision key, for a component that sees them end to end. */
export class ColdStartLog {
  readonly #byKey = new Map<string, number[]>();
  readonly #maxKeys: number;

  /** `maxKeys` bounds the revisions remembered; the least recently measured one is forgotten first. */
  constructor(maxKeys = 10_000) {
    if (!(maxKeys >= 1)) throw new RangeError(`maxKeys must be >= 1, got ${maxKeys}`);
    this.#maxKeys = maxKeys;
  }

  /** Records one cold start of `key` that took `ms`. */
  record(key: string, ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    const list = this.#byKey.get(key) ?? [];
    this.#byKey.delete(key);
    list.push(ms);
    if (list.length > COLD_START_SAMPLES) list.shift();
    this.#byKey.set(key, list);
    if (this.#byKey.size > this.#maxKeys) this.#byKey.delete(this.#byKey.keys().next().value as string);
  }

  /** The measured cold starts of `key`, oldest first. */
  recent(key: string): readonly number[] {
    return this.#byKey.get(key) ?? [];
  }

  /** {@link expectedStartMs} of `key`. */
  expectedMs(key: string): number | undefined {
    return expectedStartMs(this.recent(key));
  }

  /** {@link retryAfterSeconds} of `key`. */
  retryAfterSeconds(key: string): number {
    return retryAfterSeconds(this.recent(key));
  }
}
