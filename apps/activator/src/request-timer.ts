import type { Clock, TimerHandle } from "@thaw/clock";

/** Why a request's work was cut short. */
export type Expiry = "timeout" | "deadline" | "cancelled";

/** The revision's three timers (c.4) plus the caller's own deadline and the client going away. */
export interface TimerSpec {
  totalMs: number;
  /** 0 = off. */
  responseStartMs: number;
  /** 0 = off. */
  idleMs: number;
  /** The caller's `grpc-timeout` / `Request-Timeout` budget, if it sent one. */
  callerMs?: number;
  clientSignal?: AbortSignal;
}

/**
 * Per-request timers with Knative's semantics: total from arrival (the wait for capacity counts),
 * response-start until the first byte is written, idle since the last write (from arrival while nothing was
 * written). When one fires, `signal` aborts and `expiry` says which.
 */
export class RequestTimer {
  readonly #clock: Clock;
  readonly #controller = new AbortController();
  readonly #idleMs: number;
  #handles: TimerHandle[] = [];
  #idle: TimerHandle | undefined;
  #start: TimerHandle | undefined;
  #expiry: Expiry | undefined;
  #onClient = () => this.#fire("cancelled");
  #client: AbortSignal | undefined;

  constructor(clock: Clock, spec: TimerSpec) {
    this.#clock = clock;
    this.#idleMs = spec.idleMs;
    if (spec.totalMs > 0) this.#handles.push(clock.setTimeout(() => this.#fire("timeout"), spec.totalMs));
    if (spec.responseStartMs > 0)
      this.#start = clock.setTimeout(() => this.#fire("timeout"), spec.responseStartMs);
    if (spec.callerMs !== undefined)
      this.#handles.push(clock.setTimeout(() => this.#fire("deadline"), spec.callerMs));
    this.#armIdle();
    this.#client = spec.clientSignal;
    if (this.#client?.aborted) this.#fire("cancelled");
    else this.#client?.addEventListener("abort", this.#onClient, { once: true });
  }

  /** Aborts when any timer fires or the client leaves. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Which limit fired, if any. */
  get expiry(): Expiry | undefined {
    return this.#expiry;
  }

  /** Response headers were written: the response-start timer no longer applies. */
  started(): void {
    if (this.#start !== undefined) this.#clock.clearTimeout(this.#start);
    this.#start = undefined;
    this.#armIdle();
  }

  /** A body chunk was written: the idle timer starts over. */
  wrote(): void {
    this.#armIdle();
  }

  /** The request is over: clear every timer. */
  done(): void {
    for (const h of this.#handles) this.#clock.clearTimeout(h);
    if (this.#start !== undefined) this.#clock.clearTimeout(this.#start);
    if (this.#idle !== undefined) this.#clock.clearTimeout(this.#idle);
    this.#handles = [];
    this.#start = undefined;
    this.#idle = undefined;
    this.#client?.removeEventListener("abort", this.#onClient);
  }

  #armIdle(): void {
    if (this.#idleMs <= 0 || this.#expiry) return;
    if (this.#idle !== undefined) this.#clock.clearTimeout(this.#idle);
    this.#idle = this.#clock.setTimeout(() => this.#fire("timeout"), this.#idleMs);
  }

  #fire(why: Expiry): void {
    if (this.#expiry) return;
    this.#expiry = why;
    this.done();
    const reason =
      why === "cancelled"
        ? new DOMException("client went away", "AbortError")
        : new DOMException(
            why === "deadline" ? "caller deadline" : "activator request timeout",
            "TimeoutError",
          );
    this.#controller.abort(reason);
  }
}
