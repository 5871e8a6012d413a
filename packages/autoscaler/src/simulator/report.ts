import type { SimulationResult } from "./simulate.js";

function sec(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** A plain-text report: summary, replica changes over time, and panic periods. */
export function formatReport(r: SimulationResult): string {
  const lines: string[] = [];
  lines.push(`requests        ${r.requests}`);
  lines.push(`simulated       ${sec(r.endMs)}`);
  lines.push(`cold starts     ${r.coldStarts} (requests arriving with no ready pod: ${r.coldRequests})`);
  lines.push(`max replicas    ${r.maxReplicas}`);
  lines.push(`pod-seconds     ${r.podSeconds.toFixed(0)}`);
  const q = r.queued;
  lines.push(
    `time queued     p50 ${q.p50Ms.toFixed(1)} ms, p99 ${q.p99Ms.toFixed(1)} ms, max ${q.maxMs.toFixed(1)} ms, mean ${q.meanMs.toFixed(1)} ms (${q.waited} requests waited)`,
  );
  lines.push(
    `panic periods   ${r.panicPeriods.length === 0 ? "none" : r.panicPeriods.map((p) => `${sec(p.startMs)}–${sec(p.endMs)}`).join(", ")}`,
  );
  if (r.scaledToZeroAtMs.length > 0)
    lines.push(`scaled to zero  at ${r.scaledToZeroAtMs.map(sec).join(", ")}`);
  lines.push("");
  lines.push("replicas over time (changes only)");
  lines.push("      time  desired  replicas  ready  concurrency  mode   panic");
  let prev = "";
  // `proxy` / `serve`, as thaw up, its dashboard and the status API write the mode.
  for (const p of r.timeline) {
    const key = `${p.desired}/${p.replicas}/${p.readyPods}/${p.mode}/${p.panicking}`;
    if (key === prev) continue;
    prev = key;
    lines.push(
      `${sec(p.tMs).padStart(10)}  ${String(p.desired).padStart(7)}  ${String(p.replicas).padStart(8)}  ${String(p.readyPods).padStart(5)}  ${p.concurrency.toFixed(2).padStart(11)}  ${p.mode.toLowerCase().padEnd(5)}  ${p.panicking ? "yes" : "no"}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
