/**
 * The narrow seams between the queue-proxy's hot path and the packages it composes. They are structural
 * subsets of @thaw/activation's `Gate` (the `Breaker`) and `RequestStats`, so the real classes plug in
 * directly and tests can pass their own.
 */

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
