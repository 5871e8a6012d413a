import http2 from "node:http2";
import { activatorForwardHeaders, passthroughLbHeaders, stripHopByHop } from "@thaw/protocol";
import { h2StreamGone } from "@thaw/protocol/node";
import type { ActivatorDeps } from "../ports.js";
import { streamLease } from "./stream-lease.js";

/** HTTP/2 sessions to pods (their queue-proxies take h2c on the serving port), one per address. */
export class PodSessions {
  private readonly sessions = new Map<string, http2.ClientHttp2Session>();

  /** The open session to `dest`, or a new one. */
  get(dest: string): http2.ClientHttp2Session {
    const open = this.sessions.get(dest);
    if (open && !open.closed && !open.destroyed) return open;
    const s = http2.connect(`http://${dest}`);
    s.on("error", () => {});
    s.once("close", () => {
      if (this.sessions.get(dest) === s) this.sessions.delete(dest);
    });
    this.sessions.set(dest, s);
    return s;
  }

  /** Closes every session. */
  close(): void {
    for (const s of this.sessions.values()) s.close();
    this.sessions.clear();
  }
}

/** Request fields an HTTP/2 hop never carries on. */
const DROP = new Set([":authority", ":scheme", "host"]);

/** An HTTP/2 request's fields as Headers (pseudo-headers left out), `:authority` as Host. */
export function h2RequestHeaders(headers: http2.IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [k, v] of Object.entries(headers)) {
    if (k.startsWith(":") || v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) out.append(k, x);
    else out.set(k, String(v));
  }
  const authority = headers[":authority"] ?? headers.host;
  if (typeof authority === "string" && !out.has("host")) out.set("host", authority);
  return out;
}

function answer(stream: http2.ServerHttp2Stream, status: number, body: string, extra = {}): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond({ ":status": status, "content-type": "text/plain; charset=utf-8", ...extra });
  stream.end(body);
}

/**
 * One HTTP/2 stream (h2c, gRPC unary or streaming) carried by the activator: wait for a pod like any request
 * (waking a cold revision), then send it as a stream of the pod's HTTP/2 session, with headers, data and
 * trailers relayed each way. The revision comes from `headers` (Knative-Serving-Namespace/-Revision). The
 * lease is held until the stream ends either side, so a long stream counts against the pod's capacity.
 * A stream the client resets while it waits is given up and never sent.
 */
export async function handleH2Stream(
  stream: http2.ServerHttp2Stream,
  headers: Headers,
  path: string,
  method: string,
  deps: ActivatorDeps,
  pods: PodSessions,
): Promise<void> {
  const got = await streamLease(path, headers, stream, deps);
  if (got.kind === "unknown") return answer(stream, 404, "Error getting active endpoint: no such revision\n");
  if (got.kind === "unavailable") {
    return answer(stream, 503, `${got.message}\n`, { "retry-after": String(got.retryAfterSeconds) });
  }
  const { key, gate, lease, done } = got;
  // The client may have reset the stream while it waited: a reset stream never reaches a pod.
  if (h2StreamGone(stream)) {
    lease.release();
    done();
    return;
  }
  const te = headers.get("te");
  const plain = stripHopByHop(activatorForwardHeaders(headers, headers.get("host") ?? ""));
  const fwd = deps.passthroughLb ? passthroughLbHeaders(plain, key) : plain;
  const outgoing: http2.OutgoingHttpHeaders = { ":method": method, ":path": path, ":authority": lease.dest };
  fwd.forEach((v, k) => {
    if (!DROP.has(k)) outgoing[k] = v;
  });
  // `TE: trailers` is the one TE HTTP/2 allows, and gRPC servers may require it.
  if (te?.trim().toLowerCase() === "trailers") outgoing.te = "trailers";
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    lease.release();
    done();
  };
  let up: http2.ClientHttp2Stream;
  try {
    up = pods.get(lease.dest).request(outgoing);
  } catch (err) {
    release();
    return answer(stream, 502, `${(err as Error).message}\n`);
  }
  let answered = false;
  up.on("response", (h) => {
    answered = true;
    const head: http2.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(h))
      if (v !== undefined && (k === ":status" || !k.startsWith(":")))
        head[k] = v as string | string[] | number;
    if (stream.destroyed) return;
    // A gRPC trailers-only answer (grpc-status among the headers: how an error status is sent) ends with
    // its headers: it goes on as one, since a trailer block after it would hide the status from the client.
    // (Node's client does not flag END_STREAM on the headers by the time `response` fires.)
    if (h["grpc-status"] !== undefined) return stream.respond(head, { endStream: true });
    stream.respond(head, { waitForTrailers: true });
    up.pipe(stream);
  });
  let trailers: http2.OutgoingHttpHeaders = {};
  up.on("trailers", (t) => {
    for (const [k, v] of Object.entries(t))
      if (!k.startsWith(":") && v !== undefined) trailers[k] = v as string | string[];
  });
  stream.on("wantTrailers", () => {
    stream.sendTrailers(trailers);
    trailers = {};
  });
  up.on("error", (err) => {
    if (!answered) {
      gate.reportFailure(lease.dest);
      answer(stream, 502, `${err.message}\n`);
    } else stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
  });
  stream.pipe(up);
  up.once("close", () => {
    release();
    if (!answered) answer(stream, 502, "the pod closed the stream before answering\n");
  });
  stream.once("close", () => {
    release();
    if (!up.closed) up.close(http2.constants.NGHTTP2_CANCEL);
  });
}
