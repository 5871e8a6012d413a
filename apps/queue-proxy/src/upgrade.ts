import net from "node:net";
import type { Duplex } from "node:stream";
import type { ExchangeContext } from "./exchange.js";
import { closingAnswer, type UpgradeRequest } from "./h1-server.js";
import { fieldValue, scanRequestHead } from "./request-head.js";
import type { ServingDrainer } from "./serving.js";

/** Upgraded (websocket) connections in flight, which drain waits for with its own limit (a.4). */
export class HijackedConnections {
  private readonly sockets = new Set<Duplex>();
  private waiters: (() => void)[] = [];

  add(socket: Duplex): void {
    this.sockets.add(socket);
  }

  delete(socket: Duplex): void {
    if (!this.sockets.delete(socket)) return;
    if (this.sockets.size === 0) for (const w of this.waiters.splice(0)) w();
  }

  has(socket: Duplex): boolean {
    return this.sockets.has(socket);
  }

  get size(): number {
    return this.sockets.size;
  }

  /** Resolves when every upgraded connection ended, or destroys the rest after `graceMs`. */
  async settle(graceMs: number): Promise<void> {
    if (this.sockets.size === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    for (const s of this.sockets) s.destroy();
  }
}

function badGateway(socket: Duplex, message: string): void {
  socket.end(closingAnswer(502, `${message}\n`));
  // The socket came paused from the server: read (and drop) until the client closes its side too.
  socket.resume();
}

/**
 * Upgrade pass-through: after the same header shims as a normal request, the request head goes to the
 * app on a fresh connection and both sockets are piped raw, so the app's own 101 (or refusal) reaches the
 * client unchanged. The request counts as in flight (stats) until the tunnel closes.
 */
export function upgradeHandler(
  ctx: ExchangeContext,
  drainer: ServingDrainer,
  userPort: number,
  hijacked: HijackedConnections,
): (req: UpgradeRequest, socket: Duplex, head: Buffer) => void {
  return (req, socket, head) => {
    drainer.noteRequest();
    const scanned = scanRequestHead(req.rawHeaders);
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    const h = scanned.upstream;
    for (let i = 0; i < h.length; i += 2) lines.push(`${h[i]}: ${h[i + 1]}`);
    lines.push("connection: Upgrade", `upgrade: ${fieldValue(req.rawHeaders, "upgrade")}`);
    const proxied = scanned.proxyRequest !== "";
    const startedAt = ctx.now();
    if (proxied) ctx.stats?.proxiedIn(startedAt);
    else ctx.stats?.requestIn(startedAt);
    hijacked.add(socket);
    const upstream = net.connect({ host: "127.0.0.1", port: userPort, noDelay: true });
    let closed = false;
    let connected = false;
    const close = (keepClient = false) => {
      if (closed) return;
      closed = true;
      hijacked.delete(socket);
      const now = ctx.now();
      if (proxied) ctx.stats?.proxiedOut(now);
      else ctx.stats?.requestOut(now);
      upstream.destroy();
      if (!keepClient) socket.destroy();
    };
    upstream.once("connect", () => {
      connected = true;
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.once("error", (err) => {
      if (connected) close();
      else {
        close(true);
        badGateway(socket, err.message);
      }
    });
    upstream.once("close", () => close());
    socket.once("close", () => close());
    socket.on("error", () => close());
  };
}
