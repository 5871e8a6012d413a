import type { Clock } from "@thaw/clock";
import { eventStreamResponse } from "@thaw/protocol";
import type { AutoscalerEvent, RevisionStatus } from "./events.js";

/** What the SSE endpoint needs from the service. */
export interface EventSource {
  on(listener: (e: AutoscalerEvent) => void): () => void;
  revisions(): RevisionStatus[];
}

/**
 * `GET /v1/scale-events` as server-sent events: on connect one `status` event per revision, then every
 * `scale`, `cold-start` and `status` event as it happens, and a `: ping` comment every `pingMs`. For
 * activators and hooks in other processes that need each revision's mode (proxy | serve).
 */
export function sseResponse(
  source: EventSource,
  clock: Clock,
  signal: AbortSignal,
  pingMs = 15_000,
): Response {
  return eventStreamResponse({
    clock,
    signal,
    pingMs,
    feed: (emit) => {
      const at = clock.now();
      for (const status of source.revisions()) emit("status", { type: "status", status, at });
      return source.on((e) => emit(e.type, e));
    },
  });
}
