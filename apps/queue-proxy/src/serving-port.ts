import http from "node:http";
import http2 from "node:http2";
import net from "node:net";

/** The two protocol servers behind one port, and the sockets they serve. */
export interface ServingPort {
  front: net.Server;
  http1: http.Server;
  h2: http2.Http2Server;
  sockets: Set<net.Socket>;
}

/**
 * HTTP/1.1 and h2c prior knowledge on one port (c.1). Node's plain-text http2 server cannot fall back to
 * HTTP/1 by itself, so a TCP server looks at each connection's first bytes: the HTTP/2 preface starts
 * with `PRI`, which is no HTTP/1 method. The sniff costs one listener per connection, nothing per request.
 */
export function createServingPort(
  onRequest: http.RequestListener,
  onUpgrade: (req: http.IncomingMessage, socket: import("node:stream").Duplex, head: Buffer) => void,
): ServingPort {
  const http1 = http.createServer({ requestTimeout: 0, headersTimeout: 60_000 }, onRequest);
  // Knative's serving server sets no idle timeout, so a client's keep-alive connection stays until the
  // client closes it. Node's default (5 s) would also re-arm a socket timer after every response.
  http1.keepAliveTimeout = 0;
  http1.on("upgrade", onUpgrade);
  // The HTTP/1 server never listens itself (the sniffing TCP server hands it sockets), so start Node's
  // connection tracking by hand: it enforces headersTimeout (Go's 1 min ReadHeaderTimeout) and lets
  // shutdown close idle keep-alive connections.
  http1.emit("listening");
  const h2 = http2.createServer(
    {},
    onRequest as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
  );
  const sockets = new Set<net.Socket>();
  // Accepted sockets get TCP_NODELAY as http.Server's would: a streamed response must not wait on Nagle.
  const front = net.createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      if (chunk[0] === 0x50 && chunk[1] === 0x52 && chunk[2] === 0x49) h2.emit("connection", socket);
      else http1.emit("connection", socket);
      process.nextTick(() => socket.resume());
    });
    socket.on("error", () => socket.destroy());
  });
  front.on("error", () => {});
  return { front, http1, h2, sockets };
}
