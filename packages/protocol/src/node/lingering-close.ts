import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";

/** How long, and how many bytes, a closing connection keeps discarding what its client still sends. */
export interface LingerOptions {
  ms?: number;
  maxBytes?: number;
}

/**
 * Makes every connection of `server` close gently when an answer ends it (`Connection: close`, as the 413
 * for a body past its bound): the socket is half-closed and what the client still sends is read and
 * dropped for up to 2 s or 64 MiB, then it is destroyed. Closing at once would make the kernel reset the
 * connection on the unread body, and a reset can make the client discard the answer it has not read yet.
 * No further request on that connection is parsed. A connection whose request was read whole closes as
 * before.
 */
export function lingerOnClose(server: Server, o: LingerOptions = {}): void {
  const ms = o.ms ?? 2000;
  const maxBytes = o.maxBytes ?? 64 * 1024 * 1024;
  const last = new WeakMap<Socket, IncomingMessage>();
  server.on("request", (req: IncomingMessage) => last.set(req.socket, req));
  server.on("connection", (socket: Socket) => {
    // Node's HTTP server ends a `Connection: close` exchange with socket.destroySoon(): end, then destroy.
    const s = socket as Socket & { destroySoon: () => void };
    const closeNow = s.destroySoon.bind(s);
    s.destroySoon = () => {
      if (last.get(s)?.complete !== false) return closeNow();
      if (s.writable) s.end();
      s.removeAllListeners("data");
      let read = 0;
      const stop = () => s.destroy();
      const timer = setTimeout(stop, ms);
      timer.unref();
      s.on("data", (d: Buffer) => {
        read += d.length;
        if (read > maxBytes) stop();
      });
      s.once("end", stop);
      s.once("close", () => clearTimeout(timer));
      s.resume();
    };
  });
}
