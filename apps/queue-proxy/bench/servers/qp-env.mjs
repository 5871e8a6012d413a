import { loopbackPodEnv } from "../../dist/loopback-env.js";

// The queue-proxy environment every bench gives its queue-proxies (ours and Knative's): the loopback pod env
// of src/loopback-env.ts for revision "bench-00001".
/**
 * @param {number} userPort the app's port
 * @param {number} port the serving port
 * @param {number} [cc] containerConcurrency (0: unlimited)
 * @param {boolean} [metrics] request metrics on
 */
export const qpEnv = (userPort, port, cc = 0, metrics = false) =>
  loopbackPodEnv(userPort, "bench", {
    CONTAINER_CONCURRENCY: String(cc),
    QUEUE_SERVING_PORT: String(port),
    QUEUE_SERVING_TLS_PORT: "8112",
    SERVING_LOGGING_LEVEL: "info",
    SERVING_REVISION: "bench-00001",
    THAW_REQUEST_METRICS: metrics ? "true" : "false",
  });
