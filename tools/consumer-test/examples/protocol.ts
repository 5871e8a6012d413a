import {
  decodeStat,
  encodeStat,
  errorTextResponse,
  isKubeletProbe,
  resolveRevision,
  revisionKey,
} from "@thaw/protocol";

// Which revision a request is for: Knative's headers first, then the Host.
const req = new Request("http://hello-00001.default.svc.cluster.local/", {
  headers: { "user-agent": "kube-probe/1.31" },
});
const id = resolveRevision(req);
console.log(id ? `${revisionKey(id)} from ${id.source}` : "unknown"); // → default/hello-00001 from host
console.log(`kubelet probe: ${isKubeletProbe(req.headers)}`); // → kubelet probe: true

// The Stat a queue-proxy serves on :9090/metrics, as protobuf bytes and back.
const bytes = encodeStat({
  podName: "hello-00001-abc",
  averageConcurrentRequests: 2.5,
  averageProxiedConcurrentRequests: 0,
  requestCount: 12,
  proxiedRequestCount: 0,
  processUptime: 30,
  timestamp: 0,
});
const stat = decodeStat(bytes);
if (!stat.ok) throw new Error(stat.issue.message);
console.log(`${stat.value.podName}: ${stat.value.averageConcurrentRequests} in flight`); // → hello-00001-abc: 2.5 in flight

// Every failure has a stable code and one HTTP status.
const res = errorTextResponse("ERR_QUEUE_FULL", "pending request queue full");
console.log(res.status, JSON.stringify(await res.text())); // → 503 "pending request queue full\n"
