/** Stable error codes of this package; @thaw/protocol's `ErrorCode` uses the same strings. */
export const ActivationErrorCode = {
  queueFull: "ERR_QUEUE_FULL",
  deadline: "ERR_DEADLINE",
  cancelled: "ERR_CANCELLED",
} as const;

/** A bounded queue had no room: the caller should answer 503 with Retry-After. */
export class QueueFullError extends Error {
  readonly code = ActivationErrorCode.queueFull;
  constructor() {
    // Knative's exact text, which its queue-proxy writes into the 503 body.
    super("pending request queue full");
    this.name = "QueueFullError";
  }
}

/** The waiter's own deadline passed before capacity appeared. */
export class DeadlineExceededError extends Error {
  readonly code = ActivationErrorCode.deadline;
  constructor() {
    super("context deadline exceeded");
    this.name = "DeadlineExceededError";
  }
}

/** The waiter's client went away (its AbortSignal fired) before capacity appeared. */
export class CancelledError extends Error {
  readonly code = ActivationErrorCode.cancelled;
  constructor() {
    super("context canceled");
    this.name = "CancelledError";
  }
}

/**
 * Turns an AbortSignal's reason into one of our errors: a timeout (our DeadlineExceededError or the
 * DOMException `TimeoutError` of `AbortSignal.timeout`) is a deadline, anything else a cancellation.
 */
export function abortError(reason: unknown): DeadlineExceededError | CancelledError {
  if (reason instanceof DeadlineExceededError || reason instanceof CancelledError) return reason;
  if (
    typeof reason === "object" &&
    reason !== null &&
    (reason as { name?: unknown }).name === "TimeoutError"
  ) {
    return new DeadlineExceededError();
  }
  return new CancelledError();
}
