import type { Clock, TimerHandle } from "@thaw/clock";

/** How an event stream is fed: send the first events, then return the function that unsubscribes. */
export type EventFeed = (emit: (event: string, data: unknown) => void) => () => void;

/** Options of {@link eventStreamResponse}. */
export interface EventStreamOptions {
  clock: Clock;
  /** The client's request signal: the stream ends when the client goes away. */
  signal: AbortSignal;
  feed: EventFeed;
  /** A `: ping` comment this often keeps proxies from closing an idle stream (default 15 s). */
  pingMs?: number;
}

/**
 * A server-sent events response (`/v1/watch`, `/v1/scale-events`): each emitted event is
 * `event: <name>` with its data as one JSON line; the feed is unsubscribed and the ping timer cleared
 * when the client leaves or the stream is cancelled.
 */
export function eventStreamResponse({ clock, signal, feed, pingMs = 15_000 }: EventStreamOptions): Response {
  const enc = new TextEncoder();
  let unsubscribe = () => {};
  let ping: TimerHandle | undefined;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
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
      unsubscribe = feed((event, data) => send(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
      const tick = () => {
        send(": ping\n\n");
        if (!closed) ping = clock.setTimeout(tick, pingMs);
      };
      ping = clock.setTimeout(tick, pingMs);
      if (signal.aborted) close();
      else signal.addEventListener("abort", close, { once: true });
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
