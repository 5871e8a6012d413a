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

function makeWindow(aggregation: MetricSpec["aggregation"], windowMs: number): TimedBuckets {
  return aggregation === "weighted"
    ? new WeightedWindow(windowMs, BUCKET_SIZE_MS)
    : new LinearWindow(windowMs, BUCKET_SIZE_MS);
}

/**
 * One revision's stable and panic windows for concurrency and RPS (e.4). A caller that ticks many revisions
 * holds this next to each revision's decider, so a tick reads the windows without a lookup by key.
 * Pure over time: every call takes `now` in ms since the epoch.
 */
export class MetricCollection {
  #spec: MetricSpec;
  /** The spec's "has a scrape target", kept here so a read does not touch the spec object. */
  #scraped: boolean;
  #concStable!: TimedBuckets;
  #concPanic!: TimedBuckets;
  #rpsStable!: TimedBuckets;
  #rpsPanic!: TimedBuckets;

  constructor(spec: MetricSpec) {
    this.#spec = spec;
    this.#scraped = Boolean(spec.scrapeTarget);
    this.#build(spec);
  }

  /** New empty windows for `spec`. */
  #build(spec: MetricSpec): void {
    this.#concStable = makeWindow(spec.aggregation, spec.stableWindowMs);
    this.#concPanic = makeWindow(spec.aggregation, spec.panicWindowMs);
    this.#rpsStable = makeWindow(spec.aggregation, spec.stableWindowMs);
    this.#rpsPanic = makeWindow(spec.aggregation, spec.panicWindowMs);
  }

  /** The spec the windows were last built or resized for. */
  get spec(): MetricSpec {
    return this.#spec;
  }

  /**
   * Takes a new spec: windows are resized keeping fresh data, or rebuilt empty when the averaging rule
   * changes (Knative recreates the collection then). This object stays the revision's collection either way.
   */
  update(spec: MetricSpec, now: number): void {
    const kindChanged = (this.#spec.aggregation ?? "linear") !== (spec.aggregation ?? "linear");
    this.#spec = spec;
    this.#scraped = Boolean(spec.scrapeTarget);
    if (kindChanged) {
      this.#build(spec);
      return;
    }
    this.#concStable.resize(spec.stableWindowMs, now);
    this.#rpsStable.resize(spec.stableWindowMs, now);
    this.#concPanic.resize(spec.panicWindowMs, now);
    this.#rpsPanic.resize(spec.panicWindowMs, now);
  }

  /** Records one stat at time `at` (ms). Proxied traffic is subtracted because the activator reports it too. */
  record(at: number, stat: LoadStat): void {
    const conc = stat.averageConcurrentRequests - (stat.averageProxiedConcurrentRequests ?? 0);
    const rps = stat.requestCount - (stat.proxiedRequestCount ?? 0);
    this.#concStable.record(at, conc);
    this.#concPanic.record(at, conc);
    this.#rpsStable.record(at, rps);
    this.#rpsPanic.record(at, rps);
  }

  /** Records a pushed stat at its own timestamp (Unix seconds), or at `now` when the timestamp is 0. */
  recordStat(stat: LoadStat, now: number): void {
    const ts = stat.timestamp ?? 0;
    this.record(ts === 0 ? now : ts * 1000, stat);
  }

  /** Stable and panic averages at `now` of the metric a decider scales on. */
  reading(metric: "concurrency" | "rps", now: number): WindowReading {
    return metric === "rps"
      ? this.#read(this.#rpsStable, this.#rpsPanic, now)
      : this.#read(this.#concStable, this.#concPanic, now);
  }

  #read(stable: TimedBuckets, panic: TimedBuckets, now: number): WindowReading {
    if (this.#scraped && stable.isEmpty(now)) return { ok: false, error: "no-data" };
    return { ok: true, stable: stable.windowAverage(now), panic: panic.windowAverage(now) };
  }

  /** The windows as plain data, e.g. to survive a Durable Object eviction. */
  snapshot(): CollectionSnapshot {
    return {
      spec: this.#spec,
      concurrencyStable: this.#concStable.snapshot(),
      concurrencyPanic: this.#concPanic.snapshot(),
      rpsStable: this.#rpsStable.snapshot(),
      rpsPanic: this.#rpsPanic.snapshot(),
    };
  }

  /** Replaces spec and contents with a snapshot's (windows rebuilt for its spec, then filled). */
  restore(s: CollectionSnapshot): void {
    const spec = s.spec;
    this.#spec = spec;
    this.#scraped = Boolean(spec.scrapeTarget);
    this.#build(spec);
    this.#concStable.restore(s.concurrencyStable);
    this.#concPanic.restore(s.concurrencyPanic);
    this.#rpsStable.restore(s.rpsStable);
    this.#rpsPanic.restore(s.rpsPanic);
  }
}
