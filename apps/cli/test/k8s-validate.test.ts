/**
 * Every rendered object (overlays after `kubectl kustomize`, and a matrix of configs) passes kubernetes-models'
 * schemas and a strict unknown-field check. Schema validation only: no API server runs here.
 */
import { join } from "node:path";
import { encodeProbe, rewriteForQueueProxy } from "@thaw/readiness";
import { describe, expect, it } from "vitest";
import {
  allObjects,
  exampleFiles,
  INFRA,
  kubectlKustomize,
  type Obj,
  objectsOf,
  render,
} from "./k8s/fixtures.js";
import { checkObject } from "./k8s/schema-check.js";

describe("kubectl kustomize renders every kustomization (kubectl's built-in kustomize, no cluster)", () => {
  const dirs = [
    "base",
    "services",
    "overlays/dev",
    "overlays/prod",
    "ingress/nginx",
    "ingress/gateway-api",
    "ingress/istio",
  ];
  for (const dir of dirs) {
    it(`${dir}: every object passes the schemas and the strict field check`, () => {
      const objects = objectsOf(kubectlKustomize(join(INFRA, dir)));
      expect(objects.length).toBeGreaterThan(0);
      expect(objects.flatMap((o) => checkObject(o))).toEqual([]);
    });
  }

  it("overlays set the replica counts, and the generated ConfigMap is what the pods mount", () => {
    const replicas = (dir: string) => {
      const objs = objectsOf(kubectlKustomize(join(INFRA, dir)));
      const cm = objs.find((o) => o.kind === "ConfigMap");
      expect(cm?.metadata.name).toMatch(/^thaw-config-[a-z0-9]+$/);
      const deployments = objs.filter((o) => o.kind === "Deployment");
      for (const d of deployments.filter((x) => x.metadata.name.startsWith("thaw-"))) {
        expect(JSON.stringify(d)).toContain(`"name":"${cm?.metadata.name}"`);
      }
      return Object.fromEntries(
        deployments.map((d) => [d.metadata.name, (d.spec as { replicas?: number }).replicas ?? null]),
      );
    };
    expect(replicas("overlays/dev")).toEqual({
      hello: null,
      "thaw-activator": 1,
      "thaw-autoscaler": 1,
      "thaw-ingress-hook": 1,
    });
    expect(replicas("overlays/prod")).toEqual({
      hello: null,
      "thaw-activator": 3,
      "thaw-autoscaler": 2,
      "thaw-ingress-hook": 3,
    });
  });
});

describe("the strict check can fail", () => {
  it("flags an unknown field in a core object and in Envoy Gateway's SecurityPolicy", () => {
    const objs = allObjects(exampleFiles());
    const dep = structuredClone(objs.find((o) => o.kind === "Deployment")) as Obj;
    (dep.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec
      .containers[0]!.imagePullPolicyy = "Always";
    expect(checkObject(dep).join("\n")).toContain(".spec.template.spec.containers[0].imagePullPolicyy");
    const sp = structuredClone(objs.find((o) => o.kind === "SecurityPolicy")) as Obj;
    (sp.spec as Record<string, unknown>).extAuthz = {};
    expect(checkObject(sp).join("\n")).toContain(".spec.extAuthz");
    const route = structuredClone(objs.find((o) => o.kind === "HTTPRoute")) as Obj;
    (route.spec as Record<string, unknown>).hostname = "x";
    expect(checkObject(route).join("\n")).toContain(".spec.hostname");
  });

  it("flags a schema violation (a string where an integer belongs)", () => {
    const dep = structuredClone(allObjects(exampleFiles()).find((o) => o.kind === "Deployment")) as Obj;
    (
      dep.spec as { template: { spec: Record<string, unknown> } }
    ).template.spec.terminationGracePeriodSeconds = "300";
    expect(checkObject(dep).join("\n")).toContain("schema:");
  });
});

const PROBES = [
  undefined,
  { httpGet: { path: "/healthz" } },
  { tcpSocket: { port: 8080 }, periodSeconds: 5, timeoutSeconds: 2 },
  { exec: { command: ["/bin/true"] }, periodSeconds: 3 },
];

describe("a matrix of configs: every object is valid and has Knative's shape", () => {
  for (const cc of [0, 1, 10]) {
    for (const [pi, probe] of PROBES.entries()) {
      for (const ns of ["apps", "default", "team-a"]) {
        const name = `cc ${cc}, probe #${pi}, namespace ${ns}`;
        it(name, () => {
          const files = render({
            services: [
              {
                name: "api",
                namespace: ns,
                hosts: ["api.example.com"],
                paths: pi === 3 ? ["/v1"] : [],
                containerConcurrency: cc,
                timeoutSeconds: 120,
                ...(probe ? { readinessProbe: probe } : {}),
                kubernetes: {
                  deployment: "api-server",
                  image: "registry.example/api:2",
                  containerPort: 9000,
                  ...(cc === 10
                    ? {
                        resources: { requests: { cpu: "500m", memory: "1Gi" }, limits: { memory: "2Gi" } },
                        queueProxyResources: { limits: { cpu: 2 } },
                        readOnlyRootFilesystem: false,
                        runAsUser: 4242,
                      }
                    : {}),
                },
              },
            ],
          });
          const objs = allObjects(files);
          expect(objs.flatMap((o) => checkObject(o))).toEqual([]);
          const dep = objs.find((o) => o.kind === "Deployment" && o.metadata.name === "api-server") as Obj;
          const spec = dep.spec as { replicas?: number; template: { spec: Record<string, unknown> } };
          expect("replicas" in spec).toBe(false);
          const pod = spec.template.spec as {
            terminationGracePeriodSeconds: number;
            containers: {
              name: string;
              env: { name: string; value?: string }[];
              lifecycle?: unknown;
              readinessProbe?: unknown;
              resources: unknown;
            }[];
          };
          expect(pod.terminationGracePeriodSeconds).toBe(120);
          const [user, qp] = pod.containers;
          expect(user?.lifecycle).toEqual({ preStop: { httpGet: { path: "/wait-for-drain", port: 8022 } } });
          expect(qp?.lifecycle).toBeUndefined();
          const env = Object.fromEntries((qp?.env ?? []).map((e) => [e.name, e.value]));
          expect(env.CONTAINER_CONCURRENCY).toBe(String(cc));
          expect(env.USER_PORT).toBe("9000");
          expect(env.SERVING_NAMESPACE).toBe(ns);
          expect(env.SERVING_REVISION).toBe("api");
          const expected = rewriteForQueueProxy(
            probe
              ? ({
                  successThreshold: 1,
                  ...(probe.periodSeconds ? { failureThreshold: 3 } : {}),
                  ...probe,
                } as never)
              : { tcpSocket: { port: 0 }, successThreshold: 1 },
            9000,
          );
          expect(JSON.parse(env.SERVING_READINESS_PROBE as string)).toEqual(
            JSON.parse(encodeProbe(expected as never)),
          );
          // kubelet runs only an exec readiness probe on the user container; the queue-proxy runs the rest.
          expect(user?.readinessProbe !== undefined).toBe(pi === 3);
          const userEnv = Object.fromEntries((user?.env ?? []).map((e) => [e.name, e.value]));
          expect(userEnv).toMatchObject({
            PORT: "9000",
            K_SERVICE: "api",
            K_REVISION: "api",
            K_CONFIGURATION: "api",
          });
          if (cc === 10) {
            expect(user?.resources).toEqual({
              requests: { cpu: "500m", memory: "1Gi" },
              limits: { cpu: "1", memory: "2Gi" },
            });
          }
          const roles = objs.filter((o) => o.kind === "Role" && o.metadata.namespace === ns);
          expect(roles.map((r) => r.metadata.name).sort()).toEqual(
            ns === "thaw-system" ? [] : ["thaw-activator", "thaw-autoscaler"],
          );
          expect(objs.some((o) => o.kind.startsWith("Cluster"))).toBe(false);
        });
      }
    }
  }
});
