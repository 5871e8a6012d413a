/** How the request body is held for a forward. */
export type BodyMode = "none" | "buffered" | "stream";

/** What is known about a failed forward attempt. */
export interface FailedAttempt {
  method: string;
  headers: Headers;
  body: BodyMode;
  /** Request bytes may have reached the pod (the connection was established). */
  sent: boolean;
  /** A streamed body had bytes pulled from it (they are gone). */
  streamTouched: boolean;
}

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

/**
 * May this request go to another pod after a failure with no response byte? Never when a streamed body
 * lost bytes; always when nothing reached the pod; otherwise only idempotent methods or requests that
 * carry an `Idempotency-Key` (the pod may have acted on the first copy).
 */
export function canReplay(a: FailedAttempt): boolean {
  if (a.body === "stream" && a.streamTouched) return false;
  if (!a.sent) return true;
  if (a.body === "stream") return false;
  return IDEMPOTENT.has(a.method.toUpperCase()) || a.headers.has("idempotency-key");
}
