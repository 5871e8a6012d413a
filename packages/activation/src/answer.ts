import { abortError } from "./errors.js";

/** Whoever waits for a `T`: told exactly once, with what it waited for or why there is none. */
export interface Answer<T> {
  /** Served: `value` is the waiter's now (e.g. a reserved pod, to be released). */
  granted(value: T): void;
  /** Turned away: the queue was full, or its owner was torn down. */
  refused(err: Error): void;
}

/** A place in a queue. `cancel` leaves it holding nothing; false when it was no longer waiting. */
export interface Ticket {
  cancel(): boolean;
}

/**
 * The promise form of a callback wait: `park` queues an {@link Answer} and returns its ticket, or undefined
 * when it answered at once. A fired `signal` cancels the ticket and rejects with CancelledError or
 * DeadlineExceededError. For callers that hold few waiters; many held at once should park their own object.
 */
export function waitFor<T>(
  signal: AbortSignal | undefined,
  park: (answer: Answer<T>) => Ticket | undefined,
): Promise<T> {
  if (signal?.aborted) return Promise.reject(abortError(signal.reason));
  return new Promise<T>((resolve, reject) => {
    let ticket: Ticket | undefined;
    const onAbort = () => {
      if (ticket?.cancel()) reject(abortError(signal?.reason));
    };
    const settled = () => signal?.removeEventListener("abort", onAbort);
    ticket = park({
      granted: (value) => {
        settled();
        resolve(value);
      },
      refused: (err) => {
        settled();
        reject(err);
      },
    });
    if (ticket) signal?.addEventListener("abort", onAbort, { once: true });
  });
}
