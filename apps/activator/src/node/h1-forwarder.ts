import { Readable } from "node:stream";
import {
  BODY_CHUNKED,
  BODY_NONE,
  type DialPolicy,
  H1Client,
  type UpstreamRequest as H1Request,
  type ResponseFields,
  type UpstreamSink,
} from "@thaw/queue-proxy/http1";
import { type Forwarder, UpstreamError, type UpstreamRequest, type UpstreamResponse } from "../ports.js";

/** Bodies up to this size with a Content-Length are read whole before answering. */
const SMALL_BODY_BYTES = 64 * 1024;

/** A streamed answer buffers up to this much ahead of its reader before the pod's connection is paused. */
const STREAM_HIGH_WATER_BYTES = 64 * 1024;

/** Methods whose empty body is still sent as `content-length: 0` (RFC 9110 8.6, as Go's and undici's clients). */
const EXPECTS_BODY = new Set(["POST", "PUT", "PATCH"]);

/** Options of the pods' keep-alive pools. */
export interface PoolOptions {
  /** Connections at most per pod, open or being dialled; more requests wait in arrival order (default 100). */
  connectionsPerHost?: number;
  /** How long a dial may take (default 5 s). It is not retried: a pod that cannot be reached is replayed elsewhere. */
  connectTimeoutMs?: number;
}

/**
 * One dial, no back-off: unlike the queue-proxy, whose app is on the same host and may not listen yet, the
 * activator sends only to pods that passed its probe, and a forward that never connected goes to another pod
 * (the portable path's replay), which is quicker than waiting on this one.
 */
export function activatorDialPolicy(connectTimeoutMs: number): DialPolicy {
  return { initialTimeoutMs: connectTimeoutMs, factor: 1, steps: 1, jitter: 0, sleepMinMs: 0, sleepMaxMs: 0 };
}

/** The activator's HTTP/1 client to its pods, and the portable `Forwarder` over it. */
export interface H1Forwarder {
  forward: Forwarder;
  /** The pools, one per pod: the Node fast path sends through them too. */
  client: H1Client;
  /** Closes the pools of every pod not in `live` (idle connections now, busy ones after their answer). */
  retain(live: Iterable<string>): void;
  close(): Promise<void>;
}

/** A forwarder over Thaw's own keep-alive HTTP/1.1 client (@thaw/queue-proxy/http1), one pool per pod. */
export function createH1Forwarder(opts: PoolOptions = {}): H1Forwarder {
  const client = new H1Client({
    maxConnectionsPerHost: opts.connectionsPerHost ?? 100,
    dial: activatorDialPolicy(opts.connectTimeoutMs ?? 5_000),
  });
  const forward: Forwarder = (dest, req) => {
    if (req.signal.aborted) return Promise.reject(req.signal.reason);
    return new Promise<UpstreamResponse>((resolve, reject) => {
      const sink = new ForwardSink(req, resolve, reject);
      const h1 = h1Request(req);
      if (h1.body instanceof Readable) h1.body.once("error", (err) => sink.bodyFailed(err));
      client.dispatch(dest, h1, sink);
    });
  };
  return {
    forward,
    client,
    retain: (live) => client.retain(live),
    close: () => client.close(),
  };
}

/** The portable request as the HTTP/1 client takes it: flat fields, a Node body and its framing. */
function h1Request(req: UpstreamRequest): H1Request {
  const headers: string[] = [];
  let declared = -1;
  req.headers.forEach((v, k) => {
    // The client frames the body itself; upgrades are spliced at the socket level on Node.
    if (k === "content-length") declared = Number(v);
    else if (k !== "transfer-encoding" && k !== "upgrade" && k !== "connection") headers.push(k, v);
  });
  const body = req.body;
  if (body === null || (body instanceof Uint8Array && body.byteLength === 0)) {
    const framing = EXPECTS_BODY.has(req.method) ? 0 : BODY_NONE;
    return { method: req.method, path: req.path, headers, body: null, framing };
  }
  if (body instanceof Uint8Array) {
    return { method: req.method, path: req.path, headers, body, framing: body.byteLength };
  }
  const framing = Number.isInteger(declared) && declared >= 0 ? declared : BODY_CHUNKED;
  const stream = Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>);
  return { method: req.method, path: req.path, headers, body: stream, framing };
}

/**
 * One forward's answer as a promise: a small body of known length is read whole (one write to the client,
 * no stream bridging), anything else streams with back-pressure; the request's signal cancels it.
 */
class ForwardSink implements UpstreamSink {
  #abort: ((err?: Error) => void) | undefined;
  #resume: (() => void) | undefined;
  #settled = false;
  #status = 0;
  #headers: Headers | undefined;
  /** The whole small body, filled as it comes. */
  #bytes: Buffer | undefined;
  #filled = 0;
  #stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  #done = false;
  readonly #onAbort = () => this.#cancel(this.req.signal.reason);

  constructor(
    private readonly req: UpstreamRequest,
    private readonly resolve: (res: UpstreamResponse) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    req.signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  onConnect(abort: (err?: Error) => void): void {
    this.#abort = abort;
  }

  startResponse(status: number, fields: ResponseFields): boolean {
    if (this.#done) return false;
    const headers = new Headers();
    const list = fields.list;
    for (let i = 0; i < list.length; i += 2) headers.append(list[i] as string, list[i + 1] as string);
    if (this.req.method === "HEAD" || status === 204 || status === 304) {
      this.#settle({ status, headers, body: null });
      return true;
    }
    const length = fields.contentLength === "" ? -1 : Number(fields.contentLength);
    if (length >= 0 && length <= SMALL_BODY_BYTES) {
      this.#status = status;
      this.#headers = headers;
      this.#bytes = Buffer.allocUnsafe(length);
      return true;
    }
    const body = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          this.#stream = c;
        },
        pull: () => this.#resume?.(),
        cancel: () => this.#cancel(undefined),
      },
      { highWaterMark: STREAM_HIGH_WATER_BYTES, size: (chunk) => chunk.byteLength },
    );
    this.#settle({ status, headers, body });
    return true;
  }

  resumeWith(resume: () => void): void {
    this.#resume = resume;
  }

  onData(chunk: Buffer): boolean {
    if (this.#done) return false;
    // `chunk` is a view of the client's shared read buffer: keep a copy.
    if (this.#bytes !== undefined) {
      this.#filled += chunk.copy(this.#bytes, this.#filled);
      return true;
    }
    const c = this.#stream;
    if (c === undefined) return true;
    c.enqueue(Buffer.from(chunk));
    return (c.desiredSize ?? 0) > 0;
  }

  onComplete(): void {
    if (this.#done) return;
    this.#end();
    if (this.#bytes !== undefined) {
      const body = this.#bytes.subarray(0, this.#filled);
      this.#settle({ status: this.#status, headers: this.#headers as Headers, body });
    } else this.#stream?.close();
  }

  onError(err: Error, unsent?: boolean): void {
    if (this.#done) return;
    this.#end();
    const code = (err as { code?: string }).code;
    const failure = new UpstreamError(`${err.message}${code ? ` (${code})` : ""}`, unsent !== true);
    if (!this.#settled) {
      this.#settled = true;
      this.reject(failure);
    } else this.#stream?.error(failure);
  }

  /** The request body failed (the client went away mid-upload): the forward cannot finish. */
  bodyFailed(err: Error): void {
    if (this.#done) return;
    this.#abort?.();
    this.onError(err);
  }

  /** The request's signal fired, or the reader cancelled the body: stop the forward. */
  #cancel(reason: unknown): void {
    if (this.#done) return;
    this.#end();
    this.#abort?.();
    if (!this.#settled) {
      this.#settled = true;
      this.reject(reason);
    } else if (reason !== undefined) {
      try {
        this.#stream?.error(reason);
      } catch {
        // the reader has gone already
      }
    }
  }

  #settle(res: UpstreamResponse): void {
    if (res.body === null) this.#end();
    this.#settled = true;
    this.resolve(res);
  }

  #end(): void {
    this.#done = true;
    this.req.signal.removeEventListener("abort", this.#onAbort);
  }
}
