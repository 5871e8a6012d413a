/** Stable error codes of this package; @thaw/protocol's `ErrorCode` uses the same strings. */
export const ActivationErrorCode = {
  queueFull: "ERR_QUEUE_FULL",
  deadline: "ERR_DEADLINE",
  cancelled: "ERR_CANCELLED",
  revisionFailed: "ERR_REVISION_FAILED",
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
 * The revision's pods are known to be failing (the app exited before it was ready, listens on the wrong
 * port, ...): waiting longer would only end in a timeout, so waiters are answered now with the cause.
 */
export class RevisionFailedError extends Error {
  readonly code = ActivationErrorCode.revisionFailed;
  /** Seconds after which trying again makes sense (the next restart), if known. */
  readonly retryAfterSeconds: number | undefined;
  constructor(cause: string, retryAfterSeconds?: number) {
    super(cause);
    this.name = "RevisionFailedError";
    this.retryAfterSeconds = retryAfterSeconds;
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
