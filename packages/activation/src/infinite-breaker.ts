import { abortError, QueueFullError } from "./errors.js";
import type { Gate } from "./gate.js";
import { RESOLVED } from "./semaphore.js";
import { type Waiter, WaiterQueue } from "./waiter-queue.js";

/**
 * Knative's "infinite breaker" for containerConcurrency 0 revisions in the throttler (d.2): capacity is
 * only closed (0: no backend, everyone waits) or open (1: everyone passes). Unlike Knative's, the
 * waiting room is bounded by `maxWaiting`, and opening lets waiters through in arrival order.
 */
export class InfiniteBreaker implements Gate {
  readonly #queue = new WaiterQueue();
  readonly #maxWaiting: number;
  #open = false;
  #running = 0;

  constructor(maxWaiting = Number.POSITIVE_INFINITY) {
    if (!(maxWaiting >= 0))
      throw new RangeError(`InfiniteBreaker: maxWaiting must be >= 0, got ${maxWaiting}`);
    this.#maxWaiting = maxWaiting;
  }

  /** 1 when open, 0 when closed. */
  get capacity(): number {
    return this.#open ? 1 : 0;
  }

  get inFlight(): number {
    return this.#running + this.#queue.size;
  }

  get waiting(): number {
    return this.#queue.size;
  }

  tryAcquire(): boolean {
    if (!this.#open || this.#queue.size > 0) return false;
    this.#running++;
    return true;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    // A caller that is already gone must not take a slot even when one is free.
    if (signal?.aborted) return Promise.reject(abortError(signal.reason));
    if (this.tryAcquire()) return RESOLVED;
    if (this.#queue.size >= this.#maxWaiting) return Promise.reject(new QueueFullError());
    return this.#queue.wait(signal);
  }

  enqueue(w: Waiter): boolean {
    if (this.tryAcquire()) w.granted();
    else if (this.#queue.size >= this.#maxWaiting) return false;
    else this.#queue.push(w);
    return true;
  }

  release(): void {
    if (this.#running === 0) throw new Error("InfiniteBreaker: release without a matching acquire");
    this.#running--;
  }

  rejectWaiting(err: Error): void {
    this.#queue.rejectAll(err);
  }

  /** Any positive value opens the breaker (waking every waiter, oldest first); 0 closes it. */
  updateConcurrency(capacity: number): void {
    if (!(capacity >= 0)) throw new RangeError(`InfiniteBreaker: capacity must be >= 0, got ${capacity}`);
    this.#open = capacity > 0;
    // Count before waking: a waiter served synchronously may release at once.
    for (let w = this.#next(); w; w = this.#next()) {
      this.#running++;
      w.granted();
    }
  }

  #next(): Waiter | undefined {
    return this.#open ? this.#queue.shift() : undefined;
  }
}
