import { fileURLToPath } from "node:url";
import { printFigures } from "@thaw/bench-kit/overload";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectl } from "../../src/kubectl.js";
import { api } from "../../src/node/api.js";
import { type NodeCluster, startNodeCluster } from "../../src/node/node-cluster.js";
import { watchPodPhases } from "../../src/node/pod-phases.js";
import { importThawImages } from "../../src/node/thaw-images.js";
import { getWith } from "../support.js";

const K8S = fileURLToPath(new URL("../../../../infra/kubernetes/", import.meta.url));

type PodList = { items: { status: { podIP?: string } }[] };

type RecordLine = {
  msg?: string;
  revision?: string;
  startedAt: number;
  phases: { phase: string; at: number }[];
};

/**
 * The autoscaler's coldstart log line for apps/hello that began at or after `since` - 5 s (the poke comes
 * with the request), waited for up to 90 s: the record waits up to 30 s for the activator's first byte.
 */
async function autoscalerColdStart(c: NodeCluster, since: number): Promise<RecordLine> {
  const until = Date.now() + 90_000;
  let last = "";
  for (;;) {
    const r = await kubectl(c.controlPlane.kubeconfigPath, [
      "-n",
      "thaw-system",
      "logs",
      "deployment/thaw-autoscaler",
      "--tail=400",
    ]);
    last = r.stdout + r.stderr;
    for (const line of last.split("\n")) {
      if (!line.includes('"coldstart"')) continue;
      try {
        const rec = JSON.parse(line) as RecordLine;
        if (rec.msg === "coldstart" && rec.revision === "hello" && rec.startedAt >= since - 5000) return rec;
      } catch {
        // not a JSON line
      }
    }
    if (Date.now() > until)
      throw new Error(`no coldstart record for hello in the autoscaler's log:\n${last.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The first pod IP of `app.kubernetes.io/name=<name>` in `ns`. */
async function podIp(c: NodeCluster, ns: string, name: string): Promise<string> {
  const q = encodeURIComponent(`app.kubernetes.io/name=${name}`);
  const pods = await api<PodList>(c.controlPlane, "GET", `/api/v1/namespaces/${ns}/pods?labelSelector=${q}`);
  const ip = pods?.items[0]?.status.podIP;
  if (!ip) throw new Error(`no pod IP for ${ns}/${name}`);
  return ip;
}

// docs/kubernetes.md section 4 on a real node: namespaces, the thaw-token Secret, the dev overlay with
// `kubectl apply -k`; then requests through the real pods. (Server-side apply over it: rendered-manifests.test.ts.)
describe("the install docs/kubernetes.md describes, on a real node", () => {
  let cluster: NodeCluster | undefined;
  beforeAll(async () => {
    cluster = await startNodeCluster();
    await importThawImages(cluster.node, [
      "queue-proxy",
      "activator",
      "autoscaler",
      "ingress-hook",
      "example-hello",
    ]);
  }, 300_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 120_000);

  it("runs every component Ready, and the hook and the activator answer from the hello pod", async () => {
    const c = cluster as NodeCluster;
    const kc = c.controlPlane.kubeconfigPath;
    const ok = async (args: string[]) => {
      const r = await kubectl(kc, args, { timeoutMs: 150_000 });
      expect(r.code, `kubectl ${args.join(" ")}: ${r.stderr}`).toBe(0);
      return r.stdout;
    };
    await ok(["apply", "-f", `${K8S}base/namespaces.yaml`]);
    // The app's namespace is the user's: render writes it apart, and docs/kubernetes.md applies it first.
    await ok(["apply", "-f", `${K8S}app-namespaces.yaml`]);
    await ok([
      "-n",
      "thaw-system",
      "create",
      "secret",
      "generic",
      "thaw-token",
      "--from-literal=token=t0k3n",
    ]);
    await ok(["apply", "-k", `${K8S}overlays/dev`]);
    for (const ns of ["thaw-system", "apps"]) {
      await ok(["-n", ns, "wait", "--for=condition=Available", "deployment", "--all", "--timeout=120s"]);
    }

    const hello = await podIp(c, "apps", "hello");
    // The hook sends requests through the activator until it has learned the pod (over the activator's
    // watch), then straight to the pod's queue-proxy: wait, bounded, for that switch.
    const hookUrl = `http://${await podIp(c, "thaw-system", "thaw-ingress-hook")}:8090/`;
    const until = Date.now() + 30_000;
    let hook = await getWith(hookUrl, { host: "hello.example.com" });
    while (hook.headers["x-thaw-upstream"] !== `${hello}:8012` && Date.now() < until) {
      // Deployments are Available before kube-proxy has written the activator Service's rules, so the
      // hook's first calls may find it unreachable: that answer is a 503 with Retry-After, nothing else.
      if (hook.status === 503) expect(hook.headers["retry-after"], "a 503 says when to retry").toBeDefined();
      else expect(hook.headers["x-thaw-upstream"]).toBe("thaw-activator.thaw-system.svc.cluster.local:8012");
      await new Promise((r) => setTimeout(r, 200));
      hook = await getWith(hookUrl, { host: "hello.example.com" });
    }
    expect(hook.status).toBe(200);
    expect(hook.headers["x-thaw-revision"]).toBe("apps/hello");
    expect(hook.headers["x-thaw-upstream"]).toBe(`${hello}:8012`);
    // The activator: a revision named by Knative's headers, proxied to the pod it learned from EndpointSlices.
    const viaActivator = await fetch(`http://${await podIp(c, "thaw-system", "thaw-activator")}:8012/`, {
      headers: { "knative-serving-namespace": "apps", "knative-serving-revision": "hello" },
    });
    const body = await viaActivator.text();
    expect(viaActivator.status, body).toBe(200);
    expect(body).toMatch(/^hello from hello-/);
  }, 240_000);

  it("goes to zero on its own, and a cold request through the activator wakes a pod, phase by phase", async () => {
    const c = cluster as NodeCluster;
    const cp = c.controlPlane;
    // examples/hello/thaw.k8s.yaml: stable window 60 s + scale-to-zero grace 30 s, then the pod drains.
    const deadline = Date.now() + 240_000;
    for (;;) {
      const q = encodeURIComponent("app.kubernetes.io/name=hello");
      const pods = await api<PodList>(cp, "GET", `/api/v1/namespaces/apps/pods?labelSelector=${q}`);
      if (pods?.items.length === 0) break;
      if (Date.now() > deadline) throw new Error("hello did not scale to zero in 240 s");
      await new Promise((r) => setTimeout(r, 500));
    }
    const activator = await podIp(c, "thaw-system", "thaw-activator");
    const t0 = Date.now();
    const phases = watchPodPhases(cp, "apps", "app.kubernetes.io/name=hello", "hello", t0);
    try {
      const res = await fetch(`http://${activator}:8012/`, {
        headers: { "knative-serving-namespace": "apps", "knative-serving-revision": "hello" },
      });
      const body = await res.text();
      const firstByte = Date.now() - t0;
      expect(res.status, body).toBe(200);
      expect(body).toMatch(/^hello from hello-/);
      const p = await phases.done;
      // The autoscaler's record of this cold start (its coldstart log line, the dashboard's record) ends
      // with the activator's first byte, told on the stat link.
      const recorded = await autoscalerColdStart(c, t0);
      const told = recorded.phases.find((x) => x.phase === "firstByte");
      expect(told, JSON.stringify(recorded)).toBeDefined();
      printFigures("real-node/hello-cold-via-activator", {
        podMs: { ...p, pod: undefined },
        firstByte,
        autoscalerRecordMs: Object.fromEntries(
          recorded.phases.map((x) => [x.phase, x.at - recorded.startedAt]),
        ),
      });
    } finally {
      phases.stop();
    }
  }, 400_000);
});
