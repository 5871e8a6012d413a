import { readFileSync } from "node:fs";
import type { RevisionConfig, RevisionKey } from "../ports.js";

/** One revision served by this activator, with its pods when the endpoint source is static. */
export interface StaticRevision extends RevisionKey, RevisionConfig {
  endpoints: string[];
}

/** The Node activator's configuration, read once at start. */
export interface ActivatorConfig {
  host: string;
  port: number;
  /** Bearer token for /v1/*; undefined = open. */
  token: string | undefined;
  /** `ws://` or `http(s)://` base of the autoscaler's stat endpoint; undefined = stats are dropped. */
  autoscalerUrl: string | undefined;
  /** Name of this activator in stat messages. */
  podName: string;
  /** Time between SIGTERM (probe starts failing) and closing the listener. */
  drainDelayMs: number;
  /** Path of Prometheus metrics on the activator port. */
  metricsPath: string;
  revisions: StaticRevision[];
}

/** A configuration problem, with the variable or flag it concerns. */
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

const FLAGS: Record<string, string> = {
  "--host": "THAW_ACTIVATOR_HOST",
  "--port": "THAW_ACTIVATOR_PORT",
  "--token": "THAW_ACTIVATOR_TOKEN",
  "--autoscaler": "THAW_AUTOSCALER_URL",
  "--pod-name": "THAW_POD_NAME",
  "--drain-delay-ms": "THAW_DRAIN_DELAY_MS",
  "--revisions": "THAW_REVISIONS",
  "--revisions-file": "THAW_REVISIONS_FILE",
};

/**
 * Reads flags (`--port 8012`, `--port=8012`) over environment variables into a checked configuration;
 * every problem is reported with the variable it came from.
 */
export function readConfig(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): { ok: true; config: ActivatorConfig } | { ok: false; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const vals: Record<string, string | undefined> = { ...env };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.includes("=") ? (arg.split(/=(.*)/s, 2) as [string, string]) : [arg, undefined];
    const name = FLAGS[flag];
    if (!name) {
      issues.push({ path: flag, message: `unknown flag; known: ${Object.keys(FLAGS).join(", ")}` });
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) issues.push({ path: flag, message: "needs a value" });
    else vals[name] = value;
  }
  const int = (name: string, dflt: number, min: number, max: number): number => {
    const raw = vals[name];
    if (raw === undefined || raw === "") return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      issues.push({ path: name, message: `must be an integer from ${min} to ${max}, got "${raw}"` });
      return dflt;
    }
    return n;
  };
  const autoscalerUrl = vals.THAW_AUTOSCALER_URL || undefined;
  if (autoscalerUrl && !/^(wss?|https?):\/\//.test(autoscalerUrl)) {
    issues.push({ path: "THAW_AUTOSCALER_URL", message: "must start with ws://, wss://, http:// or https://" });
  }
  let rawRevisions = vals.THAW_REVISIONS;
  let revisionsPath = "THAW_REVISIONS";
  if (vals.THAW_REVISIONS_FILE) {
    revisionsPath = "THAW_REVISIONS_FILE";
    try {
      rawRevisions = readFileSync(vals.THAW_REVISIONS_FILE, "utf8");
    } catch (err) {
      issues.push({ path: revisionsPath, message: `cannot read: ${(err as Error).message}` });
    }
  }
  const revisions = parseRevisions(rawRevisions, revisionsPath, issues);
  const config: ActivatorConfig = {
    host: vals.THAW_ACTIVATOR_HOST || "0.0.0.0",
    port: int("THAW_ACTIVATOR_PORT", 8012, 0, 65_535),
    token: vals.THAW_ACTIVATOR_TOKEN || undefined,
    autoscalerUrl,
    podName: vals.THAW_POD_NAME || vals.HOSTNAME || "thaw-activator",
    drainDelayMs: int("THAW_DRAIN_DELAY_MS", 45_000, 0, 3_600_000),
    metricsPath: "/metrics",
    revisions,
  };
  return issues.length > 0 ? { ok: false, issues } : { ok: true, config };
}

const NUMERIC: (keyof RevisionConfig)[] = [
  "containerConcurrency",
  "timeoutSeconds",
  "responseStartTimeoutSeconds",
  "idleTimeoutSeconds",
  "maxQueue",
  "bodyBufferCap",
];

/** `[{namespace, name, endpoints: ["host:port"], ...RevisionConfig overrides}]` as JSON. */
export function parseRevisions(raw: string | undefined, path: string, issues: ConfigIssue[]): StaticRevision[] {
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
      if (typeof r[f] !== "string" || r[f] === "") issues.push({ path: `${at}.${f}`, message: "must be a non-empty string" });
    }
    const eps = r.endpoints ?? [];
    if (!Array.isArray(eps) || eps.some((e) => typeof e !== "string" || !/^[^\s:]+:\d+$/.test(e))) {
      issues.push({ path: `${at}.endpoints`, message: 'must be an array of "host:port" strings' });
    }
    const rev: StaticRevision = {
      namespace: r.namespace as string,
      name: r.name as string,
      endpoints: Array.isArray(eps) ? (eps as string[]) : [],
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
