/**
 * @thaw/queue-proxy: a Knative-compatible queue-proxy on Node. The bin (`thaw-queue-proxy`) is the usual
 * entry; these exports let tests and the CLI embed it.
 */
export {
  DEFAULT_CERTS_DIR,
  type EnvIssue,
  formatIssues,
  parseConfig,
  type QueueProxyConfig,
} from "./config.js";
export {
  type DialPolicy,
  DialTimeoutError,
  dialTimeoutFor,
  dialWithRetry,
  KNATIVE_DIAL_POLICY,
} from "./dial.js";
export {
  H1ResponseParser,
  MAX_HEAD_BYTES,
  type ResponseEvents,
  UpstreamProtocolError,
} from "./h1-response-parser.js";
export {
  H1Upstream,
  type H1UpstreamOptions,
  IDLE_KEEP_MS,
  poolSizeFor,
  type UpstreamRequest,
} from "./h1-upstream.js";
export type { UpstreamSink } from "./ports.js";
export {
  type QueueProxyDeps,
  REPORTING_PERIOD_MS,
  type RunningQueueProxy,
  startQueueProxy,
} from "./queue-proxy.js";
export { type RequestHead, scanRequestHead } from "./request-head.js";
export { DURATION_BUCKETS_SECONDS, RequestMetrics } from "./request-metrics.js";
export { deadlineOf, type TimeoutPolicy, TimeoutSweeper } from "./timeouts.js";
export { CERT_RELOAD_PERIOD_MS, type CertFiles, certFilesIn, loadCertPair } from "./tls-port.js";
export { GO_CIPHER_SUITES, GO_CURVES, type TlsSettings, type TlsVersion } from "./tls-settings.js";
