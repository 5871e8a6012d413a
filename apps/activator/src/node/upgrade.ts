import type { IncomingMessage } from "node:http";
import { connect } from "node:net";
import type { Duplex } from "node:stream";
import {
  activatorForwardHeaders,
  passthroughLbHeaders,
  resolveRevision,
  stripHopByHop,
} from "@thaw/protocol";
import type { ActivatorDeps } from "../ports.js";
import { retryAfterSeconds } from "../retry-after.js";

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
  const found = resolveRevision(new Request(`http://activator${req.url ?? "/"}`, { headers }));
  const key = found ? { namespace: found.namespace, name: found.name } : undefined;
  const config = key ? await deps.revisions.lookup(key) : undefined;
  if (!key || !config) {
    reject(socket, 404, "Not Found", "Error getting active endpoint: no such revision\n");
    return;
  }
  const gate = deps.coordinator.gate(key, config);
  const ac = new AbortController();
  const timer = deps.clock.setTimeout(
    () => ac.abort(new DOMException("timeout", "TimeoutError")),
    config.timeoutSeconds * 1000,
  );
  socket.once("close", () => ac.abort(new DOMException("client went away", "AbortError")));
  deps.reporter.requestIn(key, deps.clock.now());
  let out = false;
  const done = () => {
    if (out) return;
    out = true;
    deps.clock.clearTimeout(timer);
    deps.reporter.requestOut(key, deps.clock.now());
  };
  let lease: Awaited<ReturnType<typeof gate.acquire>>;
  try {
    lease = await gate.acquire(ac.signal);
  } catch (err) {
    done();
    const retry = `retry-after: ${retryAfterSeconds(gate.recentColdStartsMs())}\r\n`;
    reject(socket, 503, "Service Unavailable", `${(err as Error).message}\n`, retry);
    return;
  }
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
