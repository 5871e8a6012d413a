/**
 * `thaw k8s render`: the checked-in infra/kubernetes is the generator's output byte for byte, every object
 * (example, overlays after `kubectl kustomize`, and a matrix of configs) passes kubernetes-models' schemas
 * plus a strict unknown-field check, and the Deployment has Knative's queue-proxy shape. No API server
 * runs here: validation is against published schemas, not a cluster.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseConfig, type ThawConfig } from "@thaw/config";
import { encodeProbe, rewriteForQueueProxy } from "@thaw/readiness";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { resolveServices } from "../src/config-check.js";
import { k8sRenderCommand } from "../src/k8s/command.js";
import { DEFAULT_RENDER_OPTIONS } from "../src/k8s/options.js";
import { renderKubernetes } from "../src/k8s/render.js";
import { validateCommand } from "../src/validate.js";
import { checkObject } from "./k8s/schema-check.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const INFRA = join(ROOT, "infra/kubernetes");
const EXAMPLE = join(ROOT, "examples/hello/thaw.k8s.yaml");

type Obj = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string } };

function objectsOf(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

function render(config: unknown, text = "services: []\n") {
  const parsed = parseConfig(config);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const resolved = resolveServices(parsed.value);
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
  const r = renderKubernetes(parsed.value as ThawConfig, resolved.value, text, DEFAULT_RENDER_OPTIONS);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.files;
}

function allObjects(files: Map<string, string>): Obj[] {
  return [...files]
    .filter(
      ([p]) => p.endsWith(".yaml") && !p.endsWith("kustomization.yaml") && !p.endsWith("thaw.config.yaml"),
    )
    .flatMap(([, t]) => objectsOf(t));
}

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? listFiles(p) : [p];
  });
}

function exampleFiles() {
  const text = readFileSync(EXAMPLE, "utf8");
  const parsed = parseConfig(parseAllDocuments(text)[0]?.toJS());
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const resolved = resolveServices(parsed.value);
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
  const r = renderKubernetes(parsed.value, resolved.value, text, DEFAULT_RENDER_OPTIONS);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.files;
}

describe("infra/kubernetes is thaw k8s render's output for examples/hello/thaw.k8s.yaml", () => {
  it("every file matches byte for byte, and there is no other file", () => {
    const files = exampleFiles();
    const onDisk = listFiles(INFRA)
      .map((p) => relative(INFRA, p))
      .sort();
    expect(onDisk).toEqual([...files.keys()].sort());
    for (const [path, body] of files) {
      expect(readFileSync(join(INFRA, path), "utf8"), `${path} differs: run thaw k8s render again`).toBe(
        body,
      );
    }
  });

  it("thaw k8s render without --out prints the same files, and the example config validates", async () => {
    const r = await k8sRenderCommand(["--config", EXAMPLE]);
    expect(r.code).toBe(0);
    for (const [path, body] of exampleFiles()) expect(r.stdout).toContain(`# --- ${path}\n${body}`);
    expect((await validateCommand(EXAMPLE)).code).toBe(0);
  });

  it("renders the same bytes twice", () => {
    expect([...exampleFiles()]).toEqual([...exampleFiles()]);
  });
});

function kubectlKustomize(dir: string): string {
  const v = spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" });
  if (v.error || v.status !== 0) {
    throw new Error(
      "kubectl is not installed: run `bash .ci/run` (it installs Debian's kubernetes-client) or install kubectl 1.27 or newer (kustomize v5)",
    );
  }
  const major = /Kustomize Version: v(\d+)/.exec(v.stdout)?.[1];
  if (!major || Number(major) < 5) {
    throw new Error(
      `kubectl's kustomize is ${major ? `v${major}` : "too old to report its version"}; these kustomizations need v5: install kubectl 1.27 or newer`,
    );
  }
  const r = spawnSync("kubectl", ["kustomize", dir], { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${r.stderr}`);
  return r.stdout;
}

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
      fieldRef: { fieldPath: "metadata.name" },
    });
    expect(qp.env.find((e) => e.name === "SERVING_POD_IP")?.valueFrom).toEqual({
      fieldRef: { fieldPath: "status.podIP" },
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

describe("thaw k8s render refuses what it cannot render, naming the field", () => {
  it("a token in the config, a run: service and a service without image", async () => {
    const { mkdtemp, writeFile } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const dir = await mkdtemp(join(tmpdir(), "thaw-k8s-"));
    const file = join(dir, "thaw.config.yaml");
    await writeFile(
      file,
      [
        "token: 0123456789abcdef0123",
        "services:",
        "  - { name: a, run: { command: [node, a.js] } }",
        "  - { name: b, kubernetes: { deployment: b } }",
      ].join("\n"),
    );
    const r = await k8sRenderCommand(["--config", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("token: would be written into a ConfigMap");
    expect(r.stderr).toContain("services[0].run: would start local processes");
    expect(r.stderr).toContain("services[1].kubernetes.image: is required by thaw k8s render");
    const bad = await k8sRenderCommand(["--config", file, "--gateway", "nope"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--gateway must be namespace/name");
  });
});
