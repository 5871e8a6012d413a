import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "@thaw/clock";
import { formatIssues, parseConfig, startQueueProxy } from "@thaw/queue-proxy";

// The user container: any HTTP server on 127.0.0.1.
const app = createServer((_req, res) => res.end("hello from the app"));
await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));

// Knative's environment for the sidecar (as its reconciler sets it); every port 0 picks a free one.
const parsed = parseConfig({
  USER_PORT: String((app.address() as AddressInfo).port),
  QUEUE_SERVING_PORT: "0",
  QUEUE_SERVING_TLS_PORT: "0",
  THAW_ADMIN_PORT: "0",
  THAW_METRICS_PORT: "0",
  THAW_USER_METRICS_PORT: "0",
  THAW_BIND_HOST: "127.0.0.1",
  CONTAINER_CONCURRENCY: "4",
  REVISION_TIMEOUT_SECONDS: "300",
  SERVING_LOGGING_CONFIG: "",
  SERVING_LOGGING_LEVEL: "",
  SERVING_NAMESPACE: "default",
  SERVING_CONFIGURATION: "hello",
  SERVING_REVISION: "hello-00001",
  SERVING_POD: "hello-00001-deployment-abc",
  SERVING_POD_IP: "127.0.0.1",
});
if (!parsed.ok) throw new Error(formatIssues(parsed.issues));
// No SERVING_READINESS_PROBE: always ready, as in Knative (the bin wires @thaw/readiness otherwise).
const qp = await startQueueProxy(parsed.value, { clock: systemClock, prober: () => true, requestLog: null });

const base = `http://127.0.0.1:${qp.ports.serving}`;
console.log(await (await fetch(`${base}/`)).text()); // → hello from the app
// The kubelet's readiness probe, as Knative rewrites it for the sidecar.
const probe = await fetch(`${base}/`, {
  headers: { "user-agent": "kube-probe/1.31", "k-network-probe": "queue" },
});
console.log(probe.status, await probe.text()); // → 200 queue
const stat = await fetch(`http://127.0.0.1:${qp.ports.metrics}/metrics`);
console.log(stat.headers.get("content-type")); // → application/protobuf

await qp.close();
app.close();
