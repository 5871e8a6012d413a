import { RequestStats } from "@thaw/activation";

/** One revision's load over the last period (the activator Worker's `POST /v1/load` item). */
export interface LoadReport {
  namespace: string;
  name: string;
  /** Average concurrency times the period's milliseconds. */
  requestMs: number;
  requestCount: number;
}

/**
 * What one gateway isolate sent straight to the origin, per revision, for the edge decider: warm requests
 * never reach the activator, so the gateway reports them at most once a second. Stops for good once the
 * activator says it wants none (EDGE_DECIDER off). Time is a parameter.
 */
export class LoadReporter {
  readonly #revs = new Map<string, { namespace: string; name: string; stats: RequestStats; open: number }>();
  #last: number;
  #off = false;

  constructor(
    now: number,
    readonly periodMs = 1000,
  ) {
    this.#last = now;
  }

  /** A request for `rev` went to the origin. */
  requestIn(rev: { namespace: string; name: string }, now: number): void {
    if (this.#off) return;
    const key = `${rev.namespace}/${rev.name}`;
    let e = this.#revs.get(key);
    if (!e) {
      e = { ...rev, stats: new RequestStats(now), open: 0 };
      this.#revs.set(key, e);
    }
    e.open++;
    e.stats.requestIn(now);
  }

  /** Its answer came back. */
  requestOut(rev: { namespace: string; name: string }, now: number): void {
    const e = this.#revs.get(`${rev.namespace}/${rev.name}`);
    if (!e) return;
    e.open--;
    e.stats.requestOut(now);
  }

  /** The reports due at `now`, or none when the period has not passed (or reporting is off). */
  take(now: number): LoadReport[] {
    if (this.#off || now - this.#last < this.periodMs || this.#revs.size === 0) return [];
    const period = now - this.#last;
    this.#last = now;
    const out: LoadReport[] = [];
    for (const [key, e] of this.#revs) {
      const r = e.stats.report(now);
      out.push({
        namespace: e.namespace,
        name: e.name,
        requestMs: r.averageConcurrency * period,
        requestCount: r.requestCount,
      });
      if (e.open === 0) this.#revs.delete(key);
    }
    return out;
  }

  /** The activator wants no reports: stop measuring. */
  stop(): void {
    this.#off = true;
    this.#revs.clear();
  }
}
