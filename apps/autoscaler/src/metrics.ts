import { COLD_START_BUCKETS_SECONDS, MetricsRegistry } from "@thaw/protocol";
import type { AutoscalerService } from "./service.js";
import type { StatSocket } from "./stat-server.js";

const REV = ["namespace", "revision"] as const;

/** Bounds of the cold-start phase histogram, in seconds: a phase takes from under a millisecond to a minute. */
export const PHASE_BUCKETS_SECONDS: readonly number[] = [
  0.001,
  0.005,
  0.01,
  0.025,
  ...COLD_START_BUCKETS_SECONDS,
];

/** The autoscaler's metrics and the families other parts of the process fill. */
export interface AutoscalerMetrics {
  registry: MetricsRegistry;
  /** `thaw_cold_start_phase_seconds{namespace,revision,phase}`: where a cold start's phases are recorded. */
  coldStartPhase: ReturnType<MetricsRegistry["histogram"]>;
}

/**
 * The autoscaler's Prometheus metrics (docs/metrics.md): per revision the decider's outputs (desired pods,
 * excess burst capacity, panic mode, stable/panic/target concurrency), requested and ready pods, scrape
 * errors, and the cold starts it saw. Gauges are read from the service on each scrape; nothing is added to
 * the decider's loop but one counter on a failed scrape.
 */
export function autoscalerMetrics(service: AutoscalerService): AutoscalerMetrics {
  const registry = new MetricsRegistry();
  const g = (name: string, help: string) => registry.gauge(name, help, REV);
  const desired = g("thaw_autoscaler_desired_pods", "Pods the decider wants (its last valid tick).");
  const requested = g("thaw_autoscaler_requested_pods", "Replicas asked of the scaler.");
  const ready = g("thaw_autoscaler_ready_pods", "Pods passing their readiness probe.");
  const panic = g("thaw_autoscaler_panic_mode", "1 while the decider is in panic mode, else 0.");
  const excess = g(
    "thaw_autoscaler_excess_burst_capacity",
    "Spare capacity beyond the target burst capacity; negative keeps the activator in the path.",
  );
  const stable = g("thaw_autoscaler_stable_concurrency", "Average concurrency over the stable window.");
  const panicConc = g("thaw_autoscaler_panic_concurrency", "Average concurrency over the panic window.");
  const target = g("thaw_autoscaler_target_concurrency", "The decider's target concurrency per pod.");
  const scrapeErrors = registry.counter(
    "thaw_autoscaler_scrape_errors_total",
    "Scrapes of a pod's queue-proxy stat endpoint that failed.",
    REV,
  );
  const coldStart = registry.histogram(
    "thaw_autoscaler_cold_start_seconds",
    "Time from a scale-up from zero (or a request while at zero) to the first ready pod.",
    REV,
    COLD_START_BUCKETS_SECONDS,
  );
  const coldStartPhase = registry.histogram(
    "thaw_cold_start_phase_seconds",
    "Duration of each phase of a cold start (queued, scale decision, process started, first ready probe, first byte).",
    [...REV, "phase"],
    PHASE_BUCKETS_SECONDS,
  );
  service.on((e) => {
    if (e.type === "cold-start") coldStart.observe([e.namespace, e.name], e.coldStartMs / 1000);
  });
  const families = [desired, requested, ready, panic, excess, stable, panicConc, target];
  registry.onCollect(() => {
    // Rebuilt each scrape: a removed revision's series go with it.
    for (const f of families) f.clear();
    scrapeErrors.clear();
    for (const r of service.gauges()) {
      const v = [r.namespace, r.name];
      desired.set(v, r.desiredPods);
      requested.set(v, r.requestedPods);
      ready.set(v, r.readyPods);
      panic.set(v, r.panic ? 1 : 0);
      excess.set(v, r.excessBurstCapacity);
      stable.set(v, r.stableConcurrency);
      panicConc.set(v, r.panicConcurrency);
      target.set(v, r.targetConcurrency);
      scrapeErrors.set(v, r.scrapeErrors);
    }
  });
  return { registry, coldStartPhase };
}

/** Adds the websocket stat intake's connection metrics (activators' stat links) to `registry`. */
export function statSocketMetrics(registry: MetricsRegistry, socket: StatSocket): void {
  const open = registry.gauge(
    "thaw_autoscaler_stat_link_connections",
    "Open stat links (activators' websockets).",
  );
  const accepted = registry.counter(
    "thaw_autoscaler_stat_link_connects_total",
    "Stat link connections accepted; more than one per activator means it reconnected.",
  );
  registry.onCollect(() => {
    open.set([], socket.connections);
    accepted.set([], socket.accepted);
  });
}
