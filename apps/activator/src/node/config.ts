import { readFileSync } from "node:fs";
import { type ConfigIssue, parseRevisions, type StaticRevision } from "../revisions-json.js";

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
  /** Longest wait for in-flight requests and websockets after the listener closed. */
  drainTimeoutMs: number;
  /** Path of Prometheus metrics on the activator port. */
  metricsPath: string;
  revisions: StaticRevision[];
}

export { type ConfigIssue, defaultRevisionConfig, type StaticRevision } from "../revisions-json.js";

const FLAGS: Record<string, string> = {
  "--host": "THAW_ACTIVATOR_HOST",
  "--port": "THAW_ACTIVATOR_PORT",
  "--token": "THAW_ACTIVATOR_TOKEN",
  "--autoscaler": "THAW_AUTOSCALER_URL",
  "--pod-name": "THAW_POD_NAME",
  "--drain-delay-ms": "THAW_DRAIN_DELAY_MS",
  "--drain-timeout-ms": "THAW_DRAIN_TIMEOUT_MS",
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
    const [flag, inline] = arg.includes("=")
      ? (arg.split(/=(.*)/s, 2) as [string, string])
      : [arg, undefined];
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
    issues.push({
      path: "THAW_AUTOSCALER_URL",
      message: "must start with ws://, wss://, http:// or https://",
    });
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
    drainTimeoutMs: int("THAW_DRAIN_TIMEOUT_MS", 555_000, 0, 3_600_000),
    metricsPath: "/metrics",
    revisions,
  };
  return issues.length > 0 ? { ok: false, issues } : { ok: true, config };
}
