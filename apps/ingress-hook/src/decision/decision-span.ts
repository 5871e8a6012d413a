import type { TraceSpan } from "@thaw/protocol";
import type { Decision } from "./decision.js";

/** Ends a decision's span with what was decided. */
export function endDecisionSpan(span: TraceSpan, d: Decision): void {
  span.setAttribute("thaw.decision", d.kind);
  if (d.kind === "deny") {
    span.setAttribute("thaw.error_code", d.code);
    span.end(d.message);
    return;
  }
  span.setAttribute("thaw.revision", d.key);
  span.setAttribute("thaw.via", d.via);
  span.setAttribute("thaw.warm", d.warm);
  span.end();
}
