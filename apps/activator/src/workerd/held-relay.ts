import { encodeWireStatMessages, PROTOBUF_CONTENT_TYPE, type WireStatMessage } from "@thaw/protocol";
import type { StaticRevision } from "../revisions-json.js";
import type { EdgeExtras } from "./do-coordinator.js";
import { originFromEnv } from "./edge-origin.js";
import type { WorkerEnv } from "./env.js";
import { loadInto } from "./load-api.js";

/**
 * Where the gateway's held requests (`POST /v1/stats`) go at the edge (docs/demand.md): to the Thaw origin's
 * own `/v1/stats`, whose activator passes them to its autoscaler, or, with EDGE_DECIDER, into each revision's
 * edge decider as one second of load per report (a Stat is a one-second average). A webhook origin without the
 * edge decider has nothing that scales on load, so the report is dropped there.
 */
export async function relayHeldStats(
  env: WorkerEnv,
  byId: Map<string, StaticRevision>,
  extras: Map<string, EdgeExtras>,
  messages: readonly WireStatMessage[],
): Promise<void> {
  const origin = originFromEnv(env);
  if (!origin.ok) return;
  if (origin.value.kind === "thaw") {
    try {
      const res = await fetch(new URL("/v1/stats", origin.value.url), {
        method: "POST",
        headers: { "content-type": PROTOBUF_CONTENT_TYPE, authorization: `Bearer ${origin.value.token}` },
        body: encodeWireStatMessages(messages),
      });
      await res.body?.cancel();
    } catch {
      // The next report, a second later, supersedes this one.
    }
    return;
  }
  if (env.EDGE_DECIDER !== "true") return;
  await loadInto(
    env,
    byId,
    extras,
    messages.map((m) => ({
      namespace: m.namespace,
      name: m.name,
      requestMs: (m.stat?.averageConcurrentRequests ?? 0) * 1000,
      requestCount: m.stat?.requestCount ?? 0,
    })),
  );
}
