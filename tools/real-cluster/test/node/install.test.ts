import { get, type IncomingHttpHeaders } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectl } from "../../src/kubectl.js";
import { api } from "../../src/node/api.js";
import { type NodeCluster, startNodeCluster } from "../../src/node/node-cluster.js";
import { importThawImages } from "../../src/node/thaw-images.js";

const K8S = fileURLToPath(new URL("../../../../infra/kubernetes/", import.meta.url));

/** GET with a Host header of our choosing (fetch would send the address's). */
function getWithHost(url: string, host: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { host } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    }).on("error", reject);
  });
}

type PodList = { items: { status: { podIP?: string } }[] };

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
    // The hook, warm: it tells the ingress to send the request straight to the pod's queue-proxy.
    const hook = await getWithHost(
      `http://${await podIp(c, "thaw-system", "thaw-ingress-hook")}:8090/`,
      "hello.example.com",
    );
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
});
