import { readFileSync } from "node:fs";
import type { BodyBudgetLimits } from "@thaw/activation";
import { parseCommandLine, withFlagsOverEnv } from "@thaw/command-line";
import { type ConfigIssue, parseRevisions, type StaticRevision } from "../revisions-json.js";
import { ACTIVATOR_CLI, DEFAULT_HOST } from "./cli-spec.js";

/** The Node activator's configuration, read once at start. */
export interface ActivatorConfig {
  host: string;
  port: number;
  /** Bearer token for /v1/*; undefined = open. */
  token: string | undefined;
  /** `--insecure-no-token`: a non-loopback host without a token is allowed (else the bin refuses it). */
  insecureNoToken?: boolean;
  /** `ws://` or `http(s)://` base of the autoscaler's stat endpoint; undefined = stats are dropped. */
  autoscalerUrl: string | undefined;
  /** Name of this activator in stat messages. */
  podName: string;
  /** Time between SIGTERM (probe starts failing) and closing the listener. */
  drainDelayMs: number;
  /** Longest wait for in-flight requests and websockets after the listener closed. */
  drainTimeoutMs: number;
  /** A websocket (upgrade) tunnel with no byte either way for this long is closed. */
  tunnelIdleMs: number;
  /** Path of Prometheus metrics on the activator port. */
  metricsPath: string;
  /**
   * Longest time a client may take to send a request head (slowloris), and to start one on an idle
   * keep-alive connection when shorter than the 65 s idle limit; default 60 s for heads, Knative's.
   */
  headersTimeoutMs?: number;
  /**
   * Passthrough load balancing (knative-spec d.1, d.3; Knative's network-wide flag): requests and probes to
   * pods carry `Host: <rev>-private.<ns>` and `K-Passthrough-Lb: true`, and the ClusterIP fallback is off.
   */
  passthroughLb?: boolean;
  revisions: StaticRevision[];
  /** The bounds of all bodies kept for a replay, those set by flag or variable (BodyBudget's defaults else). */
  bodyBudget?: Partial<BodyBudgetLimits>;
  /** thaw.config.yaml to read revisions (and, for `kubernetes:` services, their Services) from. */
  configFile?: string | undefined;
  /** Where this activator runs in a cluster (downward API) and the Services it follows. */
  cluster?: ClusterConfig;
}

/** A Service in the activator's namespace and, optionally, the name of its port. */
export interface ServicePort {
  service: string;
  portName: string | undefined;
}

/** The cluster side of the configuration. */
export interface ClusterConfig {
  /** Namespace of the activator's own and the autoscaler's Services (POD_NAMESPACE). */
  namespace: string;
  /** This pod's IP (POD_IP): its place among the activator replicas. */
  podIp: string | undefined;
  /** The activators' own Service: its EndpointSlices list the replicas that share each revision's capacity. */
  activatorService: ServicePort | undefined;
  /** The autoscaler's Service: stats go to every pod its EndpointSlices list. */
  autoscalerService: ServicePort | undefined;
}

export { type ConfigIssue, defaultRevisionConfig, type StaticRevision } from "../revisions-json.js";

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const PORT_NAME = /^(?=.*[a-z])[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?$/;

/**
 * Reads flags (`--port 8012`, `--port=8012`) over environment variables into a checked configuration;
 * every problem is reported with the variable it came from.
 */
export function readConfig(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): { ok: true; config: ActivatorConfig } | { ok: false; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const parsed = parseCommandLine(ACTIVATOR_CLI, argv);
  if (parsed.kind !== "ok") {
    const message = parsed.kind === "error" ? parsed.message : `--${parsed.kind} is answered by the bin`;
    return {
      ok: false,
      issues: [{ path: message.split(" ").find((w) => w.startsWith("-")) ?? "argv", message }],
    };
  }
  const vals = withFlagsOverEnv(ACTIVATOR_CLI, parsed.flags, env);
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
  const bool = (name: string): boolean => {
    const raw = vals[name];
    if (raw === undefined || raw === "" || raw === "false") return false;
    if (raw === "true") return true;
    issues.push({ path: name, message: `must be "true" or "false", got "${raw}"` });
    return false;
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
  const configFile = vals.THAW_CONFIG || undefined;
  if (configFile && (vals.THAW_REVISIONS || vals.THAW_REVISIONS_FILE)) {
    issues.push({
      path: "THAW_CONFIG",
      message:
        "takes the revisions from thaw.config.yaml; leave THAW_REVISIONS and THAW_REVISIONS_FILE unset",
    });
  }
  const servicePort = (name: string): ServicePort | undefined => {
    const raw = vals[name];
    if (!raw) return undefined;
    const [service = "", portName] = raw.split(":", 2);
    if (!DNS_LABEL.test(service) || (portName !== undefined && !PORT_NAME.test(portName))) {
      issues.push({
        path: name,
        message: `must be a Service name, optionally with a port name (thaw-autoscaler:http), got "${raw}"`,
      });
      return undefined;
    }
    return { service, portName };
  };
  const namespace = vals.POD_NAMESPACE || "default";
  if (!DNS_LABEL.test(namespace))
    issues.push({ path: "POD_NAMESPACE", message: `must be a namespace name, got "${namespace}"` });
  const cluster: ClusterConfig = {
    namespace,
    podIp: vals.POD_IP || undefined,
    activatorService: servicePort("THAW_ACTIVATOR_SERVICE"),
    autoscalerService: servicePort("THAW_AUTOSCALER_SERVICE"),
  };
  if (cluster.activatorService && !cluster.podIp) {
    issues.push({
      path: "POD_IP",
      message:
        "is needed with THAW_ACTIVATOR_SERVICE (this replica's place among the activators); set it from status.podIP",
    });
  }
  if (cluster.autoscalerService && autoscalerUrl) {
    issues.push({ path: "THAW_AUTOSCALER_SERVICE", message: "replaces THAW_AUTOSCALER_URL; set only one" });
  }
  const bodyBudget: Partial<BodyBudgetLimits> = {};
  const bytes = (name: string) => (vals[name] ? int(name, 0, 0, 2 ** 40) : undefined);
  const revisionBytes = bytes("THAW_BODY_BUFFER_REVISION_BYTES");
  const processBytes = bytes("THAW_BODY_BUFFER_PROCESS_BYTES");
  if (revisionBytes !== undefined) bodyBudget.revisionBytes = revisionBytes;
  if (processBytes !== undefined) bodyBudget.processBytes = processBytes;
  const config: ActivatorConfig = {
    host: vals.THAW_ACTIVATOR_HOST || DEFAULT_HOST,
    port: int("THAW_ACTIVATOR_PORT", 8012, 0, 65_535),
    token: vals.THAW_ACTIVATOR_TOKEN || undefined,
    insecureNoToken: bool("THAW_INSECURE_NO_TOKEN"),
    autoscalerUrl,
    podName: vals.THAW_POD_NAME || vals.POD_NAME || vals.HOSTNAME || "thaw-activator",
    drainDelayMs: int("THAW_DRAIN_DELAY_MS", 45_000, 0, 3_600_000),
    drainTimeoutMs: int("THAW_DRAIN_TIMEOUT_MS", 555_000, 0, 3_600_000),
    tunnelIdleMs: int("THAW_TUNNEL_IDLE_MS", 300_000, 1000, 86_400_000),
    metricsPath: "/metrics",
    ...(vals.THAW_HEADERS_TIMEOUT_MS
      ? { headersTimeoutMs: int("THAW_HEADERS_TIMEOUT_MS", 60_000, 100, 3_600_000) }
      : {}),
    passthroughLb: bool("THAW_PASSTHROUGH_LB"),
    revisions,
    bodyBudget,
    configFile,
    cluster,
  };
  return issues.length > 0 ? { ok: false, issues } : { ok: true, config };
}

/** Whether `host` only binds this machine (127.0.0.0/8, ::1, localhost). */
function isLoopback(host: string): boolean {
  return /^127\.\d+\.\d+\.\d+$/.test(host) || host === "::1" || host === "localhost";
}

/**
 * Why the activator must not start as configured: listening beyond loopback with no token makes its
 * /v1/activate and /metrics open to anyone who reaches it, unless `--insecure-no-token` says that is meant.
 */
export function openBindError(config: ActivatorConfig): string | undefined {
  if (config.token || config.insecureNoToken || isLoopback(config.host)) return undefined;
  return (
    `--host ${config.host} listens beyond this machine with no token: set --token (THAW_ACTIVATOR_TOKEN, or ` +
    "the config's token), or pass --insecure-no-token (THAW_INSECURE_NO_TOKEN=true) if every client that can reach it is trusted"
  );
}
