import {
  type CollectionSnapshot,
  MetricCollection,
  type MetricSpec,
  type WindowReading,
} from "./collection.js";
import type { LoadStat } from "./load-stat.js";

/**
 * Per-revision metric collections by key (e.4). Keys are whatever the caller uses for a revision (e.g.
 * "namespace/name"). A caller that ticks many revisions keeps the `MetricCollection` that `createOrUpdate`
 * returns and reads it directly; the by-key reads are for callers that hold only the key.
 */
export class MetricCollector {
  private readonly revisions = new Map<string, MetricCollection>();

  /**
   * Starts collecting for `key`, or updates its spec (resizing the windows, keeping fresh data). Returns the
   * revision's collection, the same object for as long as `key` is collected.
   */
  createOrUpdate(key: string, spec: MetricSpec, now: number): MetricCollection {
    const c = this.revisions.get(key);
    if (c) {
      c.update(spec, now);
      return c;
    }
    const made = new MetricCollection(spec);
    this.revisions.set(key, made);
    return made;
  }

  /** The collection of `key`, or undefined when it is not collected. */
  collection(key: string): MetricCollection | undefined {
    return this.revisions.get(key);
  }

  /** The revision's windows as plain data (undefined when `key` is unknown), e.g. to survive an eviction. */
  snapshot(key: string): CollectionSnapshot | undefined {
    return this.revisions.get(key)?.snapshot();
  }

  /** Recreates a revision's windows from a snapshot (in the collection already held for `key`, if any). */
  restore(key: string, s: CollectionSnapshot): MetricCollection {
    let c = this.revisions.get(key);
    if (!c) {
      c = new MetricCollection(s.spec);
      this.revisions.set(key, c);
    }
    c.restore(s);
    return c;
  }

  /** Stops collecting for `key`; a collection still held elsewhere keeps its data but is no longer fed by key. */
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
    c.record(at, stat);
    return true;
  }

  /** Records a pushed stat at its own timestamp (Unix seconds), or at `now` when the timestamp is 0. */
  recordStat(key: string, stat: LoadStat, now: number): boolean {
    const c = this.revisions.get(key);
    if (!c) return false;
    c.recordStat(stat, now);
    return true;
  }

  /** Stable and panic concurrency at `now`. */
  stableAndPanicConcurrency(key: string, now: number): WindowReading {
    return this.readingFor(key, "concurrency", now);
  }

  /** Stable and panic requests per second at `now`. */
  stableAndPanicRPS(key: string, now: number): WindowReading {
    return this.readingFor(key, "rps", now);
  }

  /** Readings for the metric a decider scales on. */
  readingFor(key: string, metric: "concurrency" | "rps", now: number): WindowReading {
    const c = this.revisions.get(key);
    return c ? c.reading(metric, now) : { ok: false, error: "not-found" };
  }
}

/**
 * The poke rule: a stat that shows load for a revision whose last desired scale was 0 should run the decider
 * at once instead of waiting for the next 2 s tick, so a cold start does not wait for the tick.
 */
export function shouldPoke(lastDesiredScale: number, stat: LoadStat): boolean {
  return lastDesiredScale === 0 && stat.averageConcurrentRequests !== 0;
}
