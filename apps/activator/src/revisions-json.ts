import type { RevisionConfig, RevisionKey } from "./ports.js";

/** One revision served by this activator, with its pods when the endpoint source is static. */
export interface StaticRevision extends RevisionKey, RevisionConfig {
  endpoints: string[];
  /** The revision's private Service `clusterIP:port`, for the d.3 ClusterIP fallback. */
  clusterIP?: string;
}

/** A configuration problem, with the variable, flag or binding it concerns. */
export interface ConfigIssue {
  path: string;
  message: string;
}

/** Knative's defaults for a revision that does not say otherwise. */
export const defaultRevisionConfig: RevisionConfig = {
  containerConcurrency: 0,
  timeoutSeconds: 300,
  responseStartTimeoutSeconds: 0,
  idleTimeoutSeconds: 0,
  maxQueue: 10_000,
  bodyBufferCap: 1024 * 1024,
};

const HOST_PORT = /^[^\s:]+:\d+$/;

const NUMERIC: (keyof RevisionConfig)[] = [
  "containerConcurrency",
  "timeoutSeconds",
  "responseStartTimeoutSeconds",
  "idleTimeoutSeconds",
  "maxQueue",
  "bodyBufferCap",
];

/** `[{namespace, name, endpoints: ["host:port"], clusterIP?: "ip:port", ...RevisionConfig overrides}]` as JSON. */
export function parseRevisions(
  raw: string | undefined,
  path: string,
  issues: ConfigIssue[],
): StaticRevision[] {
  if (raw === undefined || raw.trim() === "") return [];
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (err) {
    issues.push({ path, message: `must be JSON: ${(err as Error).message}` });
    return [];
  }
  if (!Array.isArray(data)) {
    issues.push({ path, message: "must be a JSON array of {namespace, name, endpoints}" });
    return [];
  }
  const out: StaticRevision[] = [];
  data.forEach((item: unknown, i) => {
    const at = `${path}[${i}]`;
    if (typeof item !== "object" || item === null) {
      issues.push({ path: at, message: "must be an object" });
      return;
    }
    const r = item as Record<string, unknown>;
    const before = issues.length;
    for (const f of ["namespace", "name"]) {
      if (typeof r[f] !== "string" || r[f] === "")
        issues.push({ path: `${at}.${f}`, message: "must be a non-empty string" });
    }
    const eps = r.endpoints ?? [];
    if (!Array.isArray(eps) || eps.some((e) => typeof e !== "string" || !HOST_PORT.test(e))) {
      issues.push({ path: `${at}.endpoints`, message: 'must be an array of "host:port" strings' });
    }
    if (r.clusterIP !== undefined && (typeof r.clusterIP !== "string" || !HOST_PORT.test(r.clusterIP))) {
      issues.push({
        path: `${at}.clusterIP`,
        message: 'must be the private Service\'s "clusterIP:port" (e.g. "10.96.0.12:80")',
      });
    }
    const rev: StaticRevision = {
      namespace: r.namespace as string,
      name: r.name as string,
      endpoints: Array.isArray(eps) ? (eps as string[]) : [],
      ...(typeof r.clusterIP === "string" ? { clusterIP: r.clusterIP } : {}),
      ...defaultRevisionConfig,
    };
    for (const f of NUMERIC) {
      if (r[f] === undefined) continue;
      const v = r[f];
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
        issues.push({ path: `${at}.${f}`, message: "must be a number >= 0" });
      } else rev[f] = v;
    }
    if (rev.timeoutSeconds <= 0) issues.push({ path: `${at}.timeoutSeconds`, message: "must be > 0" });
    if (issues.length === before) out.push(rev);
  });
  return out;
}
