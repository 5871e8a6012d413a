import { roundToNDigits } from "./round.js";
import { TimedBuckets } from "./timed-buckets.js";

/** Digits Knative keeps in a linear window average. */
const PRECISION = 6;

/** Knative's default window: the plain average over the buckets written so far, rounded to 6 digits. */
export class LinearWindow extends TimedBuckets {
  /** Average over the valid buckets at `now`; buckets that aged out since the last write count as empty. */
  windowAverage(now: number): number {
    const n = this.truncate(now);
    const d = n - this.last;
    const g = this.granularityMs;
    const first = Number.isNaN(this.first) ? this.last : this.first;
    const spanned = Math.trunc((this.last - first) / g) + 1;
    if (d <= 0) {
      return roundToNDigits(PRECISION, this.total / Math.min(spanned, this.slots));
    }
    if (d < this.windowMs) {
      const st = this.index(this.last);
      const en = this.index(n);
      let sum = this.total;
      for (let i = st + 1; i <= en; i++) sum -= this.buckets[this.slot(i)] as number;
      return roundToNDigits(PRECISION, sum / Math.min(spanned, this.slots - (en - st)));
    }
    return 0;
  }
}
