import { applyRevisionDefaults, parseProbe, validateProbe } from "@thaw/readiness";
import type { ConfigIssue } from "./parse.js";

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** An issue of @thaw/readiness on one line: Knative's message, then its details (the rule, the fix). */
function oneLine(i: { path: string; message: string; details?: string }): ConfigIssue {
  return { path: i.path, message: i.details ? `${i.message}; ${i.details}` : i.message };
}

/**
 * `services[i].readinessProbe` checked by @thaw/readiness as Knative's webhook would, after Knative's
 * defaulting (b.1, then b.2). Reads the raw input leniently, beside the schema.
 */
export function readinessIssues(input: unknown): ConfigIssue[] {
  if (!isRecord(input) || !Array.isArray(input.services)) return [];
  const issues: ConfigIssue[] = [];
  input.services.forEach((svc, i) => {
    if (!isRecord(svc) || svc.readinessProbe === undefined) return;
    const path = `services[${i}].readinessProbe`;
    const parsed = parseProbe(svc.readinessProbe, { path });
    if (!parsed.ok) {
      issues.push(...parsed.issues.map(oneLine));
      return;
    }
    const defaulted = applyRevisionDefaults({ containers: [{ readinessProbe: parsed.value }] });
    const checked = validateProbe(defaulted.containers?.[0]?.readinessProbe, { path });
    if (!checked.ok) issues.push(...checked.issues.map(oneLine));
  });
  return issues;
}
