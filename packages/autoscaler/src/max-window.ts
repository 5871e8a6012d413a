/**
 * Sliding maximum over the last `size` slot indices (a monotone deque), as Knative keeps for the scale-down
 * delay: values that can never again be the maximum are dropped on write, so every operation is amortised O(1).
 */
export class MaxWindow {
  /** Number of slots the maximum is taken over. */
  readonly size: number;
  private idx: number[] = [];
  private val: number[] = [];
  private head = 0;

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`max window size must be ≥ 1, got ${size}`);
    this.size = size;
  }

  /** Records `value` at slot `index` (non-decreasing over calls, as time is). */
  record(index: number, value: number): void {
    while (this.val.length > this.head && (this.val[this.val.length - 1] as number) <= value) {
      this.val.pop();
      this.idx.pop();
    }
    while (this.val.length > this.head && index - (this.idx[this.head] as number) >= this.size) this.head++;
    this.idx.push(index);
    this.val.push(value);
    // Compact now and then so the arrays do not grow with the number of writes.
    if (this.head > 32 && this.head * 2 > this.idx.length) {
      this.idx = this.idx.slice(this.head);
      this.val = this.val.slice(this.head);
      this.head = 0;
    }
  }

  /** The maximum of the values still in the window after the latest write (0 when empty). */
  current(): number {
    return this.val.length > this.head ? (this.val[this.head] as number) : 0;
  }

  /** The entries still held (oldest first), for persisting the window. */
  entries(): { index: number; value: number }[] {
    const out: { index: number; value: number }[] = [];
    for (let i = this.head; i < this.idx.length; i++) {
      out.push({ index: this.idx[i] as number, value: this.val[i] as number });
    }
    return out;
  }

  /** Replaces the contents with previously persisted entries. */
  restore(entries: readonly { index: number; value: number }[]): void {
    this.idx = entries.map((e) => e.index);
    this.val = entries.map((e) => e.value);
    this.head = 0;
  }
}

/** A MaxWindow keyed by time: slot = floor(unix seconds / granularity seconds). */
export class TimedMaxWindow {
  /** Width of one slot. */
  readonly granularityMs: number;
  private readonly window: MaxWindow;

  constructor(durationMs: number, granularityMs: number) {
    if (!(granularityMs > 0)) throw new RangeError(`granularity must be positive, got ${granularityMs} ms`);
    this.granularityMs = granularityMs;
    this.window = new MaxWindow(Math.max(1, Math.ceil(durationMs / granularityMs)));
  }

  /** Number of slots. */
  get size(): number {
    return this.window.size;
  }

  /** Records `value` at time `now` (ms since the Unix epoch). */
  record(now: number, value: number): void {
    const sec = Math.floor(now / 1000);
    this.window.record(Math.floor(sec / (this.granularityMs / 1000)), value);
  }

  /** The maximum recorded within the window. */
  current(): number {
    return this.window.current();
  }

  /** Entries for persistence. */
  entries(): { index: number; value: number }[] {
    return this.window.entries();
  }

  /** Restores persisted entries. */
  restore(entries: readonly { index: number; value: number }[]): void {
    this.window.restore(entries);
  }
}
