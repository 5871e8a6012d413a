/**
 * The rendered Deployment has the queue-proxy Knative's reconciler writes, Pod Security `restricted`
 * everywhere, and the platform's grace, probes and accounts.
 */
import { describe, expect, it } from "vitest";
import { allObjects, exampleFiles, type Obj } from "./k8s/fixtures.js";

describe("the Deployment's queue-proxy matches Knative's reconciler", () => {
  const objs = allObjects(exampleFiles());
  const dep = objs.find((o) => o.kind === "Deployment" && o.metadata.name === "hello") as Obj;
  const pod = (dep.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec;
  const qp = pod.containers[1] as {
    env: { name: string; value?: string; valueFrom?: unknown }[];
    ports: { containerPort: number }[];
    readinessProbe: unknown;
  };

  it("sets every variable of knative-spec.md c.2 that the reconciler writes", () => {
    const names = qp.env.map((e) => e.name);
    for (const n of [
      "SERVING_NAMESPACE",
      "SERVING_SERVICE",
      "SERVING_CONFIGURATION",
      "SERVING_REVISION",
      "QUEUE_SERVING_PORT",
      "QUEUE_SERVING_TLS_PORT",
      "CONTAINER_CONCURRENCY",
      "REVISION_TIMEOUT_SECONDS",
      "REVISION_RESPONSE_START_TIMEOUT_SECONDS",
      "REVISION_IDLE_TIMEOUT_SECONDS",
      "SERVING_POD",
      "SERVING_POD_IP",
      "SERVING_LOGGING_CONFIG",
      "SERVING_LOGGING_LEVEL",
      "SERVING_REQUEST_LOG_TEMPLATE",
      "USER_PORT",
      "SYSTEM_NAMESPACE",
      "METRICS_DOMAIN",
      "SERVING_READINESS_PROBE",
      "ENABLE_PROFILING",
      "ENABLE_MULTI_CONTAINER_PROBES",
      "HOST_IP",
    ]) {
      expect(names, n).toContain(n);
    }
    expect(qp.env.find((e) => e.name === "SERVING_POD")?.valueFrom).toEqual({
      fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" },
    });
    expect(qp.env.find((e) => e.name === "SERVING_POD_IP")?.valueFrom).toEqual({
      fieldRef: { apiVersion: "v1", fieldPath: "status.podIP" },
    });
  });

  it("declares 8012, 8022, 9090, 9091 and 8112, and kubelet probes 8012 with K-Network-Probe: queue", () => {
    expect(qp.ports.map((p) => p.containerPort).sort()).toEqual([8012, 8022, 8112, 9090, 9091]);
    expect(qp.readinessProbe).toEqual({
      httpGet: { port: 8012, httpHeaders: [{ name: "K-Network-Probe", value: "queue" }] },
      // The example's probe has no periodSeconds (aggressive): only the non-zero timing is copied (b.3).
      successThreshold: 1,
    });
  });

  it("every container and pod is Pod Security restricted", () => {
    for (const o of objs.filter((x) => x.kind === "Deployment")) {
      const s = (
        o.spec as {
          template: {
            spec: {
              securityContext: Record<string, unknown>;
              containers: { securityContext: Record<string, unknown> }[];
            };
          };
        }
      ).template.spec;
      expect(s.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
      });
      for (const c of s.containers) {
        expect(c.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
          runAsNonRoot: true,
          seccompProfile: { type: "RuntimeDefault" },
        });
      }
    }
  });

  it("the activator has Knative's 600 s grace; every platform pod has probes, resources and its own account", () => {
    const platform = objs.filter((o) => o.kind === "Deployment" && o.metadata.name.startsWith("thaw-"));
    expect(platform.map((p) => p.metadata.name).sort()).toEqual([
      "thaw-activator",
      "thaw-autoscaler",
      "thaw-ingress-hook",
    ]);
    for (const p of platform) {
      const s = (
        p.spec as { template: { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } } }
      ).template.spec;
      expect(s.serviceAccountName).toBe(p.metadata.name);
      const c = s.containers[0] as Record<string, unknown>;
      expect(c.readinessProbe).toBeDefined();
      expect(c.livenessProbe).toBeDefined();
      expect(c.resources).toMatchObject({ requests: {}, limits: {} });
      if (p.metadata.name === "thaw-activator") expect(s.terminationGracePeriodSeconds).toBe(600);
    }
    expect(JSON.stringify(objs)).not.toMatch(/change-me|"token":/);
  });
});
