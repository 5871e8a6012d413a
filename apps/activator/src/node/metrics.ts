import { Counter, Histogram, Registry } from "prom-client";
import type { Telemetry } from "../telemetry.js";

/** Prometheus view of the activator's telemetry: cold-start histogram, queued/rejected/replayed counters. */
export function createMetrics(telemetry: Telemetry): Registry {
  const registry = new Registry();
  const coldStart = new Histogram({
    name: "thaw_activator_cold_start_seconds",
    help: "Time from a revision's first waiting request to its first pod passing the queue probe.",
    labelNames: ["namespace", "revision"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3.5, 5, 10, 20, 30, 60],
    registers: [registry],
  });
  telemetry.onColdStart((s) =>
    coldStart.observe({ namespace: s.namespace, revision: s.name }, s.durationMs / 1000),
  );
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        // Counters mirror the portable telemetry, which is the single source of these numbers.
        this.reset();
        this.inc(read());
      },
    });
  counter(
    "thaw_activator_requests_queued_total",
    "Requests that waited for a pod.",
    () => telemetry.snapshot().queued,
  );
  counter(
    "thaw_activator_requests_rejected_total",
    "Requests answered 503 (queue full or deadline).",
    () => telemetry.snapshot().rejected,
  );
  counter(
    "thaw_activator_requests_replayed_total",
    "Forwards sent again to another pod.",
    () => telemetry.snapshot().replayed,
  );
  return registry;
}
