import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { printFigures } from "@thaw/bench-kit/overload";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectl } from "../../src/kubectl.js";
import { api } from "../../src/node/api.js";
import { type IngressNginx, startIngressNginx } from "../../src/node/ingress-nginx.js";
import { type NodeCluster, startNodeCluster } from "../../src/node/node-cluster.js";
import { importThawImages } from "../../src/node/thaw-images.js";
import { eventually, renderExample } from "../support.js";
import { burst, emptyLoad, oneRequest, steadyLoad, total } from "./load.js";

const HOST = "hello.example.com";
const TOKEN = "t0k3n";

type Pod = {
  metadata: { name: string; deletionTimestamp?: string };
  status: {
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { name: string; ready: boolean; restartCount: number }[];
  };
};
type Deployment = { spec: { replicas?: number }; status: { readyReplicas?: number } };

// Item 4 and 5 of issue 25 on a real node: Debian's nginx running infra/nginx's config as the ingress,
// inside the node's namespace (where an ingress controller's pod would send from), asking the hook at its
// Service's ClusterIP and sending held requests to the activator's. The examples/hello service is rendered
// with short autoscaler windows so a trip to zero takes seconds, not the example's 90 s.
// OPEN (not yet in the default suite): every request through nginx here answers 503 with Retry-After, warm
// or cold, with the hook and the activator addressed by ClusterIP or by pod IP alike; the cause is not found
// yet. Run it with THAW_INGRESS_E2E=1 while it is worked on; it joins the suite when it is green.
describe.runIf(process.env.THAW_INGRESS_E2E === "1")(
  "nginx → hook → activator when cold → the pod's queue-proxy, on a real node",
  () => {
    let cluster: NodeCluster | undefined;
    let nginx: IngressNginx | undefined;
    let rendered: string | undefined;
    const cp = () => (cluster as NodeCluster).controlPlane;
    const kc = () => cp().kubeconfigPath;
    const ok = async (args: string[]) => {
      const r = await kubectl(kc(), args, { timeoutMs: 150_000 });
      if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
      return r.stdout;
    };
    const pods = async (ns: string, name: string) => {
      const q = encodeURIComponent(`app.kubernetes.io/name=${name}`);
      const l = await api<{ items: Pod[] }>(cp(), "GET", `/api/v1/namespaces/${ns}/pods?labelSelector=${q}`);
      return l?.items ?? [];
    };
    const hello = async () =>
      (await api<Deployment>(cp(), "GET", "/apis/apps/v1/namespaces/apps/deployments/hello")) as Deployment;
    /** Every activator pod's thaw_activator_requests_total for apps/hello, summed. */
    const activatorRequests = async () => {
      let sum = 0;
      for (const p of await pods("thaw-system", "thaw-activator")) {
        if (!p.status.podIP || p.metadata.deletionTimestamp) continue;
        const res = await fetch(`http://${p.status.podIP}:8012/metrics`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        const text = await res.text();
        const m = text.match(/^thaw_activator_requests_total\{namespace="apps",revision="hello"\} (\d+)$/m);
        sum += Number(m?.[1] ?? 0);
      }
      return sum;
    };
    const atZero = (timeoutMs: number) =>
      eventually(
        async () => ((await pods("apps", "hello")).length === 0 ? true : undefined),
        timeoutMs,
        async () =>
          `hello pods still there: ${(await pods("apps", "hello")).map((p) => p.metadata.name).join(", ")}`,
      );
    const get = async () => {
      const r = emptyLoad();
      const { Agent } = await import("node:http");
      const agent = new Agent();
      await oneRequest(agent, `${(nginx as IngressNginx).url}/one`, HOST, r);
      agent.destroy();
      return r;
    };

    beforeAll(async () => {
      // Short windows: a trip to zero in about 15 s. Everything else is the example's own config.
      const config = readFileSync(
        new URL("../../../../examples/hello/thaw.k8s.yaml", import.meta.url),
        "utf8",
      )
        .replace("stable-window: 60s", "stable-window: 6s")
        .replace("scale-to-zero-grace-period: 30s", "scale-to-zero-grace-period: 6s");
      const configDir = mkdtempSync(join(tmpdir(), "thaw-ingress-config-"));
      writeFileSync(join(configDir, "thaw.k8s.yaml"), config);
      rendered = renderExample(join(configDir, "thaw.k8s.yaml"));
      rmSync(configDir, { recursive: true, force: true });
      cluster = await startNodeCluster();
      await importThawImages(cluster.node, [
        "queue-proxy",
        "activator",
        "autoscaler",
        "ingress-hook",
        "example-hello",
      ]);
      await ok(["apply", "-f", `${rendered}/base/namespaces.yaml`]);
      await ok(["apply", "-f", `${rendered}/app-namespaces.yaml`]);
      await ok([
        "-n",
        "thaw-system",
        "create",
        "secret",
        "generic",
        "thaw-token",
        `--from-literal=token=${TOKEN}`,
      ]);
      await ok(["apply", "-k", `${rendered}/overlays/dev`]);
      for (const ns of ["thaw-system", "apps"])
        await ok(["-n", ns, "wait", "--for=condition=Available", "deployment", "--all", "--timeout=150s"]);
      const clusterIp = async (name: string) =>
        (
          await api<{ spec: { clusterIP: string } }>(
            cp(),
            "GET",
            `/api/v1/namespaces/thaw-system/services/${name}`,
          )
        )?.spec.clusterIP;
      nginx = await startIngressNginx({
        net: cluster.net,
        dir: join(cluster.controlPlane.dir, "ingress-nginx"),
        hook: `${await clusterIp("thaw-ingress-hook")}:8090`,
        activator: `${await clusterIp("thaw-activator")}:8012`,
        token: TOKEN,
      });
    }, 420_000);
    afterAll(async () => {
      await nginx?.stop();
      await cluster?.stop();
      if (rendered) rmSync(rendered, { recursive: true, force: true });
    }, 120_000);

    it("warm: requests go nginx → the pod, never the activator; the kubelet runs the rendered probes", async () => {
      const t0 = Date.now();
      // The hook learns the pod over the activator's watch; until then its answers go through the activator.
      // Wait, bounded, for a round of requests that leaves the activator's count where it was.
      await eventually(
        async () => {
          const before = await activatorRequests();
          for (let i = 0; i < 5; i++) expect((await get()).byStatus[200]).toBe(1);
          return (await activatorRequests()) === before ? true : undefined;
        },
        60_000,
        () => "every round of requests still went through the activator",
      );
      const before = await activatorRequests();
      const load = steadyLoad((nginx as IngressNginx).url, HOST, 4);
      await new Promise((r) => setTimeout(r, 3000));
      load.stop();
      const r = await load.done;
      expect(r.lost).toEqual([]);
      expect(r.byStatus[200]).toBe(total(r));
      expect(await activatorRequests()).toBe(before);
      // Ready through the kubelet's own probe of the queue-proxy (K-Network-Probe), never restarted.
      const [pod] = await pods("apps", "hello");
      expect(pod?.status.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
      expect(pod?.status.containerStatuses?.map((c) => [c.name, c.ready, c.restartCount]).sort()).toEqual([
        ["queue-proxy", true, 0],
        ["user-container", true, 0],
      ]);
      printFigures("real-node/ingress-warm", {
        requests: r.byStatus,
        activatorRequests: 0,
        ms: Date.now() - t0,
      });
    }, 120_000);

    it("cold: a request after scale to zero wakes a pod through the activator, once", async () => {
      const t0 = Date.now();
      await atZero(120_000);
      const zeroMs = Date.now() - t0;
      const before = await activatorRequests();
      const t1 = Date.now();
      const r = await get();
      const coldMs = Date.now() - t1;
      expect(r.lost).toEqual([]);
      expect(r.byStatus[200]).toBe(1);
      expect((await activatorRequests()) - before).toBe(1);
      printFigures("real-node/ingress-cold", { zeroMs, coldMs, ms: Date.now() - t0 });
    }, 200_000);

    it("cold burst of 500 at once: 0 → N → 0, none lost (200, or 503 with Retry-After)", async () => {
      const t0 = Date.now();
      await atZero(120_000);
      let maxReady = 0;
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          maxReady = Math.max(maxReady, (await hello()).status.readyReplicas ?? 0);
          await new Promise((r) => setTimeout(r, 500));
        }
      })();
      const t1 = Date.now();
      const r = await burst((nginx as IngressNginx).url, HOST, 500);
      const burstMs = Date.now() - t1;
      watching = false;
      await watcher;
      expect(r.lost).toEqual([]);
      expect(total(r)).toBe(500);
      expect(r.byStatus[200]).toBeGreaterThan(0);
      const t2 = Date.now();
      await atZero(180_000);
      printFigures("real-node/ingress-cold-burst-500", {
        requests: r.byStatus,
        podsAnswering: r.pods.size,
        maxReady,
        burstMs,
        slowestMs: r.maxMs,
        backToZeroMs: Date.now() - t2,
        ms: Date.now() - t0,
      });
    }, 400_000);

    it("kubectl scale from outside is put back by the autoscaler", async () => {
      const t0 = Date.now();
      await atZero(120_000);
      await ok(["-n", "apps", "scale", "deployment/hello", "--replicas=3"]);
      const t1 = Date.now();
      await eventually(
        async () => ((await hello()).spec.replicas === 0 ? true : undefined),
        60_000,
        async () => `spec.replicas still ${(await hello()).spec.replicas}`,
      );
      const putBackMs = Date.now() - t1;
      await atZero(120_000);
      printFigures("real-node/kubectl-scale-fought", { putBackMs, ms: Date.now() - t0 });
    }, 300_000);

    it("a pod deleted under load: its requests drain or replay, none lost", async () => {
      const t0 = Date.now();
      const load = steadyLoad((nginx as IngressNginx).url, HOST, 12);
      try {
        // 12 clients against containerConcurrency 4, target 3: the autoscaler wants several pods.
        await eventually(
          async () => ((await hello()).status.readyReplicas ?? 0) >= 2 || undefined,
          120_000,
          async () => `readyReplicas ${(await hello()).status.readyReplicas}`,
        );
        const victim = (await pods("apps", "hello")).find((p) => !p.metadata.deletionTimestamp);
        await ok(["-n", "apps", "delete", "pod", victim?.metadata.name ?? "", "--wait=false"]);
        // Keep the load on while it drains and its endpoint leaves.
        await eventually(
          async () =>
            (await pods("apps", "hello")).some((p) => p.metadata.name === victim?.metadata.name)
              ? undefined
              : true,
          120_000,
          () => `${victim?.metadata.name} still there`,
        );
      } finally {
        load.stop();
      }
      const r = await load.done;
      expect(r.lost).toEqual([]);
      expect(r.byStatus[200]).toBeGreaterThan(0);
      printFigures("real-node/pod-deleted-under-load", {
        requests: r.byStatus,
        pods: r.pods.size,
        ms: Date.now() - t0,
      });
    }, 300_000);
  },
);
