import { abortError, QueueFullError } from "./errors.js";
import type { Gate } from "./gate.js";
import { RESOLVED, Semaphore } from "./semaphore.js";
import type { Waiter } from "./waiter-queue.js";

/** Breaker sizing, as Knative names it (c.3). */
export interface BreakerParams {
  /** Waiting room beyond `maxConcurrency`; must be > 0. */
  queueDepth: number;
  /** Upper bound for the capacity; >= 0. */
  maxConcurrency: number;
  /** Capacity at construction, in [0, maxConcurrency]. */
  initialCapacity: number;
  /**
   * Optional cap on *waiting* callers on top of Knative's pending limit, for breakers whose
   * `maxConcurrency` is huge (the activator's revision breaker) and so would otherwise never fill.
   */
  maxWaiting?: number;
}

/**
 * Knative's breaker (c.3): at most `queueDepth + maxConcurrency` callers pending (running + waiting),
 * at most `capacity` running; the rest wait strictly first come, first served.
 */
export class Breaker implements Gate {
  readonly #sem: Semaphore;
  readonly #pendingLimit: number;
  readonly #maxWaiting: number;
  #pending = 0;

  constructor(params: BreakerParams) {
    const { queueDepth, maxConcurrency, initialCapacity } = params;
    if (!(queueDepth > 0)) throw new RangeError(`Breaker: queueDepth must be > 0, got ${queueDepth}`);
    if (!(maxConcurrency >= 0)) {
      throw new RangeError(`Breaker: maxConcurrency must be >= 0, got ${maxConcurrency}`);
    }
    if (!(initialCapacity >= 0 && initialCapacity <= maxConcurrency)) {
      throw new RangeError(
        `Breaker: initialCapacity must be in [0, ${maxConcurrency}], got ${initialCapacity}`,
      );
    }
    const maxWaiting = params.maxWaiting ?? Number.POSITIVE_INFINITY;
    if (!(maxWaiting >= 0)) throw new RangeError(`Breaker: maxWaiting must be >= 0, got ${maxWaiting}`);
    // A waiter that cancels leaves the pending count as well as the queue.
    this.#sem = new Semaphore(maxConcurrency, initialCapacity, () => {
      this.#pending--;
    });
    this.#pendingLimit = queueDepth + maxConcurrency;
    this.#maxWaiting = maxWaiting;
  }

  get capacity(): number {
    return this.#sem.capacity;
  }

  get inFlight(): number {
    return this.#pending;
  }

  get waiting(): number {
    return this.#sem.waiting;
  }

  /** Running callers (tokens held). */
  get executing(): number {
    return this.#sem.inUse;
  }

  tryAcquire(): boolean {
    if (this.#pending >= this.#pendingLimit || !this.#sem.tryAcquire()) return false;
    this.#pending++;
    return true;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    // A caller that is already gone must not take a slot even when one is free.
    if (signal?.aborted) return Promise.reject(abortError(signal.reason));
    if (this.#pending >= this.#pendingLimit) return Promise.reject(new QueueFullError());
    if (this.#sem.tryAcquire()) {
      this.#pending++;
      return RESOLVED;
    }
    if (this.#sem.waiting >= this.#maxWaiting) return Promise.reject(new QueueFullError());
    this.#pending++;
    return this.#sem.acquire(signal);
  }

  enqueue(w: Waiter): boolean {
    if (this.#pending >= this.#pendingLimit) return false;
    if (this.#sem.tryAcquire()) {
      this.#pending++;
      w.granted();
      return true;
    }
    if (this.#sem.waiting >= this.#maxWaiting) return false;
    this.#pending++;
    this.#sem.enqueue(w);
    return true;
  }

  release(): void {
    // Count first: the semaphore may hand the slot to a waiter that runs (and releases) synchronously.
    this.#pending--;
    this.#sem.release();
  }

  rejectWaiting(err: Error): void {
    // Waiters count as pending; take them out of the count before they hear about it.
    this.#pending -= this.#sem.waiting;
    this.#sem.rejectWaiters(err);
  }

  /** Knative's `Maybe`: waits for a slot, runs `fn`, releases. */
  async maybe<T>(signal: AbortSignal | undefined, fn: () => T | Promise<T>): Promise<T> {
    if (!this.tryAcquire()) await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** Knative's `Reserve`: a slot only if one is free now; the returned function releases it. */
  reserve(): (() => void) | undefined {
    if (!this.tryAcquire()) return undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  updateConcurrency(capacity: number): void {
    this.#sem.updateCapacity(capacity);
  }
}
