import type { Clock } from "@thaw/clock";
import type { EndpointsEvent } from "@thaw/protocol";
import type { FetchLike } from "./activator-client.js";
import type { WarmCache } from "./warm-cache.js";

/** Options of {@link watchEndpoints}. */
export interface WatchOptions {
  /** Base URL of the activator; the stream is `GET <baseUrl>/v1/watch`. */
  baseUrl: string;
  fetch: FetchLike;
  clock: Clock;
  cache: WarmCache;
  token?: string;
  /** Reconnect delay after a failure, doubling up to `maxBackoffMs` (defaults 100 / 5000 ms). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Told about every connect and loss, for logs and tests. */
  onState?: (state: "connected" | "lost", detail?: string) => void;
}

/** A running subscription. */
export interface WatchHandle {
  /** Ends the subscription; the cache falls back to TTLs. */
  stop(): void;
}

/**
 * Subscribes to the activator's readiness pushes (server-sent events) and feeds the warm cache, so
 * warm revisions stay warm without any activator call, and reconnects with backoff when the stream drops.
 */
export function watchEndpoints(opts: WatchOptions): WatchHandle {
  const ac = new AbortController();
  const url = new URL("/v1/watch", opts.baseUrl).toString();
  const min = opts.minBackoffMs ?? 100;
  const max = opts.maxBackoffMs ?? 5000;
  void (async () => {
    let backoff = min;
    while (!ac.signal.aborted) {
      let detail = "stream ended";
      try {
        const headers = new Headers({ accept: "text/event-stream" });
        if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
        const res = await opts.fetch(new Request(url, { headers, signal: ac.signal }));
        if (!res.ok || !res.body) {
          detail = `watch answered ${res.status}`;
          await res.body?.cancel();
        } else {
          const generation = opts.cache.watchConnected();
          opts.onState?.("connected");
          backoff = min;
          await readEvents(res.body, (event, data) => {
            if (event !== "endpoints") return;
            const ev = parseEvent(data);
            if (ev) opts.cache.applyEvent(ev, generation, opts.clock.now());
          });
        }
      } catch (err) {
        detail = err instanceof Error ? err.message : String(err);
      }
      opts.cache.watchLost(opts.clock.now());
      if (ac.signal.aborted) return;
      opts.onState?.("lost", detail);
      try {
        await opts.clock.sleep(backoff, ac.signal);
      } catch {
        return;
      }
      backoff = Math.min(max, backoff * 2);
    }
  })();
  return { stop: () => ac.abort(new Error("watch stopped")) };
}

/** Parses an SSE body: `event:` and `data:` fields, dispatched on a blank line; comments (`:`) ignored. */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: string, data: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let buf = "";
  let event = "message";
  let data: string[] = [];
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += decoder.decode(value, { stream: true });
    let nl = buf.indexOf("\n");
    while (nl !== -1) {
      const line = buf.slice(0, nl).replace(/\r$/, "");
      buf = buf.slice(nl + 1);
      if (line === "") {
        if (data.length > 0) onEvent(event, data.join("\n"));
        event = "message";
        data = [];
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
      }
      nl = buf.indexOf("\n");
    }
  }
}

function parseEvent(data: string): EndpointsEvent | undefined {
  try {
    const v = JSON.parse(data) as Partial<EndpointsEvent>;
    if (typeof v.namespace !== "string" || typeof v.name !== "string" || !Array.isArray(v.endpoints)) {
      return undefined;
    }
    return {
      namespace: v.namespace,
      name: v.name,
      endpoints: v.endpoints.filter((e): e is string => typeof e === "string"),
      mode: v.mode === "proxy" ? "proxy" : "serve",
    };
  } catch {
    return undefined;
  }
}
