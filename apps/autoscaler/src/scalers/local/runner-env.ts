/**
 * Variables a queue-proxy runner (pod-env.ts's QueueProxyRunner) reads beside its own: the queue-proxy's
 * environment as one JSON object, and the seconds its drain may take before it is killed. A file of its own,
 * so the runner process loads nothing else to read them.
 */
export const QUEUE_PROXY_RUNNER_ENV = {
  env: "THAW_QUEUE_PROXY_ENV",
  stopTimeout: "THAW_QUEUE_PROXY_STOP_TIMEOUT",
} as const;
