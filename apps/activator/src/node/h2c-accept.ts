import type { Server } from "node:http";
import http2 from "node:http2";
import type { Socket } from "node:net";
import {
  guardH2Server,
  H2_SERVER_SETTINGS,
  type H2GuardOptions,
  whenH2StreamSettled,
} from "@thaw/protocol/node";

/**
 * How long a connection that has sent nothing may still send its request once the server stops: Go's
 * http.Server.Shutdown (Knative's queue-proxy) counts a new connection idle only after 5 s.
 */
export const SILENT_GRACE_MS = 5000;

/**
 * Lets an HTTP/1 server take h2c with prior knowledge on the same port, as the queue-proxy's port does: each
 * connection's first bytes are read, and one starting with the HTTP/2 preface (`PRI`, no HTTP/1 method) goes
 * to an HTTP/2 server whose streams reach `onStream`; any other goes to the HTTP/1 server's own connection
 * handling. The HTTP/1 server keeps listening and closing as before (its close waits for both kinds).
 * A connection that sends no byte within the server's `headersTimeout` is closed, as node:http would.
 * HTTP/2 sessions are bounded by `guardH2Server` (rapid reset, concurrent streams, and the HTTP/1 server's
 * `keepAliveTimeout` as their idle limit unless `guard` says otherwise); a stream the client reset before
 * it reached this side never reaches `onStream`.
 * Returns the HTTP/2 server; `closeSessions` sends its sessions a GOAWAY and closes connections that have
 * sent nothing yet (drain and stop, which node:http's closeIdleConnections cannot see before the sniff)
 * after a grace of SILENT_GRACE_MS: a client that connected just before the stop, or whose first bytes the
 * busy event loop has not read yet, did connect, and its request is served. `destroySessions` cuts every
 * session at once (the end of a drain's bound).
 */
export function acceptH2c(
  server: Server,
  onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, socket: Socket) => void,
  guard: Partial<H2GuardOptions> = {},
): { h2: http2.Http2Server; closeSessions(): void; destroySessions(): void } {
  const h2 = http2.createServer({ settings: H2_SERVER_SETTINGS });
  const sessions = guardH2Server(h2, { idleMs: () => server.keepAliveTimeout, ...guard });
  const silent = new Set<Socket>();
  h2.on("stream", (stream, headers) => {
    stream.on("error", () => {});
    whenH2StreamSettled(stream, () => onStream(stream, headers, stream.session?.socket as Socket));
  });
  // node:http's own connection listener, run after the sniff for HTTP/1 connections.
  const http1 = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  server.on("connection", (socket: Socket) => {
    silent.add(socket);
    // A plain timer dropped after the first byte: socket.setTimeout(0) would keep its Timeout and a bound
    // function on every held connection (issue 19: 10,000 held requests).
    let timer: NodeJS.Timeout | undefined = setTimeout(
      () => socket.destroy(),
      server.headersTimeout || 60_000,
    );
    socket.once("close", () => {
      clearTimeout(timer);
      silent.delete(socket);
    });
    socket.once("data", (chunk: Buffer) => {
      silent.delete(socket);
      clearTimeout(timer);
      timer = undefined;
      socket.pause();
      socket.unshift(chunk);
      if (chunk[0] === 0x50 && chunk[1] === 0x52 && chunk[2] === 0x49) h2.emit("connection", socket);
      else for (const l of http1) l.call(server, socket);
      process.nextTick(() => socket.resume());
    });
  });
  return {
    h2,
    destroySessions: () => sessions.destroy(),
    closeSessions() {
      sessions.close();
      if (silent.size === 0) return;
      // One timer for every connection still silent: new ones no longer arrive (the listener is closed).
      setTimeout(() => {
        for (const socket of silent) socket.destroy();
      }, SILENT_GRACE_MS).unref();
    },
  };
}
