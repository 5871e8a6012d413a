import { BUCKET_SIZE_MS } from "./config.js";
import { LinearWindow } from "./linear-window.js";
import type { LoadStat } from "./load-stat.js";
import type { TimedBuckets, WindowSnapshot } from "./timed-buckets.js";
import { WeightedWindow } from "./weighted-window.js";

/** How a revision's metric is collected (Knative's Metric spec). */
export interface MetricSpec {
  stableWindowMs: number;
  panicWindowMs: number;
  /** Empty or absent = nothing to scrape (TBC = −1): an empty window then reads as 0 instead of "no data". */
  scrapeTarget?: string;
  /** Window kind; Knative's `metric-aggregation-algorithm` annotation. */
  aggregation?: "linear" | "weighted";
}

/** One revision's four windows as plain data. */
export interface CollectionSnapshot {
  spec: MetricSpec;
  concurrencyStable: WindowSnapshot;
  concurrencyPanic: WindowSnapshot;
  rpsStable: WindowSnapshot;
  rpsPanic: WindowSnapshot;
}

/** Stable and panic averages of one metric, or why there are none. */
export type WindowReading =
  | { ok: true; stable: number; panic: number }
  | { ok: false; error: "no-data" | "not-found" };

interface Collection {
  spec: MetricSpec;
  concStable: TimedBuckets;
  concPanic: TimedBuckets;
  rpsStable: TimedBuckets;
  rpsPanic: TimedBuckets;
}

function makeWindow(spec: MetricSpec, windowMs: number): TimedBuckets {
  return spec.aggregation === "weighted"
    ? new WeightedWindow(windowMs, BUCKET_SIZE_MS)
    : new LinearWindow(windowMs, BUCKET_SIZE_MS);
}

/**
 * Per-revision stable and panic windows for concurrency and RPS (e.4). Keys are whatever the caller uses
 * for a revision (e.g. "namespace/name"). Pure over time: every call takes `now` in ms since the epoch.
 */
export class MetricCollector {
  private readonly revisions = new Map<string, Collection>();

  /** Starts collecting for `key`, or updates its spec (resizing the windows, keeping fresh data). */
  createOrUpdate(key: string, spec: MetricSpec, now: number): void {
    const c = this.revisions.get(key);
    if (!c) {
      this.revisions.set(key, {
        spec,
        concStable: makeWindow(spec, spec.stableWindowMs),
        concPanic: makeWindow(spec, spec.panicWindowMs),
        rpsStable: makeWindow(spec, spec.stableWindowMs),
        rpsPanic: makeWindow(spec, spec.panicWindowMs),
      });
      return;
    }
    const kindChanged = (c.spec.aggregation ?? "linear") !== (spec.aggregation ?? "linear");
    if (kindChanged) {
      // A different averaging rule needs new windows; Knative recreates the collection too.
      this.revisions.delete(key);
      this.createOrUpdate(key, spec, now);
      return;
    }
    c.spec = spec;
    c.concStable.resize(spec.stableWindowMs, now);
    c.rpsStable.resize(spec.stableWindowMs, now);
    c.concPanic.resize(spec.panicWindowMs, now);
    c.rpsPanic.resize(spec.panicWindowMs, now);
  }

  /** The revision's windows as plain data (undefined when `key` is unknown), e.g. to survive an eviction. */
  snapshot(key: string): CollectionSnapshot | undefined {
    const c = this.revisions.get(key);
    if (!c) return undefined;
    return {
      spec: c.spec,
      concurrencyStable: c.concStable.snapshot(),
      concurrencyPanic: c.concPanic.snapshot(),
      rpsStable: c.rpsStable.snapshot(),
      rpsPanic: c.rpsPanic.snapshot(),
    };
  }

  /** Recreates a revision's collection from a snapshot. */
  restore(key: string, s: CollectionSnapshot): void {
    this.revisions.delete(key);
    this.createOrUpdate(key, s.spec, 0);
    const c = this.revisions.get(key) as Collection;
    c.concStable.restore(s.concurrencyStable);
    c.concPanic.restore(s.concurrencyPanic);
    c.rpsStable.restore(s.rpsStable);
    c.rpsPanic.restore(s.rpsPanic);
  }

  /** Stops collecting for `key`. */
  delete(key: string): boolean {
    return this.revisions.delete(key);
  }

  /** True when `key` is being collected. */
  has(key: string): boolean {
    return this.revisions.has(key);
  }

  /** The keys being collected. */
  keys(): IterableIterator<string> {
    return this.revisions.keys();
  }

  /**
   * Records one stat at time `at` (ms). Proxied traffic is subtracted because the activator reports it too.
   * Returns false when `key` is unknown.
   */
  record(key: string, at: number, stat: LoadStat): boolean {
    const c = this.revisions.get(key);
    if (!c) return false;
    const conc = stat.averageConcurrentRequests - (stat.averageProxiedConcurrentRequests ?? 0);
    const rps = stat.requestCount - (stat.proxiedRequestCount ?? 0);
    c.concStable.record(at, conc);
    c.concPanic.record(at, conc);
    c.rpsStable.record(at, rps);
    c.rpsPanic.record(at, rps);
    return true;
  }

  /** Records a pushed stat at its own timestamp (Unix seconds), or at `now` when the timestamp is 0. */
  recordStat(key: string, stat: LoadStat, now: number): boolean {
    const ts = stat.timestamp ?? 0;
    return this.record(key, ts === 0 ? now : ts * 1000, stat);
  }

  /** Stable and panic concurrency at `now`. */
  stableAndPanicConcurrency(key: string, now: number): WindowReading {
    const c = this.revisions.get(key);
    if (!c) return { ok: false, error: "not-found" };
    return read(c, c.concStable, c.concPanic, now);
  }

  /** Stable and panic requests per second at `now`. */
  stableAndPanicRPS(key: string, now: number): WindowReading {
    const c = this.revisions.get(key);
    if (!c) return { ok: false, error: "not-found" };
    return read(c, c.rpsStable, c.rpsPanic, now);
  }

  /** Readings for the metric a decider scales on. */
  readingFor(key: string, metric: "concurrency" | "rps", now: number): WindowReading {
    return metric === "rps" ? this.stableAndPanicRPS(key, now) : this.stableAndPanicConcurrency(key, now);
  }
}

function read(c: Collection, stable: TimedBuckets, panic: TimedBuckets, now: number): WindowReading {
  if (stable.isEmpty(now) && c.spec.scrapeTarget) return { ok: false, error: "no-data" };
  return { ok: true, stable: stable.windowAverage(now), panic: panic.windowAverage(now) };
}

/**
 * The poke rule: a stat that shows load for a revision whose last desired scale was 0 should run the decider
 * at once instead of waiting for the next 2 s tick, so a cold start does not wait for the tick.
 */
export function shouldPoke(lastDesiredScale: number, stat: LoadStat): boolean {
  return lastDesiredScale === 0 && stat.averageConcurrentRequests !== 0;
}
