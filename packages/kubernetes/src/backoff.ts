/** Settings of {@link Backoff}. */
export interface BackoffOptions {
  /** First delay (default 500 ms). */
  initialMs?: number;
  /** Longest delay before jitter (default 30 s). */
  maxMs?: number;
  /** Growth per failure (default 2). */
  factor?: number;
  /** Up to this fraction is added at random, so replicas that failed together retry apart (default 0.5). */
  jitter?: number;
  /** [0, 1): the randomness, injected so tests are exact. */
  random: () => number;
}

/** Exponential backoff with jitter: each `next()` is a longer delay, `reset()` after a success. */
export class Backoff {
  readonly #initial: number;
  readonly #max: number;
  readonly #factor: number;
  readonly #jitter: number;
  readonly #random: () => number;
  #failures = 0;

  constructor(o: BackoffOptions) {
    this.#initial = o.initialMs ?? 500;
    this.#max = o.maxMs ?? 30_000;
    this.#factor = o.factor ?? 2;
    this.#jitter = o.jitter ?? 0.5;
    this.#random = o.random;
    if (!(this.#initial > 0) || this.#max < this.#initial || this.#factor < 1 || this.#jitter < 0) {
      throw new RangeError(
        `backoff needs 0 < initialMs <= maxMs, factor >= 1, jitter >= 0; got ${this.#initial}, ${this.#max}, ${this.#factor}, ${this.#jitter}`,
      );
    }
  }

  /** Failures since the last reset. */
  get failures(): number {
    return this.#failures;
  }

  /** The delay before the next attempt, counting one more failure. */
  next(): number {
    const base = Math.min(this.#max, this.#initial * this.#factor ** this.#failures);
    this.#failures++;
    return Math.round(base * (1 + this.#jitter * this.#random()));
  }

  /** Back to the first delay. */
  reset(): void {
    this.#failures = 0;
  }
}
