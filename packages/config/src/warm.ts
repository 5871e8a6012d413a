import { parseSchedules, scheduleOverlapIssues } from "@thaw/autoscaler/settings";
import type { ConfigIssue } from "./parse.js";

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** A service's max-scale as written (short key, annotation key, or the global one); 0 = unlimited. */
function maxScaleOf(svc: Record<string, unknown>, global: unknown): number {
  const block = isRecord(svc.autoscaling) ? svc.autoscaling : {};
  const g = isRecord(global) ? global : {};
  const raw = block["max-scale"] ?? block["autoscaling.knative.dev/max-scale"] ?? g["max-scale"];
  const n = Number(raw ?? 0);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/**
 * Warm-before-need checks beside the schema: each service's `schedules` (crons, zones, ranges, overlaps,
 * through @thaw/autoscaler) and `warm[k].services` naming services that exist. Overlaps are looked for from
 * `nowMs` on (400 days ahead). Reads the raw input leniently, so it runs beside the schema.
 */
export function warmIssues(input: unknown, nowMs: number): ConfigIssue[] {
  if (!isRecord(input) || !Array.isArray(input.services)) return [];
  const issues: ConfigIssue[] = [];
  const names = new Set<string>();
  input.services.forEach((svc, i) => {
    if (!isRecord(svc)) return;
    const ns = typeof svc.namespace === "string" ? svc.namespace : "default";
    if (typeof svc.name === "string") names.add(`${ns}/${svc.name}`);
    if (!Array.isArray(svc.schedules)) return;
    const path = `services[${i}].schedules`;
    // Shapes the schema refuses are reported there; only well-formed windows are checked in depth.
    const windows = svc.schedules.filter(isRecord);
    if (windows.length !== svc.schedules.length) return;
    const parsed = parseSchedules(windows, path, maxScaleOf(svc, input.autoscaler));
    if (!parsed.ok) issues.push(...parsed.issues);
    else issues.push(...scheduleOverlapIssues(parsed.value, path, nowMs));
  });
  if (Array.isArray(input.warm)) {
    input.warm.forEach((rule, k) => {
      if (!isRecord(rule) || !Array.isArray(rule.services)) return;
      rule.services.forEach((s, j) => {
        if (typeof s !== "string") return;
        const id = s.includes("/") ? s : `default/${s}`;
        if (!names.has(id)) {
          issues.push({
            path: `warm[${k}].services[${j}]`,
            message: `no service ${JSON.stringify(s)} in services; name one of ${[...names].map((n) => n.replace(/^default\//, "")).join(", ")}`,
          });
        }
      });
    });
  }
  return issues;
}
