/**
 * `thaw k8s render`'s output for examples/hello against a real kube-apiserver (issue 25, findings 1 and 3):
 * installed as docs/kubernetes.md says, then applied again server-side; Pod Security "restricted" admits
 * its pods; the autoscaler's ServiceAccount may touch its own Lease and no other.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../src/control-plane.js";
import { kubectl } from "../src/kubectl.js";
import { docs, eventually, ok, renderExample } from "./support.js";

const SYS = "thaw-system";
let cp: ControlPlane | undefined;
let out = "";
const k = (args: string[], input?: string) =>
  kubectl((cp as ControlPlane).kubeconfigPath, args, input === undefined ? {} : { input });

beforeAll(async () => {
  out = renderExample();
  cp = await startControlPlane();
  // docs/kubernetes.md section 4, step by step.
  ok(await k(["apply", "-f", join(out, "base/namespaces.yaml")]), "kubectl apply -f base/namespaces.yaml");
  // Renders that keep the app namespaces out of the kustomizations write them here (optional to apply).
  const apps = join(out, "app-namespaces.yaml");
  if (existsSync(apps)) ok(await k(["apply", "-f", apps]), "kubectl apply -f app-namespaces.yaml");
  ok(
    await k([
      "-n",
      SYS,
      "create",
      "secret",
      "generic",
      "thaw-token",
      "--from-literal=token=t0123456789abcdef",
      "--from-literal=route-token=r0123",
    ]),
    "kubectl create secret thaw-token",
  );
  ok(await k(["apply", "-k", join(out, "overlays/prod")]), "kubectl apply -k overlays/prod");
});
afterAll(async () => {
  await cp?.stop();
});

describe("rendered manifests on a real kube-apiserver", () => {
  it("server-side apply after the documented client-side apply succeeds with no field conflicts", async () => {
    const r = await k(["apply", "--server-side", "-k", join(out, "overlays/prod")]);
    expect(r.stderr).not.toMatch(/conflict/i);
    expect(r.code).toBe(0);
  });

  it("Pod Security restricted admits every rendered pod (each ReplicaSet creates all its pods)", async () => {
    for (const ns of [SYS, "apps"]) {
      const labels = JSON.parse(ok(await k(["get", "namespace", ns, "-o", "json"]), "get namespace").stdout)
        .metadata.labels;
      expect(labels["pod-security.kubernetes.io/enforce"]).toBe("restricted");
    }
    // The admission is really enforcing: a pod that may run as root is refused in the same namespace.
    const rootPod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "root" },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    };
    const refused = await k(["-n", SYS, "create", "-f", "-"], JSON.stringify(rootPod));
    expect(refused.stderr).toMatch(/violates PodSecurity "restricted/);
    type Rs = {
      metadata: { name: string; namespace: string };
      spec: { replicas: number };
      status: { replicas?: number; conditions?: { type: string; message: string }[] };
    };
    let sets: Rs[] = [];
    const wanted = ["thaw-activator", "thaw-autoscaler", "thaw-ingress-hook", "hello"];
    await eventually(
      async () => {
        sets = [];
        for (const ns of [SYS, "apps"]) {
          sets.push(
            ...JSON.parse(ok(await k(["-n", ns, "get", "replicasets", "-o", "json"]), "get rs").stdout).items,
          );
        }
        const refused = sets
          .flatMap((s) => s.status.conditions ?? [])
          .filter((c) => c.type === "ReplicaFailure");
        if (refused.length > 0) throw new Error(`pods refused: ${refused.map((c) => c.message).join("; ")}`);
        const owners = sets.map((s) => s.metadata.name.replace(/-[a-z0-9]+$/, ""));
        const full = sets.every((s) => (s.status.replicas ?? 0) === s.spec.replicas);
        return wanted.every((d) => owners.includes(d)) && full ? true : undefined;
      },
      90_000,
      () =>
        sets
          .map(
            (s) => `${s.metadata.namespace}/${s.metadata.name}: ${s.status.replicas ?? 0}/${s.spec.replicas}`,
          )
          .join(", "),
    );
  });

  it("the autoscaler's ServiceAccount may get and update its own Lease and no other", async () => {
    const auto = docs(join(out, "base/autoscaler.yaml")).find((d) => d.kind === "Deployment") as unknown as {
      spec: {
        template: {
          spec: { serviceAccountName: string; containers: { env: { name: string; value?: string }[] }[] };
        };
      };
    };
    const pod = auto.spec.template.spec;
    const lease = pod.containers[0]?.env.find((e) => e.name === "THAW_LEASE_NAME")?.value as string;
    expect(lease).toBeTruthy();
    const as = `--as=system:serviceaccount:${SYS}:${pod.serviceAccountName}`;
    const can = async (verb: string, name?: string) =>
      (
        await k(["auth", "can-i", verb, `leases.coordination.k8s.io${name ? `/${name}` : ""}`, "-n", SYS, as])
      ).stdout.trim();
    expect(await can("get", lease)).toBe("yes");
    expect(await can("update", lease)).toBe("yes");
    // Creating the Lease the first time cannot be limited by name in RBAC.
    expect(await can("create")).toBe("yes");
    expect({ get: await can("get", "another-lease"), update: await can("update", "another-lease") }).toEqual({
      get: "no",
      update: "no",
    });
    // And a real request, not only the authorizer's answer: another component's Lease is Forbidden.
    ok(
      await k(
        ["-n", SYS, "create", "-f", "-"],
        JSON.stringify({
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: "another-lease" },
          spec: { holderIdentity: "someone-else" },
        }),
      ),
      "create another-lease",
    );
    const read = await k(["-n", SYS, "get", "lease", "another-lease", as]);
    expect(read.stderr).toMatch(/forbidden/i);
  });
});
