import {
  AutoscalerService,
  type PodInfo,
  policyFor,
  type RevisionKey,
  type Scaler,
} from "@thaw/autoscaler-service";
import { ManualClock } from "@thaw/clock/testing";

const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z")); // the service's loops run on this clock

// A scaler is where replicas become real: Kubernetes (KubernetesScaler), a webhook (WebhookScaler), local
// processes (LocalScaler), or your own. This one keeps pods in memory and makes them ready at once.
const pods = new Map<string, PodInfo[]>();
const listeners = new Set<(pods: PodInfo[]) => void>();
const scaler: Scaler = {
  async scale(rev: RevisionKey, desired: number) {
    const list = Array.from({ length: desired }, (_, i) => ({
      name: `${rev.name}-${i}`,
      address: `10.0.0.${i + 1}:8012`,
      ready: true,
      startedAt: clock.now(),
    }));
    pods.set(rev.name, list);
    for (const l of listeners) l(list);
  },
  pods: (rev) => pods.get(rev.name) ?? [],
  subscribe(_rev, onChange) {
    listeners.add(onChange);
    return () => listeners.delete(onChange);
  },
  async close() {},
};

// The policy is thaw.config.yaml's `autoscaler:` and per-service `autoscaling:` blocks, checked as Knative does.
const policy = policyFor({
  global: { "stable-window": "20s" },
  autoscaling: { target: 3 },
  containerConcurrency: 4,
});
if (!policy.ok) throw new Error(policy.issues.map((i) => `${i.path}: ${i.message}`).join("; "));

const service = new AutoscalerService({ scaler, clock, probeActivator: async () => true });
service.on((e) => {
  if (e.type === "scale") console.log(`${e.namespace}/${e.name} ${e.from} -> ${e.to}: ${e.reason}`);
});
const rev = { namespace: "default", name: "hello" };
service.addRevision(rev, policy.value);
service.start();

// A request for the scaled-to-zero revision (the activator's poke): the decider wakes it at once.
service.poke(rev);
await clock.advance(2000); // one decider tick
// → default/hello 0 -> 1
console.log(`ready pods: ${service.status(rev)?.readyPods}`); // → ready pods: 1
await service.stop();
