import type { Server } from "node:http";
import type { Duplex } from "node:stream";
import { closeListenerWhenQuiet } from "./close-listener.js";

/**
 * How long `thaw up`'s gateway lets accepted requests, h2 streams and websockets finish on SIGTERM before it
 * destroys what is left: every kind of connection has this one bound, whatever it is (a stream that never
 * ends, an h2 session whose client stays, a spliced websocket).
 */
export const GATEWAY_DRAIN_BOUND_MS = 10_000;

/** The dashboard's event stream (SSE), served by the gateway. */
export const EVENT_STREAM_PATH = "/_thaw/api/stream";

/** What the gateway's drain sees of its server. */
export interface GatewayConnections {
  server: Server;
  /** The h2c side of the port (`acceptH2c`). */
  h2c: { closeSessions(): void; destroySessions(): void };
  /** Spliced upgrades (websockets). */
  upgraded: ReadonlySet<Duplex>;
  /** The dashboard's event streams: they never end by themselves, so they end first (browsers reconnect). */
  eventStreams: ReadonlySet<{ destroy(): void }>;
  /** Requests and h2 streams in flight (event streams not counted). */
  inflight(): number;
  /** `Date.now()` of the last request. */
  lastRequestAt(): number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Stops the gateway: no new connections once those under way are accepted; event streams ended; what is in
 * flight finishes, with no request started for a moment; idle keep-alives closed and h2 sessions sent GOAWAY;
 * then, at `boundMs` after the start, every connection still open is destroyed. Resolves when the server
 * is closed.
 */
export async function drainGateway(c: GatewayConnections, boundMs = GATEWAY_DRAIN_BOUND_MS): Promise<void> {
  const deadline = performance.now() + boundMs;
  for (const s of c.eventStreams) s.destroy();
  const { closed } = await closeListenerWhenQuiet(c.server);
  // Connections already open may still send a request: wait until nothing is in flight and no request
  // started for 300 ms (every 50 ms, until the bound).
  while (performance.now() < deadline) {
    if (c.inflight() === 0 && Date.now() - c.lastRequestAt() >= 300) break;
    await sleep(50);
  }
  // Keep-alive connections that stay idle are closed; busy ones after their response.
  const idle = setInterval(() => c.server.closeIdleConnections(), 100);
  c.server.closeIdleConnections();
  c.h2c.closeSessions();
  // Websocket tunnels never end on their own: waiting for them would only spend the bound.
  for (const s of c.upgraded) s.destroy();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<"bound">((r) => {
    timer = setTimeout(() => r("bound"), Math.max(0, deadline - performance.now()));
  });
  const outcome = await Promise.race([closed.then(() => "closed" as const), bound]);
  clearTimeout(timer);
  clearInterval(idle);
  if (outcome === "bound") {
    c.server.closeAllConnections();
    c.h2c.destroySessions();
    for (const s of c.upgraded) s.destroy();
    await closed;
  }
}
