import { apiErrorResponse } from "@thaw/protocol";

/** A JSON ApiError answer with the status `httpStatusFor` gives its code. */
export function apiError(
  code: string,
  message: string,
  headers: Record<string, string> = {},
  detail?: string,
): Response {
  return apiErrorResponse(code, message, headers, detail);
}
