import type { HistogramFamily } from "@thaw/protocol";
import type { DashboardFeed } from "./feed.js";

/**
 * Records each cold start the feed publishes into `thaw_cold_start_phase_seconds{namespace,revision,phase}`
 * (the family `autoscalerMetrics` declares). `queued` is where a cold start begins and has no duration,
 * so it is not observed; the other phases are the time since the phase before. Returns the unsubscribe.
 */
export function recordColdStartPhases(feed: DashboardFeed, phases: HistogramFamily): () => void {
  return feed.on((e) => {
    if (e.type !== "coldstart") return;
    for (const p of e.data.phases) {
      if (p.phase === "queued") continue;
      phases.observe([e.data.namespace, e.data.revision, p.phase], p.ms / 1000);
    }
  });
}
