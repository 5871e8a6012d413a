import { Histogram, Registry } from "prom-client";
import type { DashboardFeed } from "./feed.js";

/** Seconds: from a few milliseconds (scale decisions) to a minute (a slow image or app start). */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * `thaw_cold_start_phase_seconds{namespace,revision,phase}`: each cold start's phases (the dashboard's
 * records) as a Prometheus histogram. `queued` is where a cold start begins and has no duration, so it is
 * not observed; the other phases are the time since the phase before.
 */
export function coldStartPhaseMetrics(feed: DashboardFeed): Registry {
  const registry = new Registry();
  const phases = new Histogram({
    name: "thaw_cold_start_phase_seconds",
    help: "Time each cold-start phase took: scale decision, pod process started, first ready probe, first byte.",
    labelNames: ["namespace", "revision", "phase"],
    buckets: BUCKETS,
    registers: [registry],
  });
  feed.on((e) => {
    if (e.type !== "coldstart") return;
    for (const p of e.data.phases) {
      if (p.phase === "queued") continue;
      phases.observe({ namespace: e.data.namespace, revision: e.data.revision, phase: p.phase }, p.ms / 1000);
    }
  });
  return registry;
}
