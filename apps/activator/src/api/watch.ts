import type { TimerHandle } from "@thaw/clock";
import type { EndpointsEvent } from "@thaw/protocol";
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
  const enc = new TextEncoder();
  const { clock } = deps;
  const pingMs = deps.watchPingMs ?? 15_000;
  let unsubscribe = () => {};
  let ping: TimerHandle | undefined;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    if (ping !== undefined) clock.clearTimeout(ping);
  };
  const initial: EndpointsEvent[] = [];
  for (const key of deps.revisions.list()) {
    const config = await deps.revisions.lookup(key);
    if (config) initial.push(eventFor(key, deps.coordinator.gate(key, config).readyEndpoints()));
  }
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      const send = (text: string) => {
        if (closed) return;
        try {
          c.enqueue(enc.encode(text));
        } catch {
          close();
        }
      };
      const sendEvent = (e: EndpointsEvent) => send(`event: endpoints\ndata: ${JSON.stringify(e)}\n\n`);
      for (const e of initial) sendEvent(e);
      unsubscribe = deps.coordinator.onEndpoints((key, endpoints) => sendEvent(eventFor(key, endpoints)));
      const tick = () => {
        send(": ping\n\n");
        if (!closed) ping = clock.setTimeout(tick, pingMs);
      };
      ping = clock.setTimeout(tick, pingMs);
      req.signal.addEventListener("abort", close, { once: true });
    },
    cancel: close,
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}
