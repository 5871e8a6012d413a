import { ErrorCode, errorHeaders, httpStatusFor } from "./error-code.js";

/** POST /v1/activate body */
export interface ActivateRequest {
  namespace: string;
  name: string;
  /** How long to wait for a ready pod; absent with `ttlSeconds` = a wake hint only, answered 202 at once. */
  timeoutMs?: number;
  /** A wake hint: keep the revision at ≥ 1 pod this long (1..MAX_WARM_TTL_SECONDS), without counting as load. */
  ttlSeconds?: number;
}

/** 202 answer to a hint-only activate (no `timeoutMs`). */
export interface WarmHintResponse {
  namespace: string;
  name: string;
  /** Until when (epoch ms) the revision is kept at ≥ 1 pod. */
  warmUntilMs: number;
}

/** Longest wake hint: an hour; longer warm periods are what schedules are for. */
export const MAX_WARM_TTL_SECONDS = 3600;

/** 200 answer */
export interface ActivateResponse {
  namespace: string;
  name: string;
  /** "host:port" of pods that passed the K-Network-Probe: queue probe. */
  endpoints: string[];
  /** True when this call (or the flight it joined) woke the revision. */
  coldStart: boolean;
  /** Time the activator spent waiting for readiness for this call. */
  waitedMs: number;
}

/** Error body of every non-2xx answer of the activator / hook JSON APIs */
export interface ApiError {
  /**
   * `detail`, when present, is what was last seen beyond the bare fact (why a revision is not ready), also at
   * the end of `message`: a caller that words its own message takes it from here instead of repeating ours.
   */
  error: { code: string; message: string; detail?: string };
}

/** One event of GET /v1/watch (server-sent events, `event: endpoints`, data = JSON of this) */
export interface EndpointsEvent {
  namespace: string;
  name: string;
  endpoints: string[];
  mode: "proxy" | "serve";
}

/** A problem with an input, located by a field path. */
export interface Issue {
  path: string;
  message: string;
}

/** Longest timeout a runtime timer can hold (2^31-1 ms); longer ones fire at once in Node. */
export const MAX_ACTIVATE_TIMEOUT_MS = 2_147_483_647;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function checkLabel(value: unknown, path: string, what: string, issues: Issue[]): value is string {
  if (typeof value !== "string" || value === "") {
    issues.push({ path, message: `${what} is required and must be a non-empty string` });
    return false;
  }
  if (value.length > 63 || !DNS_LABEL.test(value)) {
    issues.push({
      path,
      message: `${what} ${JSON.stringify(value)} must be a Kubernetes name: at most 63 characters of a-z, 0-9 and '-', starting and ending with a letter or digit`,
    });
    return false;
  }
  return true;
}

/** Validates a parsed POST /v1/activate body; issues name the field and say what to send instead. */
export function parseActivateRequest(
  body: unknown,
): { ok: true; value: ActivateRequest } | { ok: false; issues: { path: string; message: string }[] } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return {
      ok: false,
      issues: [{ path: "", message: "body must be a JSON object with namespace, name and timeoutMs" }],
    };
  }
  const { namespace, name, timeoutMs, ttlSeconds } = body as Record<string, unknown>;
  const issues: Issue[] = [];
  const nsOk = checkLabel(namespace, "namespace", "namespace", issues);
  const nameOk = checkLabel(name, "name", "revision name", issues);
  const ttlOk =
    ttlSeconds === undefined ||
    (typeof ttlSeconds === "number" &&
      Number.isInteger(ttlSeconds) &&
      ttlSeconds >= 1 &&
      ttlSeconds <= MAX_WARM_TTL_SECONDS);
  if (!ttlOk) {
    issues.push({
      path: "ttlSeconds",
      message: `ttlSeconds must be a whole number of seconds from 1 to ${MAX_WARM_TTL_SECONDS}, got ${JSON.stringify(ttlSeconds)}`,
    });
  }
  const hintOnly = ttlSeconds !== undefined && timeoutMs === undefined;
  const timeoutOk =
    hintOnly ||
    (typeof timeoutMs === "number" &&
      Number.isFinite(timeoutMs) &&
      timeoutMs > 0 &&
      timeoutMs <= MAX_ACTIVATE_TIMEOUT_MS);
  if (!timeoutOk) {
    issues.push({
      path: "timeoutMs",
      message: `timeoutMs must be a number of milliseconds > 0 and <= ${MAX_ACTIVATE_TIMEOUT_MS}, got ${JSON.stringify(timeoutMs) ?? "nothing"}`,
    });
  }
  if (!nsOk || !nameOk || !timeoutOk || !ttlOk) return { ok: false, issues };
  const value: ActivateRequest = { namespace, name };
  if (typeof timeoutMs === "number") value.timeoutMs = timeoutMs;
  if (typeof ttlSeconds === "number") value.ttlSeconds = ttlSeconds;
  return { ok: true, value };
}

/** The {@link ApiError} body for a code and message. */
export function apiError(code: string, message: string, detail?: string): ApiError {
  return detail === undefined ? { error: { code, message } } : { error: { code, message, detail } };
}

/** A JSON {@link ApiError} response with the status {@link httpStatusFor} gives the code. */
export function apiErrorResponse(
  code: string,
  message: string,
  headers?: ConstructorParameters<typeof Headers>[0],
  detail?: string,
): Response {
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  for (const [k, v] of Object.entries(errorHeaders(code))) h.set(k, v);
  const body = JSON.stringify(apiError(code, message, detail));
  return new Response(body, { status: httpStatusFor(code), headers: h });
}

/** The message of the 400 ApiError for an ActivateRequest that failed {@link parseActivateRequest}. */
export function badActivateRequestMessage(issues: readonly Issue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
}

/** The 400 ApiError for an ActivateRequest that failed {@link parseActivateRequest}. */
export function badActivateRequestResponse(issues: readonly Issue[]): Response {
  return apiErrorResponse(ErrorCode.ERR_BAD_REQUEST, badActivateRequestMessage(issues));
}
