import { abortError } from "./errors.js";

/**
 * One parked caller: a node of a {@link WaiterQueue}'s intrusive doubly linked list, so leaving it is O(1).
 * A subclass is the caller's own object (no promise, signal or closure per waiter): the queue calls
 * `granted` once when it serves it, or `refused` on teardown, and the caller calls `cancel` when it gives up.
 */
export abstract class Waiter {
  prev: Waiter | undefined = undefined;
  next: Waiter | undefined = undefined;
  /** The queue it waits in; undefined once served, refused or cancelled. */
  queue: WaiterQueue | undefined = undefined;

  /** Served: what it waited for is its own now. Called synchronously, after the owner's bookkeeping. */
  abstract granted(): void;
  /** Turned away without being served (the owner is torn down). */
  abstract refused(err: Error): void;

  /** Leaves its queue (running the queue's `onCancel`); false when it was no longer waiting. */
  cancel(): boolean {
    const q = this.queue;
    if (!q) return false;
    q.unlink(this);
    q.onCancel?.();
    return true;
  }
}

/** A FIFO of waiters; the head is always the earliest arrival still waiting. */
export class WaiterQueue {
  #head: Waiter | undefined;
  #tail: Waiter | undefined;
  #size = 0;

  /** @param onCancel runs whenever a waiter leaves by cancelling, so the owner can give back its bookkeeping. */
  constructor(readonly onCancel?: () => void) {}

  /** Number of waiters still queued. */
  get size(): number {
    return this.#size;
  }

  /** Queues `w` at the tail. A waiter waits in at most one queue at a time. */
  push(w: Waiter): void {
    if (w.queue) throw new Error("WaiterQueue: the waiter is already queued");
    w.queue = this;
    w.prev = this.#tail;
    w.next = undefined;
    if (this.#tail) this.#tail.next = w;
    else this.#head = w;
    this.#tail = w;
    this.#size++;
  }

  /** Removes and returns the earliest waiter without serving it (the owner then calls its `granted`). */
  shift(): Waiter | undefined {
    const w = this.#head;
    if (w) this.unlink(w);
    return w;
  }

  /** Serves the earliest waiter; returns false when nobody waits. */
  wakeHead(): boolean {
    const w = this.shift();
    if (!w) return false;
    w.granted();
    return true;
  }

  /**
   * Parks a caller as a promise until it is served. If `signal` fires first the waiter leaves the queue,
   * the queue's `onCancel` runs, and the promise rejects with CancelledError or DeadlineExceededError.
   */
  wait(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) {
      this.onCancel?.();
      return Promise.reject(abortError(signal.reason));
    }
    return new Promise<void>((resolve, reject) => {
      this.push(new SignalWaiter(resolve, reject, signal));
    });
  }

  /** Refuses every waiter (e.g. when the owner is torn down). */
  rejectAll(err: Error): void {
    for (let w = this.shift(); w; w = this.shift()) w.refused(err);
  }

  /** Takes `w` out of the list; for {@link Waiter.cancel} and {@link shift}. */
  unlink(w: Waiter): void {
    if (w.queue !== this) return;
    w.queue = undefined;
    if (w.prev) w.prev.next = w.next;
    else this.#head = w.next;
    if (w.next) w.next.prev = w.prev;
    else this.#tail = w.prev;
    w.prev = undefined;
    w.next = undefined;
    this.#size--;
  }
}

/** The promise form's waiter: settles its promise, and leaves the queue when its signal fires. */
class SignalWaiter extends Waiter {
  readonly #resolve: () => void;
  readonly #reject: (err: Error) => void;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort: (() => void) | undefined;

  constructor(resolve: () => void, reject: (err: Error) => void, signal: AbortSignal | undefined) {
    super();
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    if (signal) {
      this.#onAbort = () => {
        if (this.cancel()) reject(abortError(signal.reason));
      };
      signal.addEventListener("abort", this.#onAbort, { once: true });
    }
  }

  granted(): void {
    this.#detach();
    this.#resolve();
  }

  refused(err: Error): void {
    this.#detach();
    this.#reject(err);
  }

  #detach(): void {
    if (this.#onAbort) this.#signal?.removeEventListener("abort", this.#onAbort);
  }
}
