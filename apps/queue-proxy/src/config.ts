import { parseTlsSettings, type TlsSettings } from "./tls-settings.js";

/** One problem with the environment: the variable and what it should look like. */
export interface EnvIssue {
  variable: string;
  message: string;
}

/** Everything the queue-proxy reads from its environment, validated once at start-up (c.2). */
export interface QueueProxyConfig {
  containerConcurrency: number;
  servingPort: number;
  /** The TLS serving port, started only when `tls.crt` and `tls.key` exist in `certsDir`. */
  servingTlsPort: number;
  /** Where the TLS port's `tls.crt` and `tls.key` are read (Knative's mount; `THAW_CERTS_DIR`). */
  certsDir: string;
  /** The TLS port's versions, ciphers and curves (`QUEUE_PROXY_TLS_*`). */
  tls: TlsSettings;
  userPort: number;
  /**
   * The user container port's name (`THAW_USER_PORT_NAME`): `h2c` makes HTTP/2 requests reach the app as
   * h2c, as Knative's port name `h2c` does; anything else (the default) sends every request as HTTP/1.1.
   */
  userPortName: string;
  revisionTimeoutSeconds: number;
  /** Longest time to read a request head, and to wait for a new connection's first byte (Go's ReadHeaderTimeout). */
  headersTimeoutMs: number;
  responseStartTimeoutSeconds: number;
  idleTimeoutSeconds: number;
  namespace: string;
  configuration: string;
  revision: string;
  pod: string;
  podIp: string;
  service: string;
  loggingConfig: string;
  loggingLevel: string;
  /** Raw `SERVING_READINESS_PROBE` ("" = always ready). */
  readinessProbe: string;
  multiContainerProbes: boolean;
  /** Thaw's own knobs (documented in the README), for tests and benchmarks. */
  adminPort: number;
  metricsPort: number;
  /** 0 = Prometheus request metrics off. */
  userMetricsPort: number;
  requestMetrics: boolean;
  requestLog: boolean;
  drainQuietPeriodMs: number;
  /** How long to wait for upgraded connections after the servers closed. */
  hijackedGraceMs: number;
  /** A websocket (upgrade) tunnel with no byte either way for this long is closed, both sides. */
  tunnelIdleMs: number;
  /** Longest pause between aggressive readiness attempts that found nothing listening (0 = Knative's 50 ms). */
  probeConnectRetryMaxMs: number;
  bindHost: string;
}

type Env = Record<string, string | undefined>;

/** Where Knative mounts the queue-proxy's certificate (c.1). */
export const DEFAULT_CERTS_DIR = "/var/lib/knative/certs";

/** Reads env into a config, or every issue found (all variables are checked before giving up). */
export function parseConfig(
  env: Env,
): { ok: true; value: QueueProxyConfig } | { ok: false; issues: EnvIssue[] } {
  const issues: EnvIssue[] = [];
  const int = (name: string, min: number, max: number, fallback?: number, form?: string): number => {
    const raw = env[name];
    if (raw === undefined || raw === "") {
      if (fallback !== undefined) return fallback;
      issues.push({
        variable: name,
        message: `is required: expected ${form ?? `an integer in [${min}, ${max}]`}`,
      });
      return 0;
    }
    const n = /^[+-]?\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      issues.push({
        variable: name,
        message: `is ${JSON.stringify(raw)}: expected ${form ?? `an integer in [${min}, ${max}]`}`,
      });
      return 0;
    }
    return n;
  };
  const port = (name: string, fallback?: number) =>
    int(name, 0, 65535, fallback, "a TCP port number (0-65535)");
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    if (/^(1|t|true|on|yes)$/i.test(raw)) return true;
    if (/^(0|f|false|off|no)$/i.test(raw)) return false;
    issues.push({ variable: name, message: `is ${JSON.stringify(raw)}: expected true or false` });
    return fallback;
  };
  const present = (name: string): string => {
    const raw = env[name];
    if (raw === undefined) issues.push({ variable: name, message: "is required (it may be empty)" });
    return raw ?? "";
  };

  const value: QueueProxyConfig = {
    containerConcurrency: int(
      "CONTAINER_CONCURRENCY",
      0,
      1000,
      undefined,
      "an integer in [0, 1000] (0 = unlimited)",
    ),
    servingPort: port("QUEUE_SERVING_PORT"),
    servingTlsPort: port("QUEUE_SERVING_TLS_PORT"),
    certsDir: env["THAW_CERTS_DIR"] || DEFAULT_CERTS_DIR,
    tls: parseTlsSettings(env, issues),
    userPort: int("USER_PORT", 1, 65535, undefined, "the user container's TCP port (1-65535)"),
    revisionTimeoutSeconds: int(
      "REVISION_TIMEOUT_SECONDS",
      0,
      2_147_483_647,
      undefined,
      "whole seconds >= 0",
    ),
    responseStartTimeoutSeconds: int(
      "REVISION_RESPONSE_START_TIMEOUT_SECONDS",
      0,
      2_147_483_647,
      0,
      "whole seconds >= 0",
    ),
    idleTimeoutSeconds: int(
      "REVISION_IDLE_TIMEOUT_SECONDS",
      0,
      2_147_483_647,
      0,
      "whole seconds >= 0 (0 = off)",
    ),
    loggingConfig: present("SERVING_LOGGING_CONFIG"),
    loggingLevel: present("SERVING_LOGGING_LEVEL"),
    namespace: present("SERVING_NAMESPACE"),
    configuration: present("SERVING_CONFIGURATION"),
    revision: present("SERVING_REVISION"),
    pod: present("SERVING_POD"),
    podIp: present("SERVING_POD_IP"),
    service: env["SERVING_SERVICE"] ?? "",
    readinessProbe: env["SERVING_READINESS_PROBE"] ?? "",
    multiContainerProbes: bool("ENABLE_MULTI_CONTAINER_PROBES", false),
    adminPort: port("THAW_ADMIN_PORT", 8022),
    metricsPort: port("THAW_METRICS_PORT", 9090),
    userMetricsPort: port("THAW_USER_METRICS_PORT", 9091),
    requestMetrics: bool("THAW_REQUEST_METRICS", true),
    requestLog: bool("THAW_REQUEST_LOG", false),
    drainQuietPeriodMs: int("THAW_DRAIN_QUIET_PERIOD_MS", 0, 3_600_000, 30_000, "milliseconds (0-3600000)"),
    hijackedGraceMs: int("THAW_HIJACKED_GRACE_MS", 0, 3_600_000, 60_000, "milliseconds (0-3600000)"),
    tunnelIdleMs: int("THAW_TUNNEL_IDLE_MS", 1000, 86_400_000, 300_000, "milliseconds (1000-86400000)"),
    headersTimeoutMs: int("THAW_HEADERS_TIMEOUT_MS", 100, 3_600_000, 60_000, "milliseconds (100-3600000)"),
    probeConnectRetryMaxMs: int("THAW_PROBE_CONNECT_RETRY_MS", 0, 50, 50, "milliseconds (0-50, 0 = off)"),
    bindHost: env["THAW_BIND_HOST"] ?? "",
    userPortName: env["THAW_USER_PORT_NAME"] ?? "",
  };
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}

/** The start-up error text: one line per issue, each naming its variable. */
export function formatIssues(issues: readonly EnvIssue[]): string {
  return [
    `thaw-queue-proxy: invalid environment (${issues.length} problem${issues.length === 1 ? "" : "s"}):`,
    ...issues.map((i) => `  ${i.variable} ${i.message}`),
  ].join("\n");
}
