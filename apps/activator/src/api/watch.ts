import { type EndpointsEvent, eventStreamResponse } from "@thaw/protocol";
import type { ActivatorDeps, RevisionKey } from "../ports.js";

/** Hook-facing mode: "serve" once a pod is ready (the hook may go direct), "proxy" while cold. */
function eventFor(key: RevisionKey, endpoints: string[]): EndpointsEvent {
  return {
    namespace: key.namespace,
    name: key.name,
    endpoints,
    mode: endpoints.length > 0 ? "serve" : "proxy",
  };
}

/**
 * GET /v1/watch (CONTRACTS.md): server-sent events; one `endpoints` event per known revision on connect, then
 * one per change, and a `: ping` comment every `watchPingMs` (15 s).
 */
export async function handleWatch(req: Request, deps: ActivatorDeps): Promise<Response> {
  const initial: EndpointsEvent[] = [];
  for (const key of deps.revisions.list()) {
    const config = await deps.revisions.lookup(key);
    if (config) initial.push(eventFor(key, deps.coordinator.gate(key, config).readyEndpoints()));
  }
  return eventStreamResponse({
    clock: deps.clock,
    signal: req.signal,
    pingMs: deps.watchPingMs ?? 15_000,
    feed: (emit) => {
      for (const e of initial) emit("endpoints", e);
      return deps.coordinator.onEndpoints((key, endpoints) => emit("endpoints", eventFor(key, endpoints)));
    },
  });
}
