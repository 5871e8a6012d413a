import http from "node:http";
import http2 from "node:http2";
import https from "node:https";
import net from "node:net";
import { Duplex } from "node:stream";
import { TEST_CERT, TEST_KEY } from "./test-cert.js";

/** What a test server saw of one request. */
export interface SeenRequest {
  protoMajor: 1 | 2;
  method: string;
  path: string;
  rawQuery: string;
  /** Header names as sent (HTTP/2 names are lowercase); repeated headers joined with ", ". */
  headers: Record<string, string>;
}

/** How to answer request number `n` (0-based, counted over both protocols): a status, maybe late. `null` status = write nothing (implicit 200). */
export type Answer = { status: number | null; delayMs?: number; headers?: Record<string, string> };

/** Decides the answer per request; `false` turns a protocol off entirely. */
export interface HttpServerBehaviour {
  http1?: ((n: number, req: SeenRequest) => Answer) | false;
  h2c?: ((n: number, req: SeenRequest) => Answer) | false;
  /** Serve HTTP/1.1 over TLS with a self-signed loopback certificate (h2c is then off). */
  tls?: boolean;
}

/** A loopback HTTP test server. */
export interface HttpTestServer {
  host: string;
  port: number;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on 127.0.0.1 (port 0) that speaks HTTP/1.1, h2c with prior knowledge, or both on
 * one port (routed by the HTTP/2 connection preface). Every answer drains the request first.
 */
export async function startHttpServer(behaviour: HttpServerBehaviour = {}): Promise<HttpTestServer> {
  const h1 = behaviour.http1 === undefined ? () => ({ status: 200 }) : behaviour.http1;
  const h2 = behaviour.tls ? false : (behaviour.h2c ?? false);
  const requests: SeenRequest[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const answer = (
    seen: SeenRequest,
    decide: (n: number, r: SeenRequest) => Answer,
    write: (s: number | null, headers?: Record<string, string>) => void,
  ) => {
    const n = requests.length;
    requests.push(seen);
    const a = decide(n, seen);
    if (!a.delayMs) return write(a.status, a.headers);
    const t = setTimeout(() => {
      timers.delete(t);
      write(a.status, a.headers);
    }, a.delayMs);
    timers.add(t);
  };
  const h1Server = (
    behaviour.tls ? https.createServer({ cert: TEST_CERT, key: TEST_KEY }) : http.createServer()
  ).on("request", (req, res) => {
    if (!h1) return res.destroy();
    const url = new URL(req.url ?? "/", "http://x");
    answer(
      {
        protoMajor: 1,
        method: req.method ?? "",
        path: url.pathname,
        rawQuery: url.search.slice(1),
        headers: rawHeaders(req.rawHeaders),
      },
      h1,
      (status, headers) => {
        if (res.destroyed) return;
        if (status !== null) res.statusCode = status;
        for (const [k, v] of Object.entries(headers ?? {})) res.setHeader(k, v);
        res.end();
      },
    );
  });
  const h2Server = http2.createServer();
  h2Server.on("stream", (stream, headers) => {
    if (!h2) return stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    const url = new URL(String(headers[":path"] ?? "/"), "http://x");
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers))
      if (!k.startsWith(":") && v !== undefined) flat[k] = Array.isArray(v) ? v.join(", ") : String(v);
    stream.resume();
    answer(
      {
        protoMajor: 2,
        method: String(headers[":method"]),
        path: url.pathname,
        rawQuery: url.search.slice(1),
        headers: flat,
      },
      h2,
      (status, headers) => {
        if (stream.destroyed || stream.closed) return;
        stream.respond({ ...headers, ":status": status ?? 200 }, { endStream: true });
      },
    );
  });
  h2Server.on("sessionError", () => {});
  const sockets = new Set<net.Socket>();
  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    if (!h1 || !h2) return (h2 ? h2Server : h1Server).emit("connection", socket);
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      if (chunk.subarray(0, 3).toString("latin1") === "PRI") {
        // node:http2 reads the socket's handle directly, so bytes already read must be replayed through a stream.
        h2Server.emit("connection", replay(socket, chunk));
      } else {
        socket.unshift(chunk);
        h1Server.emit("connection", socket);
        socket.resume();
      }
    });
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  const port = (front.address() as net.AddressInfo).port;
  return {
    host: "127.0.0.1",
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        front.close(() => resolve());
      }),
  };
}

/** A duplex that yields `first` and then everything `socket` reads, and writes to `socket`. */
function replay(socket: net.Socket, first: Buffer): Duplex {
  const duplex = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk, encoding, cb) {
      socket.write(chunk, encoding, cb);
    },
    final(cb) {
      socket.end(cb);
    },
    destroy(err, cb) {
      socket.destroy(err ?? undefined);
      cb(err);
    },
  });
  duplex.push(first);
  socket.on("data", (d) => {
    if (!duplex.push(d)) socket.pause();
  });
  socket.on("end", () => duplex.push(null));
  socket.on("close", () => duplex.destroy());
  return duplex;
}

function rawHeaders(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = raw[i] as string;
    const v = raw[i + 1] as string;
    out[k] = out[k] === undefined ? v : `${out[k]}, ${v}`;
  }
  return out;
}
