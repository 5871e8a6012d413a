import { retryAfterSeconds } from "@thaw/activation";
import {
  type ActivateResponse,
  BODY_LIMITS,
  badActivateRequestResponse,
  bodyErrorResponse,
  ErrorCode,
  parseActivateRequest,
  readBoundedText,
  type WarmHintResponse,
} from "@thaw/protocol";
import type { ActivatorDeps } from "../ports.js";
import { traceColdStart } from "../trace-spans.js";
import { apiError } from "./errors.js";

/** POST /v1/activate (CONTRACTS.md): waits until >= 1 pod of the revision passes the queue probe. */
export async function handleActivate(req: Request, deps: ActivatorDeps): Promise<Response> {
  let body: unknown;
  try {
    body = JSON.parse(await readBoundedText(req, BODY_LIMITS.activate));
  } catch (err) {
    const tooLarge = bodyErrorResponse(err);
    if (tooLarge) return tooLarge;
    return apiError(
      ErrorCode.ERR_BAD_REQUEST,
      "body: must be JSON (ActivateRequest {namespace, name, timeoutMs})",
    );
  }
  const parsed = parseActivateRequest(body);
  if (!parsed.ok) {
    return badActivateRequestResponse(parsed.issues);
  }
  const { namespace, name, timeoutMs, ttlSeconds } = parsed.value;
  const key = { namespace, name };
  const config = await deps.revisions.lookup(key);
  if (!config) return apiError(ErrorCode.ERR_UNKNOWN_REVISION, `revision "${namespace}/${name}" not found`);
  if (ttlSeconds !== undefined) {
    if (!deps.warm) {
      return apiError(
        ErrorCode.ERR_BAD_REQUEST,
        "ttlSeconds: this activator has no autoscaler to pass a wake hint to; give it --autoscaler (or --autoscaler-service), a Thaw origin at the edge, or leave ttlSeconds out",
      );
    }
    let warmUntilMs: number;
    try {
      warmUntilMs = await deps.warm(key, ttlSeconds * 1000);
    } catch (err) {
      return apiError(ErrorCode.ERR_UPSTREAM, `ttlSeconds: the hint could not be passed on: ${String(err)}`);
    }
    // A hint alone does not wait: the caller (a login page's hook) must not be held by it.
    if (timeoutMs === undefined) {
      const answer: WarmHintResponse = { namespace, name, warmUntilMs };
      return Response.json(answer, { status: 202 });
    }
  }
  if (timeoutMs === undefined) return apiError(ErrorCode.ERR_BAD_REQUEST, "timeoutMs: is required");
  const gate = deps.coordinator.gate(key, config);
  // The hook's call carries the trace context of its decision: this span continues that trace.
  const began = deps.clock.now();
  const span = deps.tracer
    ? deps.tracer.startSpan("activator.activate", (n) => req.headers.get(n), "server", {
        "thaw.revision": `${namespace}/${name}`,
      })
    : undefined;
  try {
    const outcome = await gate.activate(timeoutMs, req.signal);
    if (span) {
      span.setAttribute("thaw.cold", outcome.coldStart);
      if (outcome.coldStart) traceColdStart(span, gate.lastColdStart(), began);
      span.end();
    }
    const answer: ActivateResponse = { namespace, name, ...outcome };
    return Response.json(answer);
  } catch (err) {
    span?.end(err instanceof Error ? err.message : String(err));
    const code = (err as { code?: string }).code;
    if (code === "ERR_DEADLINE" || (err as { name?: string }).name === "TimeoutError") {
      const detail = detailOf(err);
      return apiError(
        ErrorCode.ERR_ACTIVATION_TIMEOUT,
        `revision "${namespace}/${name}" not ready within ${timeoutMs} ms${detail ? `: ${detail}` : ""}`,
        { "retry-after": String(retryAfterSeconds(gate.recentColdStartsMs())) },
        detail,
      );
    }
    const message = err instanceof Error ? err.message : String(err);
    if (code === ErrorCode.ERR_REVISION_FAILED) {
      const after = (err as { retryAfterSeconds?: number }).retryAfterSeconds;
      const retry = { "retry-after": String(after ?? retryAfterSeconds(gate.recentColdStartsMs())) };
      return apiError(code, `revision "${namespace}/${name}" is failing: ${message}`, retry, message);
    }
    if (code === ErrorCode.ERR_QUEUE_FULL) {
      return apiError(code, message, { "retry-after": String(retryAfterSeconds(gate.recentColdStartsMs())) });
    }
    return apiError(code ?? ErrorCode.ERR_CANCELLED, message);
  }
}

/** What a gate said about its timeout beyond the bare fact (the edge's last probe failure and its fix). */
function detailOf(err: unknown): string | undefined {
  const d = (err as { detail?: unknown }).detail;
  return typeof d === "string" && d !== "" ? d : undefined;
}
