// The queue-proxy environment every bench gives its queue-proxies: Knative's required variables for a
// revision "bench", loopback only, admin and metrics ports picked by the OS, a TCP readiness probe on the
// app's port.
/**
 * @param {number} userPort the app's port
 * @param {number} port the serving port
 * @param {number} [cc] containerConcurrency (0: unlimited)
 * @param {boolean} [metrics] request metrics on
 */
export const qpEnv = (userPort, port, cc = 0, metrics = false) => ({
  CONTAINER_CONCURRENCY: String(cc),
  QUEUE_SERVING_PORT: String(port),
  QUEUE_SERVING_TLS_PORT: "8112",
  USER_PORT: String(userPort),
  REVISION_TIMEOUT_SECONDS: "300",
  SERVING_LOGGING_CONFIG: "",
  SERVING_LOGGING_LEVEL: "info",
  SERVING_NAMESPACE: "bench",
  SERVING_CONFIGURATION: "bench",
  SERVING_REVISION: "bench-00001",
  SERVING_POD: "bench-pod",
  SERVING_POD_IP: "127.0.0.1",
  SERVING_READINESS_PROBE: JSON.stringify({
    tcpSocket: { port: userPort, host: "127.0.0.1" },
    successThreshold: 1,
  }),
  THAW_ADMIN_PORT: "0",
  THAW_METRICS_PORT: "0",
  THAW_USER_METRICS_PORT: "0",
  THAW_BIND_HOST: "127.0.0.1",
  THAW_REQUEST_METRICS: metrics ? "true" : "false",
});
