import { RequestStats } from "@thaw/activation";
import {
  type AutoscalerConfig,
  DEFAULT_AUTOSCALER_CONFIG,
  Decider,
  deciderSpecFor,
  MetricCollector,
  metricSpecFor,
  parseAnnotations,
} from "@thaw/autoscaler";

/** What one decider tick concluded. */
export interface EdgeTick {
  /** Pods the revision should have; the previous value when the tick had no valid reading. */
  desired: number;
  /** True when `desired` differs from the last tick's (the scaler is told only then). */
  changed: boolean;
  excessBurstCapacity: number;
}

/**
 * The autoscaler's decider for one revision, fed by the requests the edge itself sees (it is the only
 * ingress at the edge, so its concurrency is the revision's): @thaw/activation's RequestStats measure,
 * @thaw/autoscaler's collector and KPA decider decide. Call `tick` every 2 s; time is a parameter.
 */
export class EdgeScaling {
  readonly #id: string;
  readonly #stats: RequestStats;
  readonly #collector = new MetricCollector();
  readonly #decider: Decider;
  #lastTick: number;
  #desired = 0;

  constructor(
    id: string,
    containerConcurrency: number,
    now: number,
    annotations: Record<string, string> = {},
    config: AutoscalerConfig = DEFAULT_AUTOSCALER_CONFIG,
  ) {
    this.#id = id;
    const facts = { containerConcurrency, annotations: parseAnnotations(annotations, config).value };
    // No scrape target: every request passes through here, as with Knative's TBC = -1.
    this.#collector.createOrUpdate(id, metricSpecFor(config, facts, ""), now);
    this.#decider = new Decider(deciderSpecFor(config, facts), 0, now);
    this.#stats = new RequestStats(now);
    this.#lastTick = now;
  }

  /** A request entered (waiting or forwarded). */
  requestIn(now: number): void {
    this.#stats.requestIn(now);
  }

  /** A request left. */
  requestOut(now: number): void {
    this.#stats.requestOut(now);
  }

  /** Records the load since the last tick and runs the decider with `readyPods`. */
  tick(now: number, readyPods: number): EdgeTick {
    const periodSec = Math.max(0.001, (now - this.#lastTick) / 1000);
    this.#lastTick = now;
    const r = this.#stats.report(now);
    this.#collector.recordStat(
      this.#id,
      { averageConcurrentRequests: r.averageConcurrency, requestCount: r.requestCount / periodSec },
      now,
    );
    const reading = this.#collector.readingFor(this.#id, this.#decider.spec.scalingMetric, now);
    const res = this.#decider.scale(now, { readyPods, metrics: reading.ok ? reading : null });
    const desired = res.scaleValid ? res.desiredPodCount : this.#desired;
    const changed = desired !== this.#desired;
    this.#desired = desired;
    return { desired, changed, excessBurstCapacity: res.excessBurstCapacity };
  }
}
