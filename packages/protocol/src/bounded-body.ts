import { apiErrorResponse } from "./activation-api.js";
import { ErrorCode } from "./error-code.js";

/**
 * The most each internal endpoint reads of a request body. The unauthenticated ones (the webhook, whose
 * signature covers the body, and the sign-in form) get a few KiB; the rest are read only after their
 * bearer token passed. README "Security" and CONTRACTS.md list them.
 */
export const BODY_LIMITS = {
  /** `POST /v1/scale`: a signed ScaleRequest is about 200 bytes. */
  scaleWebhook: 16 * 1024,
  /** `POST /_thaw/login`: one form field holding the token. */
  login: 4 * 1024,
  /** `POST /v1/activate`: an ActivateRequest is under 200 bytes. */
  activate: 16 * 1024,
  /** `POST /v1/load` (edge): one small record per revision. */
  load: 256 * 1024,
  /** `POST /v1/stats`: one serialised WireStatMessages batch. */
  stats: 1024 * 1024,
} as const;

/** A body past its endpoint's bound; {@link bodyErrorResponse} answers it with 413 and `Connection: close`. */
export class BodyTooLargeError extends Error {
  /** Stable code (CONTRACTS.md): maps to 413. */
  readonly code = ErrorCode.ERR_BODY_TOO_LARGE;
  constructor(readonly limit: number) {
    super(`body: larger than ${limit} bytes (the most this endpoint reads)`);
    this.name = "BodyTooLargeError";
  }
}

/** What {@link readBoundedBody} reads from: a Web `Request` or anything with its headers and body. */
export interface BodySource {
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
}

/**
 * Reads a request body while counting its bytes and stops at `limit`: a declared Content-Length over the
 * bound is refused before a byte is read, a chunked body the moment it passes the bound (the rest is left
 * unread; the caller's 413 closes the connection). Throws {@link BodyTooLargeError}.
 */
export async function readBoundedBody(req: BodySource, limit: number): Promise<Uint8Array> {
  if (!Number.isInteger(limit) || limit < 0)
    throw new RangeError(`limit must be an integer >= 0, got ${limit}`);
  const declared = Number(req.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  if (req.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw new BodyTooLargeError(limit);
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** {@link readBoundedBody} decoded as UTF-8 (malformed bytes become U+FFFD, as `Request.text()` does). */
export async function readBoundedText(req: BodySource, limit: number): Promise<string> {
  return new TextDecoder().decode(await readBoundedBody(req, limit));
}

/** The 413 ApiError (with `Connection: close`) for a {@link BodyTooLargeError}; undefined for anything else. */
export function bodyErrorResponse(err: unknown): Response | undefined {
  return err instanceof BodyTooLargeError
    ? apiErrorResponse(ErrorCode.ERR_BODY_TOO_LARGE, err.message)
    : undefined;
}
