import type { IncomingMessage } from "node:http";
import net from "node:net";
import type { Duplex, Readable } from "node:stream";
import type { ExchangeContext } from "./exchange.js";
import { H1ResponseParser } from "./h1-response-parser.js";
import type { H1ServerHandlers } from "./h1-server.js";
import { framingField } from "./h1-upstream.js";
import { BODY_CHUNKED } from "./ports.js";
import { fieldValue, scanRequestHead } from "./request-head.js";
import type { ServingDrainer } from "./serving.js";
import { DEFAULT_TUNNEL_IDLE_MS, relayUpgrade } from "./upgrade-relay.js";

const CRLF_CRLF = Buffer.from("\r\n\r\n", "latin1");

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

/** Both ports' upgrade handlers: the serving port's own server and Node's (TLS port). */
export interface UpgradeHandlers {
  h1: H1ServerHandlers["upgrade"];
  node(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/**
 * Upgrade pass-through. The request head goes to the app on a connection of its own, with the same
 * header shims as a normal request and the body framed from the parsed request. Only when the app
 * answers 101 (read by the HTTP/1 response parser, after any interim 1xx) do both sockets become a raw
 * pipe, with an idle limit; any other answer is relayed as a normal response and the client connection
 * stays HTTP (on the serving port the next request is parsed like any other; on the TLS port, whose socket
 * Node's server has let go of, `relayUpgrade` answers and closes).
 * The request counts as in flight (stats) until the answer ends or the tunnel closes.
 */
export function upgradeHandler(
  ctx: ExchangeContext,
  drainer: ServingDrainer,
  userPort: number,
  hijacked: HijackedConnections,
  tunnelIdleMs = DEFAULT_TUNNEL_IDLE_MS,
): UpgradeHandlers {
  /** Dials the app and builds the head it gets; `done` counts the request out. */
  const begin = (method: string, target: string, raw: string[], framing: string) => {
    drainer.noteRequest();
    const scanned = scanRequestHead(raw);
    let head = `${method} ${target} HTTP/1.1\r\n`;
    const h = scanned.upstream;
    for (let i = 0; i < h.length; i += 2) head += `${h[i]}: ${h[i + 1]}\r\n`;
    head += `connection: Upgrade\r\nupgrade: ${fieldValue(raw, "upgrade")}\r\n${framing}\r\n`;
    const proxied = scanned.proxyRequest !== "";
    if (proxied) ctx.stats?.proxiedIn(ctx.now());
    else ctx.stats?.requestIn(ctx.now());
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      if (proxied) ctx.stats?.proxiedOut(ctx.now());
      else ctx.stats?.requestOut(ctx.now());
    };
    const app = net.connect({ host: "127.0.0.1", port: userPort, noDelay: true });
    return { app, head, done };
  };

  /** Pipes both ways until either side closes or it idles out; the tunnel counts until then. */
  const tunnel = (client: Duplex, app: net.Socket, fromApp: Buffer, fromClient: Buffer, done: () => void) => {
    hijacked.add(client);
    const close = () => {
      hijacked.delete(client);
      done();
      app.destroy();
      client.destroy();
    };
    // Bytes the client sent before the 101 belong to no protocol the app agreed to (RFC 6455 4.1 for
    // websockets): they are never passed on, and the connection is cut.
    if (fromClient.length > 0) {
      close();
      return;
    }
    client.write(fromApp);
    // Both directions pass through `app`: its timeout sees any byte either way.
    app.setTimeout(tunnelIdleMs, close);
    app.pipe(client);
    client.pipe(app);
    client.resume();
    app.once("close", close);
    client.once("close", close);
    client.on("error", close);
    app.on("error", close);
  };

  const h1: H1ServerHandlers["upgrade"] = (d, raw, takeOver) => {
    const { app, head, done } = begin(d.method, d.target, raw, framingField(d.bodyFraming));
    // Written at once (the socket holds it until connected), so it goes before any body bytes.
    app.write(head, "latin1");
    if (d.body !== null) pipeBody(d.body, app, d.bodyFraming === BODY_CHUNKED);
    let switchedHead: Buffer | null = null;
    const parser = new H1ResponseParser({
      head: (status, headers) => d.writeHead(status, headers),
      body: (chunk) => {
        if (!d.write(chunk)) app.pause();
      },
      end: () => {
        d.end();
        finish();
      },
      switched: (h) => {
        switchedHead = Buffer.concat([h, CRLF_CRLF]);
      },
    });
    d.onDrain = () => app.resume();
    const finish = () => {
      done();
      app.destroy();
    };
    d.onClose = finish;
    parser.start(d.method === "HEAD", true);
    const onData = (chunk: Buffer) => {
      try {
        const used = parser.feedUpgrade(chunk);
        if (switchedHead === null) return;
        app.off("data", onData);
        app.pause();
        const { socket, head: fromClient } = takeOver();
        tunnel(socket, app, Buffer.concat([switchedHead, chunk.subarray(used)]), fromClient, done);
      } catch (err) {
        fail(err as Error);
      }
    };
    const fail = (err: Error) => {
      if (d.headersSent) d.destroy();
      else {
        const text = `${err.message}\n`;
        d.writeHead(502, [
          "content-type",
          "text/plain; charset=utf-8",
          "content-length",
          String(Buffer.byteLength(text)),
        ]);
        d.end(text);
      }
      finish();
    };
    app.on("data", onData);
    app.on("end", () => {
      try {
        parser.eof();
      } catch (err) {
        fail(err as Error);
      }
    });
    app.on("error", (err) => {
      if (!d.closed) fail(err);
    });
  };

  const node: UpgradeHandlers["node"] = (req, socket, rawHead) => {
    // Node's server hands over the socket right after the head: the body is still in the raw bytes, so
    // the app gets the client's own framing field and the relay passes exactly the body's bytes on.
    const te = req.headers["transfer-encoding"];
    const cl = req.headers["content-length"];
    const framing =
      te !== undefined ? `transfer-encoding: ${te}\r\n` : cl !== undefined ? `content-length: ${cl}\r\n` : "";
    const { app, head, done } = begin(req.method ?? "GET", req.url ?? "/", req.rawHeaders, framing);
    relayUpgrade({
      client: socket,
      clientHead: rawHead,
      requestHead: head,
      headRequest: req.method === "HEAD",
      chunked: te !== undefined,
      contentLength: te === undefined && cl !== undefined ? Number(cl) : 0,
      app,
      idleMs: tunnelIdleMs,
      onTunnel: () => hijacked.add(socket),
      onEnd: () => {
        hijacked.delete(socket);
        done();
      },
    });
  };

  return { h1, node };
}

/** Streams a request body to the app with back-pressure, chunk-encoding it when it has no length. */
function pipeBody(body: Readable, socket: net.Socket, chunked: boolean): void {
  body.on("data", (chunk: Buffer) => {
    let ok: boolean;
    if (!chunked) ok = socket.write(chunk);
    else {
      socket.cork();
      socket.write(`${chunk.length.toString(16)}\r\n`, "latin1");
      socket.write(chunk);
      ok = socket.write("\r\n", "latin1");
      socket.uncork();
    }
    if (!ok) body.pause();
  });
  socket.on("drain", () => body.resume());
  body.once("end", () => {
    if (chunked) socket.write("0\r\n\r\n", "latin1");
  });
}
