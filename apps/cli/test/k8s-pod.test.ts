/**
 * The rendered pod, run the way kubelet would run it but as local processes: the example app with the user
 * container's env and the real thaw-queue-proxy with the queue-proxy container's env (fieldRefs filled in,
 * Knative's fixed ports moved to free ones through the queue-proxy's THAW_* port knobs). kubelet's readiness
 * probe is sent as rendered, then the pod is stopped in kubelet's order: the app's preStop
 * (`GET :8022/wait-for-drain`) and, since the queue-proxy has no preStop, its SIGTERM at the same moment.
 * No kubelet or API server runs here.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startNode } from "./k8s/child.js";
import { allObjects, type Obj, ROOT, render } from "./k8s/fixtures.js";

type EnvVar = { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } };
type Container = {
  name: string;
  env: EnvVar[];
  readinessProbe?: { httpGet: { port: number; httpHeaders: { name: string; value: string }[] } };
  lifecycle?: { preStop: { httpGet: { path: string; port: number } } };
};

const FIELDS: Record<string, string> = {
  "metadata.name": "hello-0",
  "status.podIP": "127.0.0.1",
  "status.hostIP": "127.0.0.1",
};

/** The env kubelet would give the container: values as written, fieldRefs from the downward API. */
function envOf(c: Container): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of c.env) {
    const field = e.valueFrom?.fieldRef?.fieldPath;
    out[e.name] = field ? (FIELDS[field] as string) : (e.value ?? "");
  }
  return out;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const cleanup: (() => void)[] = [];
afterAll(() => {
  for (const c of cleanup) c();
});

describe("the rendered pod runs: app + thaw-queue-proxy with the manifest's env (local processes, no kubelet)", () => {
  it("becomes ready to kubelet's probe, serves, and drains in kubelet's order", async () => {
    const userPort = await freePort();
    const files = render({
      drain: { quietPeriod: "3s" },
      services: [
        {
          name: "hello",
          namespace: "apps",
          hosts: ["hello.example.com"],
          containerConcurrency: 4,
          readinessProbe: { httpGet: { path: "/healthz" }, periodSeconds: 1 },
          kubernetes: {
            deployment: "hello",
            image: "ghcr.io/thaw-dev/example-hello:0.1.0",
            containerPort: userPort,
            env: { STARTUP_DELAY_MS: "300" },
          },
        },
      ],
    });
    const dep = allObjects(files).find((o) => o.kind === "Deployment" && o.metadata.name === "hello") as Obj;
    const [user, qp] = (dep.spec as { template: { spec: { containers: Container[] } } }).template.spec
      .containers as [Container, Container];
    const noCerts = mkdtempSync(join(tmpdir(), "thaw-pod-"));
    cleanup.push(() => rmSync(noCerts, { recursive: true, force: true }));

    // kubelet also sets HOSTNAME to the pod name.
    const app = startNode([join(ROOT, "examples/hello/server.mjs")], ROOT, {
      ...envOf(user),
      HOSTNAME: "hello-0",
    });
    cleanup.push(() => app.child.kill("SIGKILL"));
    const proxy = startNode([join(ROOT, "apps/queue-proxy/dist/main.js")], ROOT, {
      ...envOf(qp),
      QUEUE_SERVING_PORT: "0",
      THAW_ADMIN_PORT: "0",
      THAW_METRICS_PORT: "0",
      THAW_USER_METRICS_PORT: "0",
      THAW_BIND_HOST: "127.0.0.1",
      THAW_CERTS_DIR: noCerts,
    });
    cleanup.push(() => proxy.child.kill("SIGKILL"));
    const line = (await proxy.waitFor(/\{"msg":"thaw-queue-proxy listening"[^\n]*\}/)).match(
      /\{"msg":"thaw-queue-proxy listening"[^\n]*\}/,
    )?.[0] as string;
    const ports = JSON.parse(line) as { serving: number; admin: number };

    // kubelet's readiness probe as rendered: GET / on the serving port with K-Network-Probe: queue.
    const probe = qp.readinessProbe?.httpGet;
    expect(probe?.port).toBe(8012);
    const probeHeaders = Object.fromEntries((probe?.httpHeaders ?? []).map((h) => [h.name, h.value]));
    const kubeletProbe = () =>
      fetch(`http://127.0.0.1:${ports.serving}/`, {
        headers: { ...probeHeaders, "user-agent": "kube-probe/1.31" },
      });
    let ready: Response | undefined;
    for (let i = 0; i < 150; i++) {
      ready = await kubeletProbe();
      if (ready.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready?.status).toBe(200);
    expect(await ready?.text()).toBe("queue");

    const answer = await fetch(`http://127.0.0.1:${ports.serving}/`, {
      headers: { host: "hello.example.com" },
    });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain("hello from hello-0");

    // kubelet: the app's preStop and the queue-proxy's SIGTERM together (only the app has a preStop).
    expect(qp.lifecycle).toBeUndefined();
    const preStop = user.lifecycle?.preStop.httpGet;
    expect(preStop).toEqual({ path: "/wait-for-drain", port: 8022 });
    const started = performance.now();
    const drained = fetch(`http://127.0.0.1:${ports.admin}${preStop?.path}`);
    proxy.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    expect((await kubeletProbe()).status).toBe(503);
    const done = await drained;
    const waitedMs = performance.now() - started;
    expect(done.status).toBe(200);
    // The preStop holds the app's SIGTERM for the whole quiet period (3 s), not the 1 s reset.
    expect(waitedMs).toBeGreaterThan(2500);
    expect(await proxy.exited).toBe(0);
    app.child.kill("SIGTERM");
    await app.exited;
  });
});
