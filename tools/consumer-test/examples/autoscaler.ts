import {
  applyScale,
  Decider,
  deciderSpecFor,
  MetricCollector,
  metricSpecFor,
  parseAnnotations,
  parseAutoscalerConfig,
  type ScaleState,
  scaleSettingsFor,
  sksModeFor,
} from "@thaw/autoscaler";

// Knative's config-autoscaler ConfigMap and one revision's annotations, as strings (as Kubernetes keeps them).
const cfg = parseAutoscalerConfig({
  "stable-window": "60s",
  "container-concurrency-target-percentage": "70",
});
if (!cfg.ok) throw new Error(cfg.issues.map((i) => `${i.path}: ${i.message}`).join("; "));
const ann = parseAnnotations({ "autoscaling.knative.dev/max-scale": "10" }, cfg.value);
if (ann.issues.length > 0) throw new Error(ann.issues.map((i) => `${i.path}: ${i.message}`).join("; "));

const key = "default/hello-00001";
const facts = { containerConcurrency: 10, annotations: ann.value };
let now = Date.parse("2026-01-01T00:00:00Z"); // every function takes `now` (ms); nothing reads a clock
const collector = new MetricCollector();
collector.createOrUpdate(key, metricSpecFor(cfg.value, facts, "hello-00001-private"), now);
const decider = new Decider(deciderSpecFor(cfg.value, facts), 1, now);
// What the caller keeps per revision between reconciles: one pod, serving.
let state: ScaleState = {
  currentReplicas: 1,
  active: "True",
  activeSinceMs: now,
  scaleTargetInitialized: true,
  reachable: true,
  sksMode: "Serve",
};

// One pod reports 35 requests in flight every second for a minute (a queue-proxy scrape or an activator push).
for (let s = 0; s < 60; s++, now += 1000) {
  collector.recordStat(key, { averageConcurrentRequests: 35, requestCount: 35 }, now);
}

// The 2-second tick: read the windows, decide, apply the scale bounds and scale-to-zero rules.
const reading = collector.readingFor(key, decider.spec.scalingMetric, now);
const result = decider.scale(now, { readyPods: 1, metrics: reading.ok ? reading : null });
const settings = scaleSettingsFor(cfg.value, ann.value);
let step = applyScale({ now, desired: result.desiredPodCount, state, settings });
// Only when scaling to zero does it ask whether the activator answers for the revision first.
if (step.kind === "probeActivator") {
  step = applyScale({ now, desired: result.desiredPodCount, state, settings, activatorProbe: true });
}
if (step.kind !== "decided") throw new Error("unreachable: a probe result was given");

console.log(`desired ${result.desiredPodCount}, panic ${decider.panicking}`); // → desired 5, panic true
console.log(`patch replicas to ${step.patchReplicas}`); // → patch replicas to 5
state = { ...state, currentReplicas: step.patchReplicas ?? state.currentReplicas };
// Too little spare capacity for a burst (target-burst-capacity): the activator stays in the path.
console.log(`traffic via ${sksModeFor(step.scale, result.excessBurstCapacity, state.active)}`); // → traffic via Proxy
