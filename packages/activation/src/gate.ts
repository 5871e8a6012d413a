import type { Waiter } from "./waiter-queue.js";

/**
 * What the queue-proxy and the throttler need from a concurrency limiter. Hot-path use:
 * `if (!gate.tryAcquire()) await gate.acquire(signal); try { ... } finally { gate.release(); }`.
 */
export interface Gate {
  /** Admits at once if a slot is free and nobody waits ahead; never waits, never throws. */
  tryAcquire(): boolean;
  /**
   * Admits, waiting in arrival order if needed. Rejects with QueueFullError when the queue is full,
   * CancelledError / DeadlineExceededError when `signal` fires first (the caller then holds nothing).
   */
  acquire(signal?: AbortSignal): Promise<void>;
  /**
   * The callback form of `acquire`, for callers that hold many waiters cheaply: `w.granted()` runs once
   * admitted (synchronously if a slot is free), `w.cancel()` leaves the queue holding nothing. Returns false
   * when the queue is full (`w` is not queued).
   */
  enqueue(w: Waiter): boolean;
  /** Gives back one admission obtained from `tryAcquire`, `acquire` or `enqueue`. */
  release(): void;
  /** Refuses every caller still waiting with `err` (they hold nothing); admitted callers are untouched. */
  rejectWaiting(err: Error): void;
  /** Changes how many may run at once. */
  updateConcurrency(capacity: number): void;
  /** Current concurrency limit. */
  readonly capacity: number;
  /** Admitted plus waiting (Knative's "pending"). */
  readonly inFlight: number;
  /** Waiting only. */
  readonly waiting: number;
}

/** Runs `fn` inside one admission of `gate`, releasing it however `fn` ends. */
export async function withGate<T>(gate: Gate, signal: AbortSignal | undefined, fn: () => T | Promise<T>) {
  if (!gate.tryAcquire()) await gate.acquire(signal);
  try {
    return await fn();
  } finally {
    gate.release();
  }
}
