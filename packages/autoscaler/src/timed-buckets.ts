/** A window's contents in plain data, for persisting (e.g. in Durable Object storage). */
export interface WindowSnapshot {
  windowMs: number;
  granularityMs: number;
  buckets: number[];
  total: number;
  firstWriteMs: number | null;
  lastWriteMs: number | null;
}

/**
 * The ring of time buckets behind Knative's windowed averages (knative-spec.md e.3). Times are milliseconds
 * since the Unix epoch; every time is first truncated to the granularity. Subclasses add the averaging rule.
 */
export abstract class TimedBuckets {
  protected buckets: Float64Array;
  /** `buckets.length`, kept on this object so a read that needs no bucket does not touch the array. */
  protected slots: number;
  protected total = 0;
  /**
   * Start of the oldest bucket known to hold data; NaN = nothing written (or reset by a stale resize). A
   * number rather than undefined so the field always holds a double, which V8 then updates in place.
   */
  protected first = Number.NaN;
  /** Start of the newest written bucket; -Infinity before the first write so every first write resets. */
  protected last = Number.NEGATIVE_INFINITY;
  protected windowMs: number;
  /** Width of one bucket. */
  readonly granularityMs: number;

  constructor(windowMs: number, granularityMs = 1000) {
    if (!(granularityMs > 0) || !(windowMs > 0)) {
      throw new RangeError(`window (${windowMs} ms) and granularity (${granularityMs} ms) must be positive`);
    }
    this.windowMs = windowMs;
    this.granularityMs = granularityMs;
    this.buckets = new Float64Array(Math.ceil(windowMs / granularityMs));
    this.slots = this.buckets.length;
  }

  /** The window length in milliseconds. */
  get window(): number {
    return this.windowMs;
  }

  /** Number of buckets in the ring. */
  get bucketCount(): number {
    return this.slots;
  }

  /** Start of the oldest bucket that may hold data, or undefined when there is none. */
  get firstWriteMs(): number | undefined {
    return Number.isNaN(this.first) ? undefined : this.first;
  }

  /** Start of the newest written bucket, or undefined before the first write. */
  get lastWriteMs(): number | undefined {
    return this.last === Number.NEGATIVE_INFINITY ? undefined : this.last;
  }

  protected truncate(t: number): number {
    return Math.floor(t / this.granularityMs) * this.granularityMs;
  }

  protected index(t: number): number {
    return Math.floor(t / this.granularityMs);
  }

  protected slot(index: number): number {
    const n = this.slots;
    return ((index % n) + n) % n;
  }

  /** Adds `value` to the bucket of time `t`; writes a whole window older than the newest write are dropped. */
  record(t: number, value: number): void {
    const bt = this.truncate(t);
    const writeIdx = this.index(bt);
    if (bt !== this.last) {
      if (!(bt + this.windowMs > this.last)) return;
      // NaN (nothing written) compares false, so it is replaced as an undefined start was.
      if (!(this.first <= bt)) this.first = bt;
      if (bt > this.last) {
        if (bt - this.last >= this.windowMs) {
          this.first = bt;
          this.buckets.fill(0);
          this.total = 0;
        } else {
          // Buckets skipped since the last write hold data from a whole ring ago: clear them.
          for (let i = this.index(this.last) + 1; i <= writeIdx; i++) {
            const s = this.slot(i);
            this.total -= this.buckets[s] as number;
            this.buckets[s] = 0;
          }
        }
        this.last = bt;
      }
    }
    const s = this.slot(writeIdx);
    this.buckets[s] = (this.buckets[s] as number) + value;
    this.total += value;
  }

  /** True when nothing was written within one window before `now`. */
  isEmpty(now: number): boolean {
    return this.truncate(now) - this.last > this.windowMs;
  }

  /**
   * Visits the buckets still inside the window seen from `now`, newest first, with each bucket's start time.
   * An inspection view (Knative keeps the equivalent for tests); the averages do not use it.
   */
  forEachBucket(now: number, visit: (startMs: number, value: number) => void): void {
    const n = this.truncate(now);
    if (n - this.last >= this.windowMs) return;
    const count = this.slots - Math.trunc((n - this.last) / this.granularityMs);
    let idx = this.index(this.last);
    let t = this.last;
    for (let i = 0; i < count; i++) {
      visit(t, this.buckets[this.slot(idx)] as number);
      idx--;
      t -= this.granularityMs;
    }
  }

  /** Sum of the buckets still inside the window seen from `now`. */
  bucketSum(now: number): number {
    let sum = 0;
    this.forEachBucket(now, (_t, v) => {
      sum += v;
    });
    return sum;
  }

  /**
   * Changes the window length. Data written within the old window (seen from the wall clock `now`) is kept,
   * newest buckets first, so a revision's history survives an annotation change; stale data is dropped.
   * Returns false when the window was already `windowMs` (nothing changed).
   */
  resize(windowMs: number, now: number): boolean {
    if (windowMs === this.windowMs) return false;
    if (!(windowMs > 0)) throw new RangeError(`window must be positive, got ${windowMs} ms`);
    const oldN = this.slots;
    const newN = Math.ceil(windowMs / this.granularityMs);
    const next = new Float64Array(newN);
    let total = 0;
    if (!this.isEmpty(now)) {
      let idx = this.index(this.last);
      for (let i = 0; i < Math.min(newN, oldN); i++) {
        const v = this.buckets[this.slot(idx)] as number;
        next[((idx % newN) + newN) % newN] = v;
        total += v;
        idx--;
      }
      this.first = this.last - (oldN - 1) * this.granularityMs;
    } else {
      this.first = Number.NaN;
    }
    this.windowMs = windowMs;
    this.buckets = next;
    this.slots = newN;
    this.total = total;
    return true;
  }

  /** The window's contents as plain data. */
  snapshot(): WindowSnapshot {
    return {
      windowMs: this.windowMs,
      granularityMs: this.granularityMs,
      buckets: Array.from(this.buckets),
      total: this.total,
      firstWriteMs: this.firstWriteMs ?? null,
      lastWriteMs: this.lastWriteMs ?? null,
    };
  }

  /** Replaces the contents with a snapshot taken from a window of the same size and granularity. */
  restore(s: WindowSnapshot): void {
    if (s.granularityMs !== this.granularityMs || s.buckets.length !== this.slots) {
      throw new RangeError(
        `snapshot of ${s.buckets.length} × ${s.granularityMs} ms buckets does not fit ${this.slots} × ${this.granularityMs} ms`,
      );
    }
    this.windowMs = s.windowMs;
    this.buckets = Float64Array.from(s.buckets);
    this.total = s.total;
    this.first = s.firstWriteMs ?? Number.NaN;
    this.last = s.lastWriteMs ?? Number.NEGATIVE_INFINITY;
  }

  /** The window's average as seen at `now`. */
  abstract windowAverage(now: number): number;
}
