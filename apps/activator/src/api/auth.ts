import { ErrorCode } from "@thaw/protocol";
import { apiError } from "./errors.js";

/** Compares in time that depends only on the length, so a token cannot be guessed byte by byte. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** `undefined` when the request may pass; a 401 ApiError otherwise. No token configured = open. */
export function checkBearer(headers: Headers, token: string | undefined): Response | undefined {
  if (token === undefined || token === "") return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(headers.get("authorization") ?? "");
  if (m && sameText(m[1] as string, token)) return undefined;
  return apiError(ErrorCode.ERR_UNAUTHORIZED, "a valid Authorization: Bearer <token> header is required", {
    "www-authenticate": 'Bearer realm="thaw-activator"',
  });
}
