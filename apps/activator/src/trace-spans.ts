import { TRACEPARENT_HEADER, TRACESTATE_HEADER, type TraceSpan } from "@thaw/protocol";
import type { ColdStartPhases } from "./ports.js";

/**
 * Adds a cold start's phases under `parent` once they are known: `thaw.activation` from the revision found
 * cold to its first ready pod, split into `thaw.scale` (until a pod was listed) and `thaw.probe` (readiness
 * probing until that pod passed the queue probe). Skipped when the last cold start ended before `since`:
 * the request did not wait for it.
 */
export function traceColdStart(parent: TraceSpan, phases: ColdStartPhases | undefined, since: number): void {
  if (!phases) return;
  const listed = phases.beganAt + phases.scaleMs;
  const ready = listed + phases.readyMs;
  if (ready < since) return;
  const attrs = { "thaw.cold_start.scale_ms": phases.scaleMs, "thaw.cold_start.ready_ms": phases.readyMs };
  const activation = parent.child("thaw.activation", "internal", attrs, phases.beganAt);
  activation.child("thaw.scale", "internal", undefined, phases.beganAt).end(undefined, listed);
  activation.child("thaw.probe", "internal", undefined, listed).end(undefined, ready);
  activation.end(undefined, ready);
}

/** `headers` with the trace context of `span`, so the pod's queue-proxy continues under it. */
export function withTraceContext(headers: Headers, span: TraceSpan): Headers {
  const out = new Headers(headers);
  const c = span.carrier();
  out.set(TRACEPARENT_HEADER, c.traceparent);
  if (c.tracestate) out.set(TRACESTATE_HEADER, c.tracestate);
  else out.delete(TRACESTATE_HEADER);
  return out;
}

/** `p`, ending `span` as failed when it rejects (the caller ends it on success). */
export function traced<T>(p: Promise<T>, span: TraceSpan | undefined): Promise<T> {
  if (!span) return p;
  return p.catch((err: unknown) => {
    span.end(err instanceof Error ? err.message : String(err));
    throw err;
  });
}
