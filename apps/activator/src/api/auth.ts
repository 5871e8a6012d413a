import { bearerToken, ErrorCode, tokenAllows } from "@thaw/protocol";
import { apiError } from "./errors.js";

/** `undefined` when the request may pass; a 401 ApiError otherwise. No token configured = open. */
export function checkBearer(headers: Headers, token: string | undefined): Response | undefined {
  if (tokenAllows(token, bearerToken(headers))) return undefined;
  return apiError(ErrorCode.ERR_UNAUTHORIZED, "a valid Authorization: Bearer <token> header is required", {
    "www-authenticate": 'Bearer realm="thaw-activator"',
  });
}
