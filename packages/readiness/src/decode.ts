import { parseProbeList } from "./parse.js";
import { fromJson } from "./parse-helpers.js";
import type { Issue, Probe, Result } from "./types.js";

/**
 * Decodes `SERVING_READINESS_PROBE` as the queue-proxy does at startup: one JSON object, or a JSON array
 * when `ENABLE_MULTI_CONTAINER_PROBES` is on. Unknown keys are ignored, as Go's decoder ignores them. A bad
 * value is an issue; the queue-proxy should refuse to start on it.
 */
export function decodeProbeEnv(env: string, multiContainer: boolean): Result<Probe[]> {
  // fromJson also marks numbers written with a fraction or exponent, which Go refuses for integer fields.
  const issues: Issue[] = [];
  const raw = fromJson(env, "SERVING_READINESS_PROBE", issues);
  if (issues.length > 0) return { ok: false, issues };
  if (multiContainer && !Array.isArray(raw)) {
    return {
      ok: false,
      issues: [
        {
          path: "SERVING_READINESS_PROBE",
          message: "expected a JSON array of probes (multi-container probing is on)",
        },
      ],
    };
  }
  if (!multiContainer && (typeof raw !== "object" || raw === null || Array.isArray(raw))) {
    return {
      ok: false,
      issues: [{ path: "SERVING_READINESS_PROBE", message: "expected a JSON object (one probe)" }],
    };
  }
  return parseProbeList(raw, { path: "SERVING_READINESS_PROBE", unknownFields: "ignore" });
}
