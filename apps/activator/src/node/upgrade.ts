import type { IncomingMessage } from "node:http";
import { connect } from "node:net";
import type { Duplex } from "node:stream";
import { activatorForwardHeaders, passthroughLbHeaders, stripHopByHop } from "@thaw/protocol";
import type { ActivatorDeps } from "../ports.js";
import { streamLease } from "./stream-lease.js";

function reject(socket: Duplex, status: number, reason: string, body: string, extra = ""): void {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`,
  );
}

/**
 * Websocket (any `Upgrade`) pass-through at the socket level: wait for a pod like any request, then splice
 * the client's socket to a TCP connection to the pod. The lease is held until either side closes.
 */
export async function handleUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  deps: ActivatorDeps,
): Promise<void> {
  socket.on("error", () => {});
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else if (v !== undefined) headers.set(k, v);
  }
  const got = await streamLease(req.url ?? "/", headers, socket, deps);
  if (got.kind === "unknown") {
    reject(socket, 404, "Not Found", "Error getting active endpoint: no such revision\n");
    return;
  }
  if (got.kind === "unavailable") {
    const retry = `retry-after: ${got.retryAfterSeconds}\r\n`;
    reject(socket, 503, "Service Unavailable", `${got.message}\n`, retry);
    return;
  }
  const { key, gate, lease, done } = got;
  const plain = stripHopByHop(activatorForwardHeaders(headers, headers.get("host") ?? ""));
  plain.set("host", lease.dest);
  const fwd = deps.passthroughLb ? passthroughLbHeaders(plain, key) : plain;
  fwd.set("connection", "Upgrade");
  fwd.set("upgrade", headers.get("upgrade") ?? "websocket");
  const [host, port] = splitHostPort(lease.dest);
  const upstream = connect({ host, port });
  const finish = () => {
    lease.release();
    done();
    upstream.destroy();
    socket.destroy();
  };
  let connected = false;
  upstream.once("connect", () => {
    connected = true;
    let head1 = `${req.method} ${req.url} HTTP/1.1\r\n`;
    fwd.forEach((v, k) => {
      head1 += `${k}: ${v}\r\n`;
    });
    upstream.write(`${head1}\r\n`);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.once("error", (err) => {
    if (!connected) {
      gate.reportFailure(lease.dest);
      reject(socket, 502, "Bad Gateway", `${err.message}\n`);
    }
    finish();
  });
  upstream.once("close", finish);
  socket.once("close", finish);
}

function splitHostPort(dest: string): [string, number] {
  const i = dest.lastIndexOf(":");
  return [dest.slice(0, i).replace(/^\[|\]$/g, ""), Number(dest.slice(i + 1))];
}
