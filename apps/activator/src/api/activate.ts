import { retryAfterSeconds } from "@thaw/activation";
import {
  type ActivateResponse,
  type ApiError,
  apiError,
  BODY_LIMITS,
  badActivateRequestMessage,
  bodyErrorResponse,
  ErrorCode,
  errorHeaders,
  httpStatusFor,
  parseActivateRequest,
  readBoundedText,
  type WarmHintResponse,
} from "@thaw/protocol";
import type { ActivatorDeps } from "../ports.js";
import { traceColdStart } from "../trace-spans.js";

/**
 * One `/v1/activate` answer as a value: the HTTP API sends it as JSON, a hook in the same process
 * (`thaw up`) reads it as is, with no Request, body stream or JSON between the two.
 */
export interface ActivateAnswer {
  status: number;
  body: ActivateResponse | WarmHintResponse | ApiError;
  headers: Record<string, string>;
}

/** POST /v1/activate (CONTRACTS.md): waits until >= 1 pod of the revision passes the queue probe. */
export async function handleActivate(req: Request, deps: ActivatorDeps): Promise<Response> {
  let body: unknown;
  try {
    body = JSON.parse(await readBoundedText(req, BODY_LIMITS.activate));
  } catch (err) {
    const tooLarge = bodyErrorResponse(err);
    if (tooLarge) return tooLarge;
    body = undefined;
  }
  const answer = await activateAnswer(body, deps, (n) => req.headers.get(n), req.signal);
  return new Response(JSON.stringify(answer.body), {
    status: answer.status,
    headers: { ...answer.headers, "content-type": "application/json" },
  });
}

/**
 * The activation itself, for a parsed JSON body (`undefined`: the body was not JSON). `header` reads the
 * caller's trace context (traceparent, tracestate); `signal` is the caller going away.
 */
export async function activateAnswer(
  body: unknown,
  deps: ActivatorDeps,
  header: (name: string) => string | null,
  signal?: AbortSignal,
): Promise<ActivateAnswer> {
  if (body === undefined) {
    return failure(
      ErrorCode.ERR_BAD_REQUEST,
      "body: must be JSON (ActivateRequest {namespace, name, timeoutMs})",
    );
  }
  const parsed = parseActivateRequest(body);
  if (!parsed.ok) return failure(ErrorCode.ERR_BAD_REQUEST, badActivateRequestMessage(parsed.issues));
  const { namespace, name, timeoutMs, ttlSeconds } = parsed.value;
  const key = { namespace, name };
  const config = await deps.revisions.lookup(key);
  if (!config) return failure(ErrorCode.ERR_UNKNOWN_REVISION, `revision "${namespace}/${name}" not found`);
  if (ttlSeconds !== undefined) {
    if (!deps.warm) {
      return failure(
        ErrorCode.ERR_BAD_REQUEST,
        "ttlSeconds: this activator has no autoscaler to pass a wake hint to; give it --autoscaler (or --autoscaler-service), a Thaw origin at the edge, or leave ttlSeconds out",
      );
    }
    let warmUntilMs: number;
    try {
      warmUntilMs = await deps.warm(key, ttlSeconds * 1000);
    } catch (err) {
      return failure(ErrorCode.ERR_UPSTREAM, `ttlSeconds: the hint could not be passed on: ${String(err)}`);
    }
    // A hint alone does not wait: the caller (a login page's hook) must not be held by it.
    if (timeoutMs === undefined) return { status: 202, body: { namespace, name, warmUntilMs }, headers: {} };
  }
  if (timeoutMs === undefined) return failure(ErrorCode.ERR_BAD_REQUEST, "timeoutMs: is required");
  const gate = deps.coordinator.gate(key, config);
  // The hook's call carries the trace context of its decision: this span continues that trace.
  const began = deps.clock.now();
  const span = deps.tracer
    ? deps.tracer.startSpan("activator.activate", header, "server", {
        "thaw.revision": `${namespace}/${name}`,
      })
    : undefined;
  try {
    const outcome = await gate.activate(timeoutMs, signal);
    if (span) {
      span.setAttribute("thaw.cold", outcome.coldStart);
      if (outcome.coldStart) traceColdStart(span, gate.lastColdStart(), began);
      span.end();
    }
    return { status: 200, body: { namespace, name, ...outcome }, headers: {} };
  } catch (err) {
    span?.end(err instanceof Error ? err.message : String(err));
    const code = (err as { code?: string }).code;
    const retry = () => ({ "retry-after": String(retryAfterSeconds(gate.recentColdStartsMs())) });
    if (code === "ERR_DEADLINE" || (err as { name?: string }).name === "TimeoutError") {
      const detail = detailOf(err);
      return failure(
        ErrorCode.ERR_ACTIVATION_TIMEOUT,
        `revision "${namespace}/${name}" not ready within ${timeoutMs} ms${detail ? `: ${detail}` : ""}`,
        retry(),
        detail,
      );
    }
    const message = err instanceof Error ? err.message : String(err);
    if (code === ErrorCode.ERR_REVISION_FAILED) {
      const after = (err as { retryAfterSeconds?: number }).retryAfterSeconds;
      const headers = after === undefined ? retry() : { "retry-after": String(after) };
      return failure(code, `revision "${namespace}/${name}" is failing: ${message}`, headers, message);
    }
    if (code === ErrorCode.ERR_QUEUE_FULL) return failure(code, message, retry());
    return failure(code ?? ErrorCode.ERR_CANCELLED, message);
  }
}

/** An ApiError answer with the status and headers its code has (protocol's `apiErrorResponse`, as a value). */
function failure(
  code: string,
  message: string,
  headers: Record<string, string> = {},
  detail?: string,
): ActivateAnswer {
  return {
    status: httpStatusFor(code),
    body: apiError(code, message, detail),
    headers: { ...headers, ...errorHeaders(code) },
  };
}

/** What a gate said about its timeout beyond the bare fact (the edge's last probe failure and its fix). */
function detailOf(err: unknown): string | undefined {
  const d = (err as { detail?: unknown }).detail;
  return typeof d === "string" && d !== "" ? d : undefined;
}
