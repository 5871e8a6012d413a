import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { printFigures } from "@thaw/bench-kit/overload";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectl } from "../../src/kubectl.js";
import { api } from "../../src/node/api.js";
import { buildHostNodeImage, HOST_NODE_IMAGE } from "../../src/node/image-archive.js";
import { run } from "../../src/node/netns.js";
import { type NodeCluster, startNodeCluster } from "../../src/node/node-cluster.js";
import { watchPodPhases } from "../../src/node/pod-phases.js";
import { importThawImages } from "../../src/node/thaw-images.js";

// `thaw k8s render --config examples/hello/thaw.k8s.yaml` output, checked in (apps/cli's tests hold it
// byte for byte to a fresh render): the hello app plus its thaw-queue-proxy sidecar.
const RENDERED_HELLO = fileURLToPath(
  new URL("../../../../infra/kubernetes/services/apps-hello.yaml", import.meta.url),
);

// A server that says which pod answered; ready once listening (the kubelet probes /ready).
const SERVER = `require("http").createServer((q, s) => s.end(JSON.stringify({ pod: require("os").hostname(), url: q.url }))).listen(8080)`;

const web = {
  service: {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web" },
    spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080 }] },
  },
  deployment: {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: [
            {
              name: "web",
              image: HOST_NODE_IMAGE,
              imagePullPolicy: "Never",
              args: ["-e", SERVER],
              readinessProbe: { httpGet: { path: "/ready", port: 8080 }, periodSeconds: 1 },
            },
          ],
          terminationGracePeriodSeconds: 2,
        },
      },
    },
  },
};

/**
 * GET `url` from inside the node's namespace. kube-proxy programs a Service a moment after its
 * EndpointSlice changes: until then the ClusterIP refuses, so this retries refusals for up to 10 s.
 */
async function curlInside(c: NodeCluster, url: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return c.net.exec("curl", ["-sS", "--max-time", "5", url]);
    } catch (e) {
      if (Date.now() > deadline || !/Couldn't connect/.test((e as Error).message)) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe("a real node joined to a real control plane", () => {
  let cluster: NodeCluster | undefined;
  const images = mkdtempSync(join(tmpdir(), "thaw-node-images-"));
  beforeAll(async () => {
    cluster = await startNodeCluster();
    cluster.node.containerd.importImage(buildHostNodeImage(images));
  }, 300_000);
  afterAll(async () => {
    const c = cluster;
    const pids = [...(c?.node.components.values() ?? [])].map((p) => p.pid);
    await c?.stop();
    rmSync(images, { recursive: true, force: true });
    if (!c) return;
    // Nothing the node ran or made outlives it: processes, namespace, cgroups, mounts, state.
    for (const pid of pids) expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(run("ip", ["netns", "list"])).not.toContain(c.net.name);
    expect(existsSync(`/sys/fs/cgroup/memory/${c.net.name}`)).toBe(false);
    expect(readFileSync("/proc/self/mountinfo", "utf8")).not.toContain(c.node.dir);
    expect(existsSync(c.node.dir)).toBe(false);
  }, 120_000);

  it("runs a Deployment's pod to Ready by its probe, reachable on its pod IP, its ClusterIP and its cluster name", async () => {
    const c = cluster as NodeCluster;
    const cp = c.controlPlane;
    const t0 = Date.now();
    const phases = watchPodPhases(cp, "default", "app=web", "web", t0);
    try {
      await api(cp, "POST", "/api/v1/namespaces/default/services", web.service);
      await api(cp, "POST", "/apis/apps/v1/namespaces/default/deployments", web.deployment);
      const p = await phases.done;
      const pod = await api<{ status: { podIP: string } }>(
        cp,
        "GET",
        `/api/v1/namespaces/default/pods/${p.pod}`,
      );
      const podIp = pod?.status.podIP as string;
      expect(podIp.startsWith(c.net.podCidr.replace(/0\/24$/, ""))).toBe(true);

      // From the host, through the veth pair and the node's bridge.
      const direct = await (await fetch(`http://${podIp}:8080/hello`)).json();
      const firstByte = Date.now() - t0;
      expect(direct).toEqual({ pod: p.pod, url: "/hello" });

      // Through the Service's ClusterIP: kube-proxy's nftables rules inside the node's namespace.
      const svc = await api<{ spec: { clusterIP: string } }>(
        cp,
        "GET",
        "/api/v1/namespaces/default/services/web",
      );
      const viaVip = await curlInside(c, `http://${svc?.spec.clusterIP}/vip`);
      expect(JSON.parse(viaVip)).toEqual({ pod: p.pod, url: "/vip" });

      // From inside the pod, by the Service's cluster name: the kubelet's clusterDNS is CoreDNS.
      const script = `fetch("http://web.default.svc.cluster.local/dns").then(r => r.text()).then(console.log)`;
      const r = await kubectl(cp.kubeconfigPath, ["exec", p.pod, "--", process.execPath, "-e", script]);
      expect(r.stderr).toBe("");
      expect(JSON.parse(r.stdout)).toEqual({ pod: p.pod, url: "/dns" });

      // Pods reach the API server through the kubernetes Service (in-cluster clients: autoscaler, activator).
      // The exit: Node's agent keeps the connection alive, and the exec would wait for it.
      const livez = `require("https").get({ host: "kubernetes.default.svc", path: "/livez", rejectUnauthorized: false }, (r) => { console.log(r.statusCode); process.exit(0); })`;
      const api200 = await kubectl(cp.kubeconfigPath, ["exec", p.pod, "--", process.execPath, "-e", livez]);
      expect(api200.stdout.trim(), api200.stderr).toBe("200");

      printFigures("real-node/pod-cold-start", {
        nodeStartMs: { ...c.startMs, ...c.node.startMs },
        podMs: { ...p, pod: undefined, firstByte },
      });
    } finally {
      phases.stop();
    }
  }, 180_000);

  it("runs the rendered hello Deployment: Ready by the kubelet probing its queue-proxy, answering through it", async () => {
    const c = cluster as NodeCluster;
    const cp = c.controlPlane;
    await importThawImages(c.node, ["queue-proxy", "example-hello"]);
    const ns = await kubectl(cp.kubeconfigPath, ["create", "namespace", "apps"]);
    expect(ns.stderr).toBe("");
    const t0 = Date.now();
    const phases = watchPodPhases(cp, "apps", "app.kubernetes.io/name=hello", "hello", t0);
    try {
      const applied = await kubectl(cp.kubeconfigPath, ["apply", "-f", RENDERED_HELLO]);
      expect(applied.code, applied.stderr).toBe(0);
      const p = await phases.done;
      const pod = await api<{ status: { podIP: string } }>(
        cp,
        "GET",
        `/api/v1/namespaces/apps/pods/${p.pod}`,
      );
      // Through the queue-proxy's serving port, as the activator and the Service send requests.
      const res = await fetch(`http://${pod?.status.podIP}:8012/`);
      const firstByte = Date.now() - t0;
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(new RegExp(`^hello from ${p.pod} `));
      const svc = await api<{ spec: { clusterIP: string } }>(
        cp,
        "GET",
        "/api/v1/namespaces/apps/services/hello",
      );
      const viaVip = await curlInside(c, `http://${svc?.spec.clusterIP}/`);
      expect(viaVip).toMatch(new RegExp(`^hello from ${p.pod} `));
      printFigures("real-node/hello-cold-start", { podMs: { ...p, pod: undefined, firstByte } });
    } finally {
      phases.stop();
    }
  }, 180_000);
});
