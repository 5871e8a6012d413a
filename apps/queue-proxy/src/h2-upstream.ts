import http2 from "node:http2";
import type { Readable } from "node:stream";
import type { UpstreamSink } from "./ports.js";

const DROP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "host",
]);

/**
 * HTTP/2 requests go to the user container over h2c prior knowledge, as Knative picks the upstream
 * protocol from the incoming request's major version (c.3). One multiplexed session, reopened on loss.
 */
export class H2Upstream {
  private session: http2.ClientHttp2Session | null = null;

  constructor(private readonly port: number) {}

  private connect(): http2.ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const session = http2.connect(`http://127.0.0.1:${this.port}`);
    session.on("error", () => {});
    session.on("close", () => {
      if (this.session === session) this.session = null;
    });
    this.session = session;
    return session;
  }

  /** Sends one request; `flat` is the incoming header list (pseudo-headers included) after the shims. */
  dispatch(flat: string[], body: Readable | null, sink: UpstreamSink): void {
    const headers: http2.OutgoingHttpHeaders = {};
    let authority: string | undefined;
    for (let i = 0; i < flat.length; i += 2) {
      const name = (flat[i] as string).toLowerCase();
      const value = flat[i + 1] as string;
      if (name === "host") authority = value;
      if (DROP.has(name)) continue;
      const prev = headers[name];
      headers[name] = prev === undefined ? value : `${prev}, ${value}`;
    }
    // K-Original-Host restored into `host` means the app must see it as the authority.
    if (authority !== undefined) headers[":authority"] = authority;
    let stream: http2.ClientHttp2Stream;
    try {
      stream = this.connect().request(headers, { endStream: body === null });
    } catch (err) {
      sink.onError(err as Error);
      return;
    }
    sink.onConnect((err) => stream.close(http2.constants.NGHTTP2_CANCEL, () => void err));
    // gRPC status travels in trailers; a trailers-only answer (an error status) carries it in its headers.
    // The client side cannot end a response with its head, so those fields become the trailers.
    let trailers: Record<string, string | string[]> | undefined;
    stream.on("response", (h) => {
      const out: string[] = [];
      const trailersOnly = h["grpc-status"] !== undefined;
      for (const [k, v] of Object.entries(h)) {
        if (k.startsWith(":") || DROP.has(k) || v === undefined) continue;
        if (
          trailersOnly &&
          (k === "grpc-status" || k === "grpc-message" || k === "grpc-status-details-bin")
        ) {
          trailers ??= {};
          trailers[k] = Array.isArray(v) ? v : String(v);
          continue;
        }
        if (Array.isArray(v)) for (const one of v) out.push(k, one);
        else out.push(k, String(v));
      }
      sink.startResponse(Number(h[":status"]), out);
      sink.resumeWith(() => stream.resume());
    });
    stream.on("data", (chunk: Buffer) => {
      if (!sink.onData(chunk)) stream.pause();
    });
    // Without the trailers a gRPC client sees a call that never finished.
    stream.on("trailers", (t) => {
      trailers = {};
      for (const [k, v] of Object.entries(t))
        if (!k.startsWith(":") && v !== undefined) trailers[k] = Array.isArray(v) ? v : String(v);
    });
    stream.on("end", () => sink.onComplete(trailers));
    stream.on("error", (err) => sink.onError(err));
    if (body !== null) body.pipe(stream);
  }

  /** Closes the session. */
  close(): void {
    this.session?.close();
  }
}
