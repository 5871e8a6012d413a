import { systemClock } from "@thaw/clock";
import type { QueueProber } from "@thaw/protocol";
import { createProber, decodeProbeEnv } from "@thaw/readiness";
import { nodeTransport } from "@thaw/readiness/node";
import type { QueueProxyConfig } from "./config.js";

/** The readiness check from `SERVING_READINESS_PROBE`, or the issues that stop the start. */
export function readiness(config: QueueProxyConfig): { prober: QueueProber } | { error: string } {
  // Knative: no probe configured means always ready.
  if (config.readinessProbe.trim() === "") return { prober: () => true };
  const decoded = decodeProbeEnv(config.readinessProbe, config.multiContainerProbes);
  if (!decoded.ok) {
    return {
      error: [
        "thaw-queue-proxy: SERVING_READINESS_PROBE is not a valid probe:",
        ...decoded.issues.map((i) => `  ${i.path}: ${i.message}`),
      ].join("\n"),
    };
  }
  const prober = createProber({
    probes: decoded.value,
    transport: nodeTransport,
    clock: systemClock,
    log: (line) => process.stderr.write(`${line}\n`),
    // An app that does not listen yet is looked for again within a few ms (not at Knative's next 50 ms
    // attempt): the cold start's readiness detection waits for this poll.
    aggressive: { connectRetryMaxMs: config.probeConnectRetryMaxMs },
  });
  return { prober: () => prober.probe() };
}
