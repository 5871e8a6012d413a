import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { deployment, EmulatedApiServer, waitFor } from "@thaw/kubernetes/node/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));

describe("two thaw-autoscaler processes on the emulated Kubernetes API server (no real API server runs here)", () => {
  let api: EmulatedApiServer;
  let dir: string;
  const children: ChildProcess[] = [];
  const replicas = () =>
    (api.get("deployments", "apps", "hello")?.spec as { replicas?: number } | undefined)?.replicas;
  const holder = () =>
    (api.get("leases", "thaw", "thaw-autoscaler")?.spec as { holderIdentity?: string } | undefined)
      ?.holderIdentity;
  const annotate = (minScale: string) =>
    api.apply("deployments", "apps", {
      ...deployment({ name: "hello", replicas: replicas() ?? 0 }),
      metadata: { name: "hello", annotations: { "autoscaling.knative.dev/min-scale": minScale } },
    });

  beforeEach(async () => {
    api = new EmulatedApiServer({ token: "emulator-token", bookmarkIntervalMs: 0 });
    await api.start();
    dir = await mkdtemp(join(tmpdir(), "thaw-autoscaler-ha-"));
    api.apply("deployments", "apps", deployment({ name: "hello", replicas: 0 }));
  });
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill("SIGKILL");
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function start(name: string, config: string): Promise<ChildProcess> {
    const env: NodeJS.ProcessEnv = { ...process.env, POD_NAME: name, POD_NAMESPACE: "thaw" };
    const child = spawn(process.execPath, [MAIN, "--config", config, "--listen", "127.0.0.1:0"], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    children.push(child);
    let log = "";
    child.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    await waitFor(() => log.includes("thaw-autoscaler listening"), `${name} to listen`, 45_000);
    return child;
  }

  it("only the Lease holder scales (annotations drive it); after its SIGKILL the other takes over within 15 s", async () => {
    const kubeconfig = join(dir, "kubeconfig.yaml");
    await writeFile(kubeconfig, api.kubeconfigYaml());
    const config = join(dir, "thaw.config.yaml");
    await writeFile(
      config,
      `services:\n  - name: hello\n    containerConcurrency: 1\n    kubernetes: {deployment: hello, namespace: apps, kubeconfig: ${kubeconfig}}\n`,
    );
    annotate("2");
    const a = await start("autoscaler-a", config);
    await waitFor(() => holder() === "autoscaler-a", "a to lead", 30_000);
    await waitFor(() => replicas() === 2, "min-scale 2 from the annotation", 30_000);
    await start("autoscaler-b", config);
    await waitFor(
      () =>
        api.requests.some(
          (r) => r.path.endsWith("/leases/thaw-autoscaler") && r.method === "GET" && r.status === 200,
        ),
      "b to read the Lease",
    );
    annotate("3");
    await waitFor(() => replicas() === 3, "min-scale 3", 30_000);
    expect(holder()).toBe("autoscaler-a");
    a.kill("SIGKILL");
    const killed = Date.now();
    annotate("4");
    await waitFor(() => replicas() === 4, "the follower to scale after taking over", 40_000);
    const tookMs = Date.now() - killed;
    process.stderr.write(`takeover: SIGKILL to the follower's scale in ${tookMs} ms\n`);
    expect(holder()).toBe("autoscaler-b");
    // 10 s lease + two 2 s retries + a decider tick = 16 s at most unloaded; the bound leaves room for a loaded CI.
    expect(tookMs).toBeLessThan(25_000);
  }, 150_000);
});
