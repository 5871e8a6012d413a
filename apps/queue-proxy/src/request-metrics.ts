import { type HistogramFamily, type HistogramSeries, MetricsRegistry, observe } from "@thaw/protocol";

/** Knative's bucket bounds for `kn.serving.invocation.duration`, in seconds (c.6). */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

/**
 * The queue-proxy's request metrics under Knative's own names (c.6: Knative's dashboards read them), on
 * @thaw/protocol's registry. Recording is one map lookup by status and a short scan over the bounds (the
 * series object is kept; no label objects), which is what keeps metrics-on within 10 % of metrics-off.
 */
export class RequestMetrics {
  readonly registry = new MetricsRegistry();
  readonly #duration: HistogramFamily;
  readonly #byStatus = new Map<number, HistogramSeries>();
  readonly #constValues: string[];

  constructor(labels: Record<string, string>, queueDepth: (() => number) | null) {
    const names = Object.keys(labels);
    this.#constValues = Object.values(labels);
    this.#duration = this.registry.histogram(
      "kn_serving_invocation_duration_seconds",
      "The time it took to serve a request, from the queue-proxy's view.",
      [...names, "http_response_status_code"],
      DURATION_BUCKETS_SECONDS,
    );
    if (queueDepth) {
      const depth = this.registry.gauge(
        "kn_serving_queue_depth",
        "Requests admitted by the breaker, executing or waiting.",
        names,
      );
      const series = depth.child(this.#constValues);
      this.registry.onCollect(() => {
        series.value = queueDepth();
      });
    }
  }

  /** One finished request: its status and duration in milliseconds. */
  observe(status: number, ms: number): void {
    let s = this.#byStatus.get(status);
    if (s === undefined) {
      s = this.#duration.child([...this.#constValues, String(status)]);
      this.#byStatus.set(status, s);
    }
    observe(s, DURATION_BUCKETS_SECONDS, ms / 1000);
  }

  /** Prometheus text exposition (version 0.0.4). */
  render(): string {
    return this.registry.render();
  }
}
