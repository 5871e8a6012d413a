import { abortError } from "./errors.js";

/** One parked caller: a node of an intrusive doubly linked list, so cancellation unlinks in O(1). */
export interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  prev: Waiter | undefined;
  next: Waiter | undefined;
  /** False once served or cancelled, so a late abort cannot touch the list twice. */
  queued: boolean;
}

/** A FIFO of waiters; the head is always the earliest arrival still waiting. */
export class WaiterQueue {
  #head: Waiter | undefined;
  #tail: Waiter | undefined;
  #size = 0;

  /** Number of waiters still queued. */
  get size(): number {
    return this.#size;
  }

  /**
   * Parks a caller until `wakeHead` serves it. If `signal` fires first the waiter leaves the queue,
   * `onCancel` runs (so the owner can give back its bookkeeping) and the promise rejects with
   * CancelledError or DeadlineExceededError.
   */
  wait(signal: AbortSignal | undefined, onCancel?: () => void): Promise<void> {
    if (signal?.aborted) {
      onCancel?.();
      return Promise.reject(abortError(signal.reason));
    }
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: undefined,
        prev: this.#tail,
        next: undefined,
        queued: true,
      };
      if (signal) {
        w.onAbort = () => {
          if (!w.queued) return;
          this.#unlink(w);
          onCancel?.();
          reject(abortError(signal.reason));
        };
        signal.addEventListener("abort", w.onAbort, { once: true });
      }
      if (this.#tail) this.#tail.next = w;
      else this.#head = w;
      this.#tail = w;
      this.#size++;
    });
  }

  /** Serves the earliest waiter; returns false when nobody waits. */
  wakeHead(): boolean {
    const w = this.#head;
    if (!w) return false;
    this.#unlink(w);
    w.resolve();
    return true;
  }

  /** Rejects every waiter (e.g. when the owner is torn down). */
  rejectAll(err: Error): void {
    for (let w = this.#head; w; w = this.#head) {
      this.#unlink(w);
      w.reject(err);
    }
  }

  #unlink(w: Waiter): void {
    w.queued = false;
    if (w.signal && w.onAbort) w.signal.removeEventListener("abort", w.onAbort);
    if (w.prev) w.prev.next = w.next;
    else this.#head = w.next;
    if (w.next) w.next.prev = w.prev;
    else this.#tail = w.prev;
    w.prev = undefined;
    w.next = undefined;
    this.#size--;
  }
}
