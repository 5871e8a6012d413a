/** One reporting period of a {@link RequestStats} (c.5). */
export interface RequestStatsReport {
  /** Time-weighted mean of concurrent requests over the period. */
  averageConcurrency: number;
  /** Same, counting only requests proxied by the activator. */
  averageProxiedConcurrency: number;
  /** Arrivals during the period. */
  requestCount: number;
  /** Proxied arrivals during the period. */
  proxiedRequestCount: number;
}

/**
 * Knative's time-weighted concurrency accounting (c.5). Every call takes `now` (ms) so it stays a pure
 * function of its inputs; an event stamped earlier than the last one still moves the counters but adds
 * no time.
 */
export class RequestStats {
  #concurrency = 0;
  #proxiedConcurrency = 0;
  #requestCount = 0;
  #proxiedCount = 0;
  #area = 0;
  #proxiedArea = 0;
  #timeInUse = 0;
  #lastChange: number;

  constructor(nowMs: number) {
    this.#lastChange = nowMs;
  }

  /** Requests in flight now. */
  get concurrency(): number {
    return this.#concurrency;
  }

  /** A request arrived. */
  requestIn(nowMs: number): void {
    this.#compute(nowMs);
    this.#concurrency++;
    this.#requestCount++;
  }

  /** A request finished. */
  requestOut(nowMs: number): void {
    this.#compute(nowMs);
    this.#concurrency--;
  }

  /** A request forwarded by the activator (`K-Proxy-Request: activator`) arrived; counts in both totals. */
  proxiedIn(nowMs: number): void {
    this.#compute(nowMs);
    this.#concurrency++;
    this.#proxiedConcurrency++;
    this.#requestCount++;
    this.#proxiedCount++;
  }

  /** A proxied request finished. */
  proxiedOut(nowMs: number): void {
    this.#compute(nowMs);
    this.#concurrency--;
    this.#proxiedConcurrency--;
  }

  /** Closes the period at `now` and starts a new one; in-flight counts carry over. */
  report(nowMs: number): RequestStatsReport {
    this.#compute(nowMs);
    const t = this.#timeInUse;
    const out: RequestStatsReport = {
      averageConcurrency: t > 0 ? this.#area / t : 0,
      averageProxiedConcurrency: t > 0 ? this.#proxiedArea / t : 0,
      requestCount: this.#requestCount,
      proxiedRequestCount: this.#proxiedCount,
    };
    this.#area = 0;
    this.#proxiedArea = 0;
    this.#timeInUse = 0;
    this.#requestCount = 0;
    this.#proxiedCount = 0;
    return out;
  }

  #compute(nowMs: number): void {
    const elapsed = nowMs - this.#lastChange;
    if (elapsed > 0) {
      this.#timeInUse += elapsed;
      this.#area += this.#concurrency * elapsed;
      this.#proxiedArea += this.#proxiedConcurrency * elapsed;
      this.#lastChange = nowMs;
    }
  }
}
