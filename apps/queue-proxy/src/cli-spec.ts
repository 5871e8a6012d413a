/**
 * `thaw-queue-proxy`'s command line: no flags (Knative configures the sidecar by environment only, c.2),
 * so the table is the variables, with their defaults, that `--help` prints.
 */
import type { Command } from "@thaw/command-line";
import { TRACING_ENV_VARS } from "@thaw/protocol/otel";

const required = "required";

/** The table `thaw-queue-proxy` prints with `--help`. */
export const QUEUE_PROXY_CLI: Command = {
  name: "thaw-queue-proxy",
  summary:
    "the pod sidecar: limits concurrent requests to the app, probes its readiness and reports load for the autoscaler; configured by Knative's environment variables",
  usage: "(no flags: set the variables below)",
  flags: [],
  env: [
    {
      name: "CONTAINER_CONCURRENCY",
      default: required,
      help: "requests at once to the app, 0 to 1000 (0 = unlimited)",
    },
    { name: "QUEUE_SERVING_PORT", default: required, help: "port the pod's traffic arrives on" },
    {
      name: "QUEUE_SERVING_TLS_PORT",
      default: required,
      help: "TLS port (started when tls.crt and tls.key exist)",
    },
    { name: "USER_PORT", default: required, help: "the app's port on this host" },
    { name: "REVISION_TIMEOUT_SECONDS", default: required, help: "longest request, whole seconds" },
    {
      name: "REVISION_RESPONSE_START_TIMEOUT_SECONDS",
      default: "0",
      help: "longest wait for the first byte (0 = off)",
    },
    { name: "REVISION_IDLE_TIMEOUT_SECONDS", default: "0", help: "longest gap between bytes (0 = off)" },
    { name: "SERVING_NAMESPACE", default: required, help: "the revision's namespace (may be empty)" },
    { name: "SERVING_CONFIGURATION", default: required, help: "its Configuration (may be empty)" },
    { name: "SERVING_REVISION", default: required, help: "its name (may be empty)" },
    { name: "SERVING_POD", default: required, help: "this pod's name (may be empty)" },
    { name: "SERVING_POD_IP", default: required, help: "this pod's IP (may be empty)" },
    { name: "SERVING_SERVICE", default: '""', help: "the Knative Service" },
    { name: "SERVING_LOGGING_CONFIG", default: required, help: "Knative's logging config (may be empty)" },
    { name: "SERVING_LOGGING_LEVEL", default: required, help: "Knative's logging level (may be empty)" },
    {
      name: "SERVING_READINESS_PROBE",
      default: '""',
      help: "the app's readiness probe as JSON (empty = always ready)",
    },
    { name: "ENABLE_MULTI_CONTAINER_PROBES", default: "false", help: "probe every container" },
    { name: "QUEUE_PROXY_TLS_MIN_VERSION", help: "TLS port's lowest version (Knative's default 1.2)" },
    { name: "QUEUE_PROXY_TLS_MAX_VERSION", help: "TLS port's highest version" },
    { name: "QUEUE_PROXY_TLS_CIPHER_SUITES", help: "TLS port's cipher suites (Go names, comma-separated)" },
    { name: "QUEUE_PROXY_TLS_CURVE_PREFERENCES", help: "TLS port's curves (comma-separated)" },
    { name: "THAW_CERTS_DIR", default: "/var/lib/knative/certs", help: "where tls.crt and tls.key are read" },
    { name: "THAW_ADMIN_PORT", default: "8022", help: "admin port (drain, health)" },
    { name: "THAW_METRICS_PORT", default: "9090", help: "protobuf Stat port for the autoscaler" },
    { name: "THAW_USER_METRICS_PORT", default: "9091", help: "Prometheus request metrics port" },
    { name: "THAW_REQUEST_METRICS", default: "true", help: "Prometheus request metrics on or off" },
    { name: "THAW_REQUEST_LOG", default: "false", help: "one JSON line per request on stdout" },
    { name: "THAW_DRAIN_QUIET_PERIOD_MS", default: "30000", help: "after SIGTERM, how long to keep serving" },
    { name: "THAW_HIJACKED_GRACE_MS", default: "60000", help: "wait for upgraded connections after closing" },
    { name: "THAW_HEADERS_TIMEOUT_MS", default: "60000", help: "longest time to send a request head" },
    {
      name: "THAW_PROBE_CONNECT_RETRY_MS",
      default: "50",
      help: "longest pause between readiness attempts that found nothing listening (0 = off)",
    },
    { name: "THAW_BIND_HOST", default: '"" (every address)', help: "address every port binds" },
    {
      name: "THAW_QUEUE_PROXY_SPARE",
      default: "0",
      help: "1: start ahead of a pod and read its env from stdin",
    },
    ...TRACING_ENV_VARS,
  ],
};
