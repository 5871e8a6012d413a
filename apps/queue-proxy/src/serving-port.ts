import http2 from "node:http2";
import net from "node:net";
import { guardH2Server, H2_SERVER_SETTINGS, type H2Sessions } from "@thaw/protocol/node";
import { H1Server, type H1ServerHandlers } from "./h1-server.js";
import { nodeListener, type ServingHandler } from "./serving.js";

/** The two protocol servers behind one port, and the sockets they serve. */
export interface ServingPort {
  front: net.Server;
  http1: H1Server;
  h2: http2.Http2Server;
  /** The HTTP/2 sessions, bounded by `guardH2Server`. */
  h2Sessions: H2Sessions;
  sockets: Set<net.Socket>;
}

/** Go's one minute to read a request head (Knative's ReadHeaderTimeout). */
export const HEADERS_TIMEOUT_MS = 60_000;

/**
 * HTTP/1.1 and h2c prior knowledge on one port (c.1). A TCP server looks at each connection's first
 * bytes: the HTTP/2 preface starts with `PRI`, which is no HTTP/1 method. HTTP/1 connections go to the
 * queue-proxy's own server, HTTP/2 ones to Node's. HTTP/2 sessions are bounded like HTTP/1 connections
 * (`guardH2Server`): one that opens no stream within the head timeout is closed, as a connection that sends no
 * request is; one idle between streams stays open, as a kept-alive connection does (Knative sets no idle
 * timeout); and a client resetting streams in a flood gets GOAWAY ENHANCE_YOUR_CALM.
 */
export function createServingPort(
  onRequest: ServingHandler,
  onUpgrade: H1ServerHandlers["upgrade"],
  headersTimeoutMs = HEADERS_TIMEOUT_MS,
): ServingPort {
  const http1 = new H1Server({ request: onRequest, upgrade: onUpgrade }, { headersTimeoutMs });
  const h2 = http2.createServer({ settings: H2_SERVER_SETTINGS }, nodeListener(onRequest));
  const h2Sessions = guardH2Server(h2, { idleMs: 0, firstStreamMs: headersTimeoutMs });
  const sockets = new Set<net.Socket>();
  // Accepted sockets get TCP_NODELAY: a streamed response must not wait on Nagle.
  const front = net.createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    // A connection that never sends a byte is closed too, as Go's ReadHeaderTimeout does for a first request.
    // A plain timer, not `socket.setTimeout`: a socket keeps refreshing even a cleared timeout of its own on
    // every read and write, for the whole life of the connection.
    const silent = setTimeout(() => socket.destroy(), headersTimeoutMs);
    silent.unref();
    socket.once("close", () => {
      clearTimeout(silent);
      sockets.delete(socket);
    });
    socket.once("data", (chunk: Buffer) => {
      clearTimeout(silent);
      if (chunk[0] === 0x50 && chunk[1] === 0x52 && chunk[2] === 0x49) {
        socket.pause();
        socket.unshift(chunk);
        h2.emit("connection", socket);
        process.nextTick(() => socket.resume());
      } else http1.accept(socket, chunk);
    });
    socket.on("error", () => socket.destroy());
  });
  front.on("error", () => {});
  front.once("close", () => http1.stop());
  return { front, http1, h2, h2Sessions, sockets };
}
