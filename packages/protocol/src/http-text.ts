/**
 * Plain-text answers shaped like Go's net/http ones, because Knative's probers and tests compare bodies
 * byte for byte.
 */

/** A `text/plain` response whose body is `message` plus a newline, as Go's `http.Error` writes it. */
export function plainError(status: number, message: string, extra: Record<string, string> = {}): Response {
  return new Response(`${message}\n`, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff", ...extra },
  });
}

/** A response whose body is exactly `body` (no newline), or empty. */
export function plainText(status: number, body = ""): Response {
  return new Response(body === "" ? null : body, {
    status,
    headers: body === "" ? {} : { "content-type": "text/plain; charset=utf-8" },
  });
}
