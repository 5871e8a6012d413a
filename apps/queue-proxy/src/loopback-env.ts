/**
 * The pod environment of a queue-proxy that serves only on loopback, in front of an app on `userPort`:
 * Knative's required variables for revision `revision`, the admin and metrics ports picked by the OS, and a
 * TCP readiness probe on the app's port. `overrides` replace or add variables. Used by the spare's
 * warm-up and by the benchmarks.
 */
export function loopbackPodEnv(
  userPort: number,
  revision: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    CONTAINER_CONCURRENCY: "0",
    QUEUE_SERVING_PORT: "0",
    QUEUE_SERVING_TLS_PORT: "0",
    USER_PORT: String(userPort),
    REVISION_TIMEOUT_SECONDS: "300",
    SERVING_LOGGING_CONFIG: "",
    SERVING_LOGGING_LEVEL: "",
    SERVING_NAMESPACE: revision,
    SERVING_CONFIGURATION: revision,
    SERVING_REVISION: revision,
    SERVING_POD: `${revision}-pod`,
    SERVING_POD_IP: "127.0.0.1",
    SERVING_READINESS_PROBE: JSON.stringify({
      tcpSocket: { port: userPort, host: "127.0.0.1" },
      successThreshold: 1,
    }),
    THAW_ADMIN_PORT: "0",
    THAW_METRICS_PORT: "0",
    THAW_USER_METRICS_PORT: "0",
    THAW_BIND_HOST: "127.0.0.1",
    ...overrides,
  };
}
