import { plainError } from "./http-text.js";

/** Stable codes of every failure Thaw reports across a process boundary (CONTRACTS.md). */
export const ErrorCode = {
  ERR_QUEUE_FULL: "ERR_QUEUE_FULL",
  ERR_DEADLINE: "ERR_DEADLINE",
  ERR_CANCELLED: "ERR_CANCELLED",
  ERR_UNKNOWN_REVISION: "ERR_UNKNOWN_REVISION",
  ERR_ACTIVATION_TIMEOUT: "ERR_ACTIVATION_TIMEOUT",
  ERR_UPSTREAM: "ERR_UPSTREAM",
  ERR_UNAUTHORIZED: "ERR_UNAUTHORIZED",
  ERR_NO_BACKENDS: "ERR_NO_BACKENDS",
  ERR_BAD_REQUEST: "ERR_BAD_REQUEST",
  ERR_BODY_TOO_LARGE: "ERR_BODY_TOO_LARGE",
  ERR_FORBIDDEN: "ERR_FORBIDDEN",
  ERR_REVISION_FAILED: "ERR_REVISION_FAILED",
} as const;

/** One of the {@link ErrorCode} strings. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const STATUS: Record<ErrorCode, number> = {
  ERR_QUEUE_FULL: 503,
  ERR_DEADLINE: 503,
  ERR_CANCELLED: 500,
  ERR_UNKNOWN_REVISION: 404,
  ERR_ACTIVATION_TIMEOUT: 504,
  ERR_UPSTREAM: 502,
  ERR_UNAUTHORIZED: 401,
  ERR_NO_BACKENDS: 503,
  ERR_BAD_REQUEST: 400,
  ERR_BODY_TOO_LARGE: 413,
  ERR_FORBIDDEN: 403,
  ERR_REVISION_FAILED: 503,
};

/**
 * Codes whose answer also closes the connection: the rest of an oversized body is never read, so the
 * connection cannot carry another request.
 */
const CLOSES = new Set<string>([ErrorCode.ERR_BODY_TOO_LARGE]);

/** The headers an error answer for `code` adds (`Connection: close` when the connection must end). */
export function errorHeaders(code: string): Record<string, string> {
  return CLOSES.has(code) ? { connection: "close" } : {};
}

/** True for a string that is one of the {@link ErrorCode} values. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(STATUS, code);
}

/**
 * The one place codes become HTTP statuses. Unknown codes get 500, as every error Knative's activation
 * handler does not single out.
 */
export function httpStatusFor(code: string): number {
  return isErrorCode(code) ? STATUS[code] : 500;
}

/**
 * Knative's plain-text error answer on the data path (activation handler, d.1): the status for `code` and
 * the error text plus a newline, e.g. 503 `context deadline exceeded\n`, 502 `<transport error>\n`.
 */
export function errorTextResponse(code: string, message: string): Response {
  return plainError(httpStatusFor(code), message, errorHeaders(code));
}
