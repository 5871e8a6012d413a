/**
 * @thaw/queue-proxy: a Knative-compatible queue-proxy on Node. The bin (`thaw-queue-proxy`) is the usual
 * entry; these exports let tests and the CLI embed it.
 */
export { type EnvIssue, formatIssues, parseConfig, type QueueProxyConfig } from "./config.js";
export {
  type DialPolicy,
  DialTimeoutError,
  dialTimeoutFor,
  dialWithRetry,
  KNATIVE_DIAL_POLICY,
} from "./dial.js";
export {
  type QueueProxyDeps,
  REPORTING_PERIOD_MS,
  type RunningQueueProxy,
  startQueueProxy,
} from "./queue-proxy.js";
export { DURATION_BUCKETS_SECONDS, RequestMetrics } from "./request-metrics.js";
export { deadlineOf, type TimeoutPolicy, TimeoutSweeper } from "./timeouts.js";
export { poolSizeFor } from "./upstream.js";
