/** What went wrong with one API call, in the terms the retry logic needs. */
export interface ApiFailure {
  /** HTTP status; 0 when no answer came (connection refused, reset, aborted). */
  status: number;
  /** The API's `Status.reason` (e.g. `Conflict`, `Expired`) when the body carried one. */
  reason?: string;
  /** Seconds from a `Retry-After` header (429, some 5xx). */
  retryAfterSeconds?: number;
  /** One line for logs and the status API. */
  message: string;
}

/**
 * Reads a failure from @kubernetes/client-node: its `ApiException` (`code`, `body`, `headers`), the
 * watch's error (`statusCode`), or a network error.
 */
export function apiFailure(err: unknown, what: string): ApiFailure {
  const e = err as {
    code?: unknown;
    statusCode?: unknown;
    body?: unknown;
    headers?: Record<string, string>;
    message?: string;
  };
  const status = typeof e?.code === "number" ? e.code : typeof e?.statusCode === "number" ? e.statusCode : 0;
  const body = parseBody(e?.body);
  const retry = headerValue(e?.headers, "retry-after");
  const seconds = retry !== undefined && /^\d+$/.test(retry) ? Number(retry) : undefined;
  const detail = body?.message ?? (status === 0 ? String(e?.message ?? err) : `HTTP ${status}`);
  const reason = body?.reason;
  return {
    status,
    ...(reason ? { reason } : {}),
    ...(seconds !== undefined ? { retryAfterSeconds: seconds } : {}),
    message: `${what}: ${status ? `${status}${reason ? ` ${reason}` : ""}: ` : ""}${detail}`,
  };
}

function parseBody(body: unknown): { message?: string; reason?: string } | undefined {
  if (body && typeof body === "object") return body as { message?: string; reason?: string };
  if (typeof body !== "string" || body === "") return undefined;
  try {
    return JSON.parse(body) as { message?: string; reason?: string };
  } catch {
    return { message: body.slice(0, 200) };
  }
}

function headerValue(h: Record<string, string> | undefined, name: string): string | undefined {
  if (!h) return undefined;
  for (const [k, v] of Object.entries(h)) if (k.toLowerCase() === name) return v;
  return undefined;
}
