import type { ConfigIssue } from "./parse.js";

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

const HPA = "hpa.autoscaling.knative.dev";

/** An autoscaling value by its short key or its annotation form. */
function knativeKey(block: unknown, key: string): unknown {
  if (!isRecord(block)) return undefined;
  return block[key] ?? block[`autoscaling.knative.dev/${key}`];
}

/**
 * What Knative would accept but Thaw would silently do otherwise, refused with what to use instead:
 * a `run:` service no request can reach, an exec readiness probe where nothing runs it, and the HPA class,
 * which Thaw has no autoscaler for (it would stay at its first pods under any load). Reads the raw input
 * leniently, beside the schema, so these show in the same run as every other issue.
 */
export function silentBehaviourIssues(input: unknown): ConfigIssue[] {
  if (!isRecord(input) || !Array.isArray(input.services)) return [];
  const issues: ConfigIssue[] = [];
  const globalClass = isRecord(input.autoscaler) ? input.autoscaler["pod-autoscaler-class"] : undefined;
  if (globalClass === HPA) {
    issues.push({
      path: "autoscaler.pod-autoscaler-class",
      message: `${HPA} is not supported: Thaw has no HPA (CPU/memory) autoscaler, so services would stay at their first pods under any load; remove it to use kpa.autoscaling.knative.dev (metric concurrency or rps)`,
    });
  }
  input.services.forEach((svc, i) => {
    if (!isRecord(svc)) return;
    const at = `services[${i}]`;
    const empty = (x: unknown) => x === undefined || (Array.isArray(x) && x.length === 0);
    // thaw up's gateway routes `run:` services by host and path only; the others may be reached otherwise.
    if (svc.run !== undefined && empty(svc.hosts) && empty(svc.paths)) {
      issues.push({
        path: `${at}.hosts`,
        message:
          "is empty and so are paths: no request would reach this service (every one gets 404); add hosts, e.g. [hello.localhost], or a path prefix, e.g. paths: [/hello]",
      });
    }
    const klass = knativeKey(svc.autoscaling, "class");
    if (klass === HPA) {
      issues.push({
        path: `${at}.autoscaling.class`,
        message: `${HPA} is not supported: Thaw has no HPA (CPU/memory) autoscaler, so this service would stay at its first pods under any load; remove class to use kpa.autoscaling.knative.dev, with metric: concurrency (default) or rps`,
      });
    }
    const probe = svc.readinessProbe;
    if (svc.run !== undefined && isRecord(probe) && probe.exec !== undefined) {
      issues.push({
        path: `${at}.readinessProbe.exec`,
        message:
          "is not run by thaw up (Knative leaves exec probes to the kubelet, and local pods have none), so the pod would count as ready as soon as it listens; probe the app over HTTP instead, e.g. readinessProbe: { httpGet: { path: /healthz } }, or tcpSocket: {}",
      });
    }
  });
  return issues;
}
