import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { defaultRevisionConfig, readConfig, startActivator } from "@thaw/activator/node";

// A pod. Behind thaw-queue-proxy it would answer the activator's probe (K-Network-Probe: queue) itself;
// this stand-in answers it directly.
const pod = createServer((req, res) => {
  res.end(req.headers["k-network-probe"] === "queue" ? "queue" : `hello from the pod (${req.url})`);
});
await new Promise<void>((resolve) => pod.listen(0, "127.0.0.1", resolve));
const podAddress = `127.0.0.1:${(pod.address() as AddressInfo).port}`;

// The same configuration `thaw-activator` reads from flags and THAW_* variables, checked the same way.
const revisions = [
  { ...defaultRevisionConfig, namespace: "default", name: "hello-00001", endpoints: [podAddress] },
];
const parsed = readConfig(["--host", "127.0.0.1", "--port", "0"], {
  THAW_REVISIONS: JSON.stringify(revisions),
});
if (!parsed.ok) throw new Error(parsed.issues.map((i) => `${i.path}: ${i.message}`).join("; "));
const activator = await startActivator(parsed.config);

// A request for the revision (Knative's routing headers name it), forwarded once the pod answers its probe.
const res = await fetch(`http://127.0.0.1:${activator.port}/greet`, {
  headers: { "knative-serving-namespace": "default", "knative-serving-revision": "hello-00001" },
});
console.log(res.status, await res.text()); // → 200 hello from the pod (/greet)

await activator.close();
pod.close();
