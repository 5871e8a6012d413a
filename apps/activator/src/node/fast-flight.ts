import type { IncomingMessage, ServerResponse } from "node:http";
import { DeadlineExceededError } from "@thaw/activation";
import type { TimerHandle } from "@thaw/clock";
import { APP_FAILED_HEADER, APP_UNREACHED_HEADER } from "@thaw/protocol";
import { clientLeft } from "@thaw/protocol/node";
import { BODY_NONE, type H1Client, type ResponseFields, type UpstreamSink } from "@thaw/queue-proxy/http1";
import type {
  ActivatorDeps,
  Lease,
  LeaseWaiter,
  RevisionConfig,
  RevisionGate,
  RevisionKey,
} from "../ports.js";
import { errorResponse, noteFirstByte, serverTiming, TIMEOUT_BODY } from "../proxy-handler.js";
import type { Telemetry } from "../telemetry.js";
import { forwardFields, hasField } from "./fast-headers.js";

/** A whole body up to this size goes out in the same write as the head (the queue-proxy's limit). */
const COALESCE_BYTES = 16 * 1024;

/** The counters the Node path keeps (the portable path's `Telemetry`). */
export type FastPathTelemetry = Pick<
  Telemetry,
  "received" | "queued" | "rejected" | "replayed" | "firstByte"
>;

/** What every flight of one activator shares. */
export interface FlightContext {
  deps: ActivatorDeps;
  /** The keep-alive pools to the pods. */
  client: H1Client;
  /**
   * Takes over a request this path took and counted (received, and in the reporter's concurrency until it
   * ends): the portable path answers it without counting it again.
   */
  slow: (req: IncomingMessage, res: ServerResponse) => void;
  telemetry: FastPathTelemetry;
}

/** A gate the Node path can hold requests in: one with the callback forms of admission. */
export type ParkingGate = RevisionGate & Required<Pick<RevisionGate, "tryAcquire" | "park">>;

/**
 * One request on the Node path, from arrival to its answer's end: one object that is its own sink for the
 * HTTP/1 client to the pod and its own waiter in the throttler's queue, so a request waiting for a slot holds
 * this, its timer and its place in the queue (a ticket and a lease object) and nothing else: no promise,
 * signal or closure (issue 19: 10,000 held across 1,000 cold revisions).
 */
export class Flight implements UpstreamSink, LeaseWaiter {
  readonly #c: FlightContext;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #key: RevisionKey;
  readonly #gate: ParkingGate;
  readonly #arrived: number;
  readonly #timer: TimerHandle;
  #lease: Lease | undefined;
  /** The place in the throttler's queue, while waiting for a slot. */
  #ticket: { cancel(): boolean } | undefined;
  /** Set from arrival until the wait for a slot ends: the request found no free slot. */
  #cold = false;
  /** Cancels the forward (queued in the pod's pool, dialling or in flight). */
  #abort: ((err?: Error) => void) | undefined;
  /** Resumes the pod's connection after the client caught up. */
  #resume: (() => void) | undefined;
  /** Body bytes still to come when the pod gave a length (-1: unknown). */
  #remaining = -1;
  /** The answer's last bytes went out with `end` already. */
  #ended = false;
  /** Set when the request found the revision cold: its answer carries Server-Timing. */
  #queuedMs: number | undefined;
  #sentAt = 0;
  #expired = false;
  #started = false;
  #done = false;

  constructor(
    c: FlightContext,
    req: IncomingMessage,
    res: ServerResponse,
    key: RevisionKey,
    config: RevisionConfig,
    gate: ParkingGate,
  ) {
    this.#c = c;
    this.#req = req;
    this.#res = res;
    this.#key = key;
    this.#gate = gate;
    const { clock, reporter } = c.deps;
    this.#arrived = clock.now();
    reporter.requestIn(key, this.#arrived);
    c.telemetry.received(key);
    this.#timer = clock.setTimeout(() => this.#expire(), config.timeoutSeconds * 1000);
    // `on`, not `once`: close fires once anyway, and once would add a wrapper and a bound function per request.
    res.on("close", () => this.#closed());
  }

  /** Forwards at once when `lease` is given, else waits in the throttler's queue (bounded, in order). */
  start(lease: Lease | undefined): void {
    if (lease) {
      this.#forward(lease);
      return;
    }
    this.#cold = this.#gate.readyEndpoints().length === 0;
    if (this.#cold) this.#c.telemetry.queued(this.#key);
    this.#ticket = this.#gate.park(this);
  }

  /** The throttler reserved a slot (possibly synchronously, inside another request's release). */
  granted(lease: Lease): void {
    this.#ticket = undefined;
    if (this.#done) {
      lease.release();
      return;
    }
    this.#lease = lease;
    // Like the portable path: a request that found the revision cold says where its time went.
    if (this.#cold) this.#queuedMs = this.#c.deps.clock.now() - this.#arrived;
    // Forward once the I/O already received has run: the grant may run inside the releasing request's own
    // client callback, and this client's disconnect may be waiting behind it. One turn on, its socket says
    // so (the response's close, which `#closed` hears, comes two turns later): then it is dropped here.
    setImmediate(() => {
      if (this.#done) return;
      if (clientLeft(this.#req.socket)) this.#closed();
      else this.#forward(lease);
    });
  }

  /** No slot: the queue was full (or the gate was torn down). */
  refused(err: Error): void {
    this.#ticket = undefined;
    this.#refuse(err);
  }

  #forward(lease: Lease): void {
    this.#lease = lease;
    this.#cold = false;
    this.#sentAt = this.#c.deps.clock.now();
    const req = this.#req;
    this.#c.client.dispatch(
      lease.dest,
      {
        method: req.method as string,
        path: req.url ?? "/",
        headers: forwardFields(req.headers, this.#key, this.#c.deps.passthroughLb),
        body: null,
        // The fast path takes no body, and its methods expect none: no framing field, not even a
        // `content-length: 0` the client sent (Go's proxy and undici drop it too).
        framing: BODY_NONE,
      },
      this,
    );
  }

  /** No slot: the queue was full, or the revision timeout passed while waiting. */
  #refuse(err: unknown): void {
    if (this.#done) return;
    const answer = errorResponse(err, this.#expired ? "timeout" : undefined, this.#gate, () =>
      this.#c.telemetry.rejected(this.#key),
    );
    this.#finish();
    const res = this.#res;
    void answer.text().then((body) => {
      if (res.destroyed) return;
      const headers: Record<string, string> = {};
      answer.headers.forEach((v, k) => {
        headers[k] = v;
      });
      res.writeHead(answer.status, headers).end(body);
    });
  }

  #expire(): void {
    this.#expired = true;
    // Still queued: the place is given up and the answer is the portable path's 504.
    if (this.#ticket?.cancel()) {
      this.#ticket = undefined;
      this.#refuse(new DeadlineExceededError());
      return;
    }
    if (this.#done) return;
    this.#abort?.();
    const res = this.#res;
    if (!this.#started) res.writeHead(504, { "content-type": "text/plain; charset=utf-8" }).end(TIMEOUT_BODY);
    else res.destroy(new Error(TIMEOUT_BODY));
    this.#finish();
  }

  #closed(): void {
    if (this.#ticket?.cancel()) this.#ticket = undefined;
    else if (!this.#done) this.#abort?.(new Error("client went away"));
    this.#finish();
  }

  /** Ends this flight; `handedOff`: the request lives on in the portable path, which reports its end. */
  #finish(handedOff = false): void {
    if (this.#done) return;
    this.#done = true;
    const { clock, reporter } = this.#c.deps;
    clock.clearTimeout(this.#timer);
    this.#lease?.release();
    if (!handedOff) reporter.requestOut(this.#key, clock.now());
  }

  /**
   * The forward got no answer: the portable path decides (replay on another pod, or 502). It is the same
   * request, already counted here: one received, one request in the reporter's concurrency and rate.
   */
  #unanswered(): void {
    const dest = (this.#lease as Lease).dest;
    this.#finish(true);
    this.#gate.reportFailure(dest);
    this.#c.telemetry.replayed(this.#key);
    this.#c.slow(this.#req, this.#res);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.#abort = abort;
  }

  startResponse(status: number, fields: ResponseFields): boolean {
    if (this.#done) return false;
    if (
      status === 502 &&
      (hasField(fields.list, APP_UNREACHED_HEADER) || hasField(fields.list, APP_FAILED_HEADER))
    ) {
      // The pod's queue-proxy says the app never got it, or broke before answering (this path takes only
      // bodiless idempotent methods, which the replay rules let go again): drop it, replay on another pod.
      this.#abort?.();
      this.#unanswered();
      return false;
    }
    this.#started = true;
    let headers = fields.list;
    if (this.#queuedMs !== undefined) {
      const timing = serverTiming(
        this.#gate,
        this.#arrived,
        this.#queuedMs,
        this.#c.deps.clock.now() - this.#sentAt,
      );
      headers = [...headers, "server-timing", timing];
      noteFirstByte(
        this.#c.telemetry,
        this.#gate,
        this.#key,
        this.#arrived + this.#queuedMs,
        this.#c.deps.clock.now(),
      );
    }
    this.#remaining = fields.contentLength === "" ? -1 : Number(fields.contentLength);
    this.#res.writeHead(status, headers);
    return true;
  }

  resumeWith(resume: () => void): void {
    this.#resume = resume;
  }

  onData(chunk: Buffer): boolean {
    if (this.#done) return false;
    // `chunk` is a view of the client's shared read buffer: what is written is a copy. A body that ends with
    // this chunk goes out with `end`, which writes it and the head in one go; a small one as a latin1 string,
    // which node:http appends to the head's string: one string write, no writev.
    const res = this.#res;
    if (chunk.length === this.#remaining) {
      this.#remaining = 0;
      this.#ended = true;
      if (chunk.length <= COALESCE_BYTES) res.end(chunk.toString("latin1"), "latin1");
      else res.end(Buffer.from(chunk));
      return true;
    }
    if (this.#remaining > 0) this.#remaining -= chunk.length;
    if (res.write(Buffer.from(chunk))) return true;
    // Back-pressure: a slow client pauses the pod's connection instead of buffering its body here.
    res.once("drain", () => this.#resume?.());
    return false;
  }

  onComplete(): void {
    if (this.#done) return;
    if (!this.#ended) this.#res.end();
    this.#finish();
  }

  onError(err: Error): void {
    if (this.#done) return;
    if (!this.#started && !this.#res.destroyed) {
      this.#unanswered();
      return;
    }
    // Bytes of the answer went out already: all that can be done is to cut it.
    this.#res.destroy(err);
    this.#finish();
  }
}
