import { type ApiError, httpStatusFor } from "../protocol-pending.js";

/** A JSON ApiError answer with the status `httpStatusFor` gives its code. */
export function apiError(code: string, message: string, headers: Record<string, string> = {}): Response {
  const body: ApiError = { error: { code, message } };
  return Response.json(body, { status: httpStatusFor(code), headers });
}
