import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "@thaw/clock";
import {
  applyRevisionDefaults,
  createProber,
  decodeProbeEnv,
  type Probe,
  queueProxyProbeEnv,
  type Result,
  validateContainer,
} from "@thaw/readiness";
import { nodeTransport } from "@thaw/readiness/node";

// The user's app: ready once it answers /healthz.
const app = createServer((req, res) => {
  res.statusCode = req.url === "/healthz" ? 200 : 404;
  res.end();
});
await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
const port = (app.address() as AddressInfo).port;

// 1. The container as written in YAML. Knative validates the *defaulted* revision (defaulting adds
//    successThreshold and, without a handler, a TCP check), so default first, then validate.
const spec = applyRevisionDefaults({
  containers: [{ ports: [{ containerPort: port }], readinessProbe: { httpGet: { path: "/healthz" } } }],
});
const serving = spec.containers?.[0];
if (!serving) throw new Error("no container");
const problem = validateContainer(serving);
console.log(problem ?? "probe is valid"); // → probe is valid

// 2. What the queue-proxy is given: SERVING_READINESS_PROBE, rewritten to reach the app on 127.0.0.1.
const env = queueProxyProbeEnv({ serving });
if (!env.ok) throw new Error(env.issues.map((i) => `${i.path}: ${i.message}`).join("; "));
const probeEnv = env.value.SERVING_READINESS_PROBE ?? "";
console.log(probeEnv); // → "httpGet":{"path":"/healthz"

// 3. Inside the queue-proxy: an empty or unset variable means "always ready", as in Knative.
const probes: Result<Probe[]> = probeEnv === "" ? { ok: true, value: [] } : decodeProbeEnv(probeEnv, false);
if (!probes.ok) throw new Error(probes.issues.map((i) => `${i.path}: ${i.message}`).join("; "));
const prober = createProber({ probes: probes.value, transport: nodeTransport, clock: systemClock });
console.log(`ready: ${await prober.probe()}`); // → ready: true
app.close();
