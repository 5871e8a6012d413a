import type { DashboardEvent } from "@thaw/autoscaler-service";
import type { ColdStartPhase } from "@thaw/protocol";

/** How the terminal names each cold-start phase (the page uses the same words). */
const PHASE_NAMES: Record<ColdStartPhase, string> = {
  queued: "queued",
  scaleDecision: "scale decision",
  podCreated: "pod created",
  podScheduled: "scheduled",
  sandboxReady: "sandbox ready",
  podStarted: "pod process started",
  firstReady: "first ready probe",
  endpointsReady: "in endpoints",
  firstByte: "first byte",
};

/** The `--log-format` values of `thaw up`. */
export const LOG_FORMATS = ["text", "json"] as const;

/** One readable line per scale event or cold start (what `thaw up` prints); samples print nothing. */
export function formatRecord(e: DashboardEvent): string | undefined {
  if (e.type === "scale") {
    const r = e.data;
    return `${clock(r.t)}  ${r.namespace}/${r.revision}  ${r.from} -> ${r.to}  ${r.reason}`;
  }
  if (e.type === "coldstart") {
    const r = e.data;
    const end = r.phases[r.phases.length - 1]?.at ?? r.startedAt;
    const steps = r.phases
      .filter((p) => p.phase !== "queued")
      .map((p) => `${PHASE_NAMES[p.phase]} +${p.ms}`)
      .join(", ");
    return `${clock(end)}  ${r.namespace}/${r.revision}  cold start ${r.totalMs} ms (${steps} ms)`;
  }
  if (e.type === "problem") {
    const r = e.data;
    const what =
      r.message === null
        ? "pods recovered"
        : `${r.severity === "failing" ? "failing" : "not ready"}: ${r.message}`;
    return `${clock(r.t)}  ${r.namespace}/${r.revision}  ${what}`;
  }
  return undefined;
}

function clock(t: number): string {
  return new Date(t).toISOString().slice(11, 23);
}
