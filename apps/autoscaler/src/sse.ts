import type { Clock, TimerHandle } from "@thaw/clock";
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
  const enc = new TextEncoder();
  let off = () => {};
  let ping: TimerHandle | undefined;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    off();
    if (ping !== undefined) clock.clearTimeout(ping);
  };
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
      const event = (type: string, data: unknown) =>
        send(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
      const at = clock.now();
      for (const status of source.revisions()) event("status", { type: "status", status, at });
      off = source.on((e) => event(e.type, e));
      const tick = () => {
        send(": ping\n\n");
        if (!closed) ping = clock.setTimeout(tick, pingMs);
      };
      ping = clock.setTimeout(tick, pingMs);
      signal.addEventListener("abort", close, { once: true });
    },
    cancel: close,
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}
