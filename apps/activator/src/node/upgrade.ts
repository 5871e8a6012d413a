import type { IncomingMessage } from "node:http";
import { connect } from "node:net";
import type { Duplex } from "node:stream";
import { activatorForwardHeaders, passthroughLbHeaders, stripHopByHop } from "@thaw/protocol";
import { DEFAULT_TUNNEL_IDLE_MS, relayUpgrade, splitHostPort } from "@thaw/queue-proxy/http1";
import type { ActivatorDeps } from "../ports.js";
import { streamLease } from "./stream-lease.js";

function reject(socket: Duplex, status: number, reason: string, body: string, extra = ""): void {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`,
  );
}

/** What an upgrade needs beside the request path's dependencies. */
export interface UpgradeOptions {
  /** A tunnel with no byte either way for this long is closed (default 5 minutes). */
  tunnelIdleMs?: number;
}

/**
 * Websocket (any `Upgrade`) pass-through: wait for a pod like any request, send it the request head and its
 * declared body, and read its answer. Only a 101 makes the two sockets a tunnel, which holds the lease until
 * either side closes or it idles out; any other answer goes back as an ordinary response, the connection
 * closes and the lease is released at once.
 */
export async function handleUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  deps: ActivatorDeps,
  options: UpgradeOptions = {},
): Promise<void> {
  socket.on("error", () => {});
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else if (v !== undefined) headers.set(k, v);
  }
  // While it waits for a pod the client is watched, so that one that leaves (its FIN) is never forwarded.
  const stopWatching = watchWhileHeld(socket);
  const got = await streamLease(req.url ?? "/", headers, socket, deps);
  const early = stopWatching();
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
  if (socket.destroyed) {
    lease.release();
    done();
    return;
  }
  const plain = stripHopByHop(activatorForwardHeaders(headers, headers.get("host") ?? ""));
  plain.set("host", lease.dest);
  const fwd = deps.passthroughLb ? passthroughLbHeaders(plain, key) : plain;
  fwd.set("connection", "Upgrade");
  fwd.set("upgrade", headers.get("upgrade") ?? "websocket");
  // The declared body keeps the client's framing (the relay passes exactly its bytes on).
  const chunked = /(?:^|,)\s*chunked\s*$/i.test(headers.get("transfer-encoding") ?? "");
  const contentLength = chunked ? 0 : Number(headers.get("content-length") ?? 0);
  if (chunked) fwd.set("transfer-encoding", "chunked");
  else if (contentLength > 0) fwd.set("content-length", String(contentLength));
  let requestHead = `${req.method} ${req.url} HTTP/1.1\r\n`;
  fwd.forEach((v, k) => {
    requestHead += `${k}: ${v}\r\n`;
  });
  const dest = splitHostPort(lease.dest);
  if (!dest) {
    lease.release();
    done();
    reject(socket, 502, "Bad Gateway", `bad pod address ${lease.dest}\n`);
    return;
  }
  const app = connect({ ...dest, noDelay: true });
  let connected = false;
  app.once("connect", () => {
    connected = true;
  });
  relayUpgrade({
    client: socket,
    clientHead: early.length > 0 ? Buffer.concat([head, early]) : head,
    requestHead: `${requestHead}\r\n`,
    headRequest: req.method === "HEAD",
    chunked,
    contentLength,
    app,
    idleMs: options.tunnelIdleMs ?? DEFAULT_TUNNEL_IDLE_MS,
    onEnd: () => {
      if (!connected) gate.reportFailure(lease.dest);
      lease.release();
      done();
    },
  });
  socket.resume();
}

/** Bytes a held upgrade's client may send before its 101 that are read and kept (then reading stops). */
const HELD_EARLY_BYTES = 64 * 1024;

/**
 * Reads a held client's socket so that its FIN is seen (the socket is then destroyed, which ends the wait):
 * a paused socket never reads its EOF. What it sends meanwhile is kept, 64 KiB at most, for the pod.
 * Returns the stop, which pauses the socket again and hands the kept bytes back.
 */
function watchWhileHeld(socket: Duplex): () => Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    kept.push(chunk);
    size += chunk.length;
    if (size >= HELD_EARLY_BYTES) socket.pause();
  };
  const onEnd = () => socket.destroy();
  socket.on("data", onData);
  socket.once("end", onEnd);
  return () => {
    socket.pause();
    socket.off("data", onData);
    socket.off("end", onEnd);
    return Buffer.concat(kept);
  };
}
