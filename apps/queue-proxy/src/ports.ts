/**
 * The narrow seams between the queue-proxy's hot path and the packages it composes. They are structural
 * subsets of @thaw/activation's `Gate` (the `Breaker`) and `RequestStats`, so the real classes plug in
 * directly and tests can pass their own.
 */
import type { ResponseHeaders } from "./response-fields.js";

/** The breaker in front of the app (`Gate` of @thaw/activation). */
export interface Admission {
  /** Admits at once if a slot is free and nobody waits ahead. */
  tryAcquire(): boolean;
  /** Waits in arrival order; rejects with the breaker's coded errors (queue full, deadline, cancelled). */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Gives back one admission. */
  release(): void;
  /** Admitted plus waiting: `kn.serving.queue.depth`. */
  readonly inFlight: number;
}

/** Time-weighted concurrency bookkeeping (`RequestStats` of @thaw/activation, knative-spec.md c.5). */
export interface StatsSink {
  requestIn(nowMs: number): void;
  requestOut(nowMs: number): void;
  proxiedIn(nowMs: number): void;
  proxiedOut(nowMs: number): void;
}

/** The drain state the hot path looks at (`Drainer` of @thaw/protocol). */
export interface DrainState {
  readonly draining: boolean;
  /** A non-probe request arrived: restart the quiet period if it is running. */
  noteRequest(): void;
}

/** The callbacks of an exchange that an upstream (HTTP/1.1 pool or h2c session) drives. */
export interface UpstreamSink {
  /** The request is under way; `abort` cancels it (queued, dialling or in flight). */
  onConnect(abort: (err?: Error) => void): void;
  /** The response head; false when the exchange already ended. */
  startResponse(status: number, headers: ResponseHeaders): boolean;
  /**
   * A body piece; false asks the upstream to pause until `resumeWith`'s function is called. `chunk` may be a
   * view of a read buffer the next read reuses: it is valid only during the call (keep a copy, not it).
   */
  onData(chunk: Buffer): boolean;
  /** The response ended; an HTTP/2 app's trailers (gRPC's status) come with it. */
  onComplete(trailers?: Record<string, string | string[]>): void;
  /**
   * The exchange failed. `unsent` is true only when no byte of the request can have reached the server (its
   * connection never opened, or the pool was closed first): it may then go elsewhere whatever its method.
   * `unanswered` is true when it was sent and the connection broke before any byte of an answer.
   */
  onError(err: Error, unsent?: boolean, unanswered?: boolean): void;
  /** How to resume a paused upstream. */
  resumeWith(resume: () => void): void;
}

/** `Downstream.bodyFraming`: the body is chunked (its length is not known ahead). */
export const BODY_CHUNKED = -1;
/** `Downstream.bodyFraming`: the request gave neither Content-Length nor Transfer-Encoding (no body). */
export const BODY_NONE = -2;

/**
 * The client side of one exchange: the request line and body, and the response going back. The serving
 * port's own HTTP/1.1 server implements it directly; Node's servers (TLS, HTTP/2) through `NodeDownstream`.
 */
export interface Downstream {
  readonly method: string;
  /** The request target as received. */
  readonly target: string;
  /** The request came over HTTP/2 (it goes to the app over h2c). */
  readonly http2: boolean;
  /** `HTTP/1.1`, `HTTP/1.0` or `HTTP/2.0` (request log). */
  readonly protocol: string;
  /** The connection's addresses (request log). */
  readonly remoteAddress: string;
  readonly localAddress: string;
  /**
   * How the parsed request frames its body: its Content-Length (>= 0), `BODY_CHUNKED` or `BODY_NONE`.
   * The upstream request is framed from this, never from which header fields survived stripping.
   */
  readonly bodyFraming: number;
  /** The request body (read only when the request has one). */
  readonly body: import("node:stream").Readable | null;
  /** The response head has been written. */
  readonly headersSent: boolean;
  /** The Content-Length that head carried ("" when none). */
  readonly responseLength: string;
  /** The response ended or the client went away: nothing more can be written. */
  readonly closed: boolean;
  /**
   * Writes the response head; names and values are valid field syntax (the caller checked them). An app's
   * `ResponseFields` are only readable during the call.
   */
  writeHead(status: number, headers: ResponseHeaders): void;
  /**
   * A body piece; false when the client is behind (`onDrain` follows). `chunk` is valid only during the
   * call (`UpstreamSink.onData`): what is kept beyond it is a copy.
   */
  write(chunk: Buffer): boolean;
  end(body?: string | Buffer): void;
  /** Trailers sent with the end of an HTTP/2 response (an HTTP/1 client gets none: trailers are not forwarded). */
  addTrailers?(trailers: Record<string, string | string[]>): void;
  /** Cuts the response off: the client sees an incomplete message. */
  destroy(): void;
  /** Set by the exchange: the client went away before the response ended. */
  onClose: (() => void) | null;
  /** Set by the exchange: the client caught up after `write` returned false. */
  onDrain: (() => void) | null;
}
