import { COLD_START_BUCKETS_SECONDS, MetricsRegistry } from "@thaw/protocol";
import type { Coordinator } from "../ports.js";
import type { StatPump } from "../stat-pump.js";
import type { Telemetry } from "../telemetry.js";

const REV = ["namespace", "revision"] as const;

/** What the activator's metrics read: its telemetry, and on scrape the coordinator's queues and the stat link. */
export interface ActivatorMetricSources {
  telemetry: Telemetry;
  coordinator?: Pick<Coordinator, "queueDepths">;
  statLink?: Pick<StatPump, "failures" | "reconnects" | "dropped">;
}

/**
 * The activator's Prometheus metrics (docs/metrics.md): the cold-start histogram, per-revision received, queued,
 * rejected and replayed counters, the queue depth, and the stat link to the autoscaler. Counters mirror the
 * portable telemetry, the single source of those numbers; the rest is read on scrape.
 */
export function createMetrics(src: ActivatorMetricSources): MetricsRegistry {
  const { telemetry } = src;
  const registry = new MetricsRegistry();
  const coldStart = registry.histogram(
    "thaw_activator_cold_start_seconds",
    "Time from a revision's first waiting request to its first pod passing the queue probe.",
    REV,
    COLD_START_BUCKETS_SECONDS,
  );
  telemetry.onColdStart((s) => coldStart.observe([s.namespace, s.name], s.durationMs / 1000));
  const received = registry.counter(
    "thaw_activator_requests_total",
    "Requests the activator took for a revision, whether they waited or went to a pod at once.",
    REV,
  );
  const queued = registry.counter(
    "thaw_activator_requests_queued_total",
    "Requests that waited for a pod.",
    REV,
  );
  const rejected = registry.counter(
    "thaw_activator_requests_rejected_total",
    "Requests answered 503 (queue full or deadline) without reaching a pod.",
    REV,
  );
  const replayed = registry.counter(
    "thaw_activator_requests_replayed_total",
    "Forwards sent again to another pod.",
    REV,
  );
  const depth = registry.gauge(
    "thaw_activator_queue_depth",
    "Requests waiting for capacity now (proxied requests and /v1/activate callers).",
    REV,
  );
  registry.onCollect(() => {
    for (const r of telemetry.revisions()) {
      const v = [r.namespace, r.name];
      received.set(v, r.received);
      queued.set(v, r.queued);
      rejected.set(v, r.rejected);
      replayed.set(v, r.replayed);
    }
    depth.clear();
    for (const q of src.coordinator?.queueDepths?.() ?? []) depth.set([q.namespace, q.name], q.waiting);
  });
  const link = src.statLink;
  if (link) {
    const failures = registry.counter(
      "thaw_activator_stat_link_failures_total",
      "Stat sends to the autoscaler that failed (each starts a backoff).",
    );
    const reconnects = registry.counter(
      "thaw_activator_stat_link_reconnects_total",
      "Times the stat link to the autoscaler came back after a failure.",
    );
    const dropped = registry.counter(
      "thaw_activator_stat_batches_dropped_total",
      "Stat batches dropped because the autoscaler stayed unreachable and the queue was full.",
    );
    registry.onCollect(() => {
      failures.set([], link.failures);
      reconnects.set([], link.reconnects);
      dropped.set([], link.dropped);
    });
  }
  return registry;
}
