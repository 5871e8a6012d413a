import { type Waiter, WaiterQueue } from "./waiter-queue.js";

/** A promise that is already settled, shared so the uncontended path allocates nothing. */
export const RESOLVED: Promise<void> = Promise.resolve();

/**
 * A counting semaphore whose capacity can change at run time (Knative's breaker semaphore, c.3).
 * Waiters are served strictly in arrival order: a free token is never taken by a newcomer while
 * somebody is queued, and a release hands its token straight to the head waiter.
 */
export class Semaphore {
  readonly #max: number;
  #capacity: number;
  #inUse = 0;
  readonly #queue: WaiterQueue;

  /** @param onCancel runs whenever a waiter leaves the queue by cancelling (its owner's bookkeeping). */
  constructor(maxCapacity: number, initialCapacity: number, onCancel?: () => void) {
    if (!Number.isInteger(maxCapacity) || maxCapacity < 0) {
      throw new RangeError(`Semaphore: maxCapacity must be an integer >= 0, got ${maxCapacity}`);
    }
    checkCapacity(initialCapacity, maxCapacity);
    this.#max = maxCapacity;
    this.#capacity = initialCapacity;
    this.#queue = new WaiterQueue(onCancel);
  }

  /** Tokens that may be held at once right now. */
  get capacity(): number {
    return this.#capacity;
  }

  /** Tokens held. May exceed `capacity` after a decrease: running work is never preempted. */
  get inUse(): number {
    return this.#inUse;
  }

  /** Callers parked in the queue. */
  get waiting(): number {
    return this.#queue.size;
  }

  /** Takes a token if one is free and nobody is queued ahead; never waits. */
  tryAcquire(): boolean {
    if (this.#inUse < this.#capacity && this.#queue.size === 0) {
      this.#inUse++;
      return true;
    }
    return false;
  }

  /**
   * Resolves once a token is held. A fired `signal` removes the caller from the queue (it never takes
   * a token; the constructor's `onCancel` runs) and rejects with CancelledError / DeadlineExceededError.
   */
  acquire(signal?: AbortSignal): Promise<void> {
    if (this.tryAcquire()) return RESOLVED;
    return this.#queue.wait(signal);
  }

  /**
   * The callback form of `acquire`: `w.granted()` runs once it holds a token (at once if one is free);
   * `w.cancel()` takes it out of the queue holding nothing.
   */
  enqueue(w: Waiter): void {
    if (this.tryAcquire()) w.granted();
    else this.#queue.push(w);
  }

  /** Gives a token back. Releasing more than was acquired is a programmer error and throws. */
  release(): void {
    if (this.#inUse === 0) throw new Error("Semaphore: release without a matching acquire");
    // Hand the token over instead of freeing it, unless a capacity cut means it must be retired.
    const next = this.#inUse <= this.#capacity ? this.#queue.shift() : undefined;
    if (next) next.granted();
    else this.#inUse--;
  }

  /** Changes the capacity; an increase wakes as many waiters as there are new free tokens. */
  updateCapacity(capacity: number): void {
    checkCapacity(capacity, this.#max);
    this.#capacity = capacity;
    // Count the token before waking: a waiter served synchronously may release it at once.
    for (let w = this.#next(); w; w = this.#next()) {
      this.#inUse++;
      w.granted();
    }
  }

  #next(): Waiter | undefined {
    return this.#inUse < this.#capacity ? this.#queue.shift() : undefined;
  }

  /** Rejects every waiter with `err` (teardown). */
  rejectWaiters(err: Error): void {
    this.#queue.rejectAll(err);
  }
}

function checkCapacity(capacity: number, max: number): void {
  if (!Number.isInteger(capacity) || capacity < 0 || capacity > max) {
    throw new RangeError(`Semaphore: capacity must be an integer in [0, ${max}], got ${capacity}`);
  }
}
