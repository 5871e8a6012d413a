import type { IncomingMessage, ServerResponse } from "node:http";
import { DeadlineExceededError } from "@thaw/activation";
import type { TimerHandle } from "@thaw/clock";
import { APP_UNREACHED_HEADER } from "@thaw/protocol";
import type { Agent, Dispatcher } from "undici";
import type {
  ActivatorDeps,
  Lease,
  LeaseWaiter,
  RevisionConfig,
  RevisionGate,
  RevisionKey,
} from "../ports.js";
import { errorResponse, serverTiming, TIMEOUT_BODY } from "../proxy-handler.js";
import type { Telemetry } from "../telemetry.js";
import { answerHeaders, forwardHeaders } from "./fast-headers.js";

/** The counters the Node path keeps (the portable path's `Telemetry`). */
export type FastPathTelemetry = Pick<Telemetry, "queued" | "rejected" | "replayed">;

/** What every flight of one activator shares. */
export interface FlightContext {
  deps: ActivatorDeps;
  agent: Agent;
  slow: (req: IncomingMessage, res: ServerResponse) => void;
  telemetry: FastPathTelemetry;
}

/** A gate the Node path can hold requests in: one with the callback forms of admission. */
export type ParkingGate = RevisionGate & Required<Pick<RevisionGate, "tryAcquire" | "park">>;

/**
 * One request on the Node path, from arrival to its answer's end: one object that is its own undici
 * dispatch handler and its own waiter in the throttler's queue, so a request waiting for a slot holds this,
 * its timer and its place in the queue (a ticket and a lease object) and nothing else: no promise, signal or
 * closure (issue 19: 10,000 held across 1,000 cold revisions).
 */
export class Flight implements Dispatcher.DispatchHandler, LeaseWaiter {
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
  #controller: Dispatcher.DispatchController | undefined;
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
    // Forward on a later tick: the grant may run inside the releasing request's own undici callback.
    queueMicrotask(() => {
      if (!this.#done) this.#forward(lease);
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
    this.#c.agent.dispatch(
      {
        origin: `http://${lease.dest}`,
        path: req.url ?? "/",
        method: req.method as "GET",
        headers: forwardHeaders(req.headers, this.#key, this.#c.deps.passthroughLb),
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
    } else this.#controller?.abort(new Error(TIMEOUT_BODY));
  }

  #closed(): void {
    if (this.#ticket?.cancel()) this.#ticket = undefined;
    else if (!this.#res.writableFinished) this.#controller?.abort(new Error("client went away"));
    this.#finish();
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    const { clock, reporter } = this.#c.deps;
    clock.clearTimeout(this.#timer);
    this.#lease?.release();
    reporter.requestOut(this.#key, clock.now());
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.#controller = c;
  }

  onResponseStart(
    c: Dispatcher.DispatchController,
    statusCode: number,
    up: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode === 502 && up[APP_UNREACHED_HEADER] !== undefined) {
      // The app never got it: abort, and onResponseError hands it to the portable path's replay.
      c.abort(new Error("the app refused the connection"));
      return;
    }
    this.#started = true;
    const timing =
      this.#queuedMs === undefined
        ? undefined
        : serverTiming(this.#gate, this.#arrived, this.#queuedMs, this.#c.deps.clock.now() - this.#sentAt);
    this.#res.writeHead(statusCode, answerHeaders(up, timing));
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    // Back-pressure: a slow client pauses the pod's body instead of buffering it here.
    if (!this.#res.write(chunk)) {
      c.pause();
      this.#res.once("drain", () => c.resume());
    }
  }

  onResponseEnd(): void {
    this.#res.end();
    this.#finish();
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    const res = this.#res;
    if (!this.#started && !this.#expired && !res.destroyed) {
      // No answer yet: let the portable path decide (replay on another pod, or 502).
      const dest = (this.#lease as Lease).dest;
      this.#finish();
      this.#gate.reportFailure(dest);
      this.#c.telemetry.replayed(this.#key);
      this.#c.slow(this.#req, res);
      return;
    }
    if (!this.#started && this.#expired) {
      res.writeHead(504, { "content-type": "text/plain; charset=utf-8" }).end(TIMEOUT_BODY);
    } else res.destroy(err);
    this.#finish();
  }
}
