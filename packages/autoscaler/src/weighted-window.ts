import { TimedBuckets } from "./timed-buckets.js";

/** Knative's smoothing coefficient for `numBuckets` buckets: the newest bucket's weight, at least 0.2. */
export function smoothingCoefficient(numBuckets: number): number {
  return Math.max(1 - 0.0001 ** (1 / numBuckets), 0.2);
}

/** Weighted-exponential window: newer buckets weigh more, so the average reacts faster than the linear one. */
export class WeightedWindow extends TimedBuckets {
  private alpha: number;

  constructor(windowMs: number, granularityMs = 1000) {
    super(windowMs, granularityMs);
    this.alpha = smoothingCoefficient(this.slots);
  }

  /** The weight of the newest bucket. */
  get smoothingCoefficient(): number {
    return this.alpha;
  }

  /** Exponentially weighted sum at `now` (not rounded, as in Knative). */
  windowAverage(now: number): number {
    const n = this.truncate(now);
    if (this.isEmpty(n)) return 0;
    const total = this.slots;
    let count = total;
    let m = this.alpha;
    if (n > this.last) {
      const zeros = Math.trunc((n - this.last) / this.granularityMs);
      m *= (1 - this.alpha) ** zeros;
      count -= zeros;
    }
    let idx = this.index(this.last);
    let sum = 0;
    for (let i = 0; i < count; i++) {
      sum += (this.buckets[this.slot(idx)] as number) * m;
      m *= 1 - this.alpha;
      idx--;
    }
    return sum;
  }

  /** Resizes and recomputes the smoothing coefficient for the new bucket count. */
  override resize(windowMs: number, now: number): boolean {
    const changed = super.resize(windowMs, now);
    if (changed) this.alpha = smoothingCoefficient(this.slots);
    return changed;
  }
}
