import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "@thaw/clock";
import { ManualClock } from "@thaw/clock/testing";
import { kubeConfigFor } from "@thaw/kubernetes/node";
import { deployment, EmulatedApiServer, endpointSlice, waitFor } from "@thaw/kubernetes/node/testing";
import { emptyStat } from "@thaw/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { policyFor } from "../src/policy.js";
import { KubernetesScaler } from "../src/scalers/kubernetes.js";
import { AutoscalerService } from "../src/service.js";

const rev = { namespace: "default", name: "hello" };
const SCALE = "/apis/apps/v1/namespaces/apps/deployments/hello/scale";
const target = { ...rev, kubernetesNamespace: "apps", deployment: "hello", service: "hello-private" };
const running = { running: { startedAt: "2026-12-06T10:00:00Z" } };

/** A pod's status with its sandbox up and not ready; the app container's fields are `user`'s. */
function notReady(user: Record<string, unknown>, restartCount = 0) {
  return {
    conditions: [
      { type: "PodReadyToStartContainers", status: "True" },
      { type: "Ready", status: "False" },
    ],
    containerStatuses: [
      { name: "user-container", ready: false, restartCount, ...user },
      { name: "queue-proxy", ready: false, restartCount: 0, state: running },
    ],
  };
}

describe("KubernetesScaler against the emulated Kubernetes API server (no real API server runs here)", () => {
  let api: EmulatedApiServer;
  const scalers: KubernetesScaler[] = [];
  const make = (leading = true) => {
    const s = new KubernetesScaler({
      kubeConfig: kubeConfigFor({ server: api.url }),
      clock: systemClock,
      random: () => 0,
      leading,
      backoffInitialMs: 30,
    });
    scalers.push(s);
    s.register(target);
    return s;
  };
  /** A scaler following `t`'s Deployment (at 1) and its pods' problems, as "severity: message" or "none". */
  const watchProblems = (t: typeof target & { metricsPort?: number }) => {
    api.apply("deployments", "apps", deployment({ name: "hello", replicas: 1 }));
    const problems: string[] = [];
    const scaler = new KubernetesScaler({
      kubeConfig: kubeConfigFor({ server: api.url }),
      clock: systemClock,
      random: () => 0,
      backoffInitialMs: 30,
      onProblem: (_r, p) => problems.push(p ? `${p.severity}: ${p.message}` : "none"),
    });
    scalers.push(scaler);
    scaler.register(t);
    return problems;
  };
  const replicas = () =>
    (api.get("deployments", "apps", "hello")?.spec as { replicas?: number } | undefined)?.replicas;

  beforeEach(async () => {
    api = new EmulatedApiServer({ bookmarkIntervalMs: 0 });
    await api.start();
    api.apply("deployments", "apps", deployment({ name: "hello", replicas: 0 }));
  });
  afterEach(async () => {
    for (const s of scalers.splice(0)) await s.close();
    await api.close();
  });

  it("counts a dual-stack Service's pods once, follows the named Service, and scrapes the configured port", async () => {
    const pods = [1, 2, 3].map((i) => ({ pod: `hello-${i}`, uid: `u${i}`, ready: true }));
    for (const addressType of ["IPv4", "IPv6"] as const) {
      api.apply(
        "endpointslices",
        "apps",
        endpointSlice({
          service: "hello-private",
          addressType,
          port: 8012,
          endpoints: pods.map((p, i) => ({
            ...p,
            ip: addressType === "IPv4" ? `10.0.0.${i + 1}` : `fd00::${i + 1}`,
          })),
        }),
      );
    }
    const scaler = new KubernetesScaler({
      kubeConfig: kubeConfigFor({ server: api.url }),
      clock: systemClock,
      random: () => 0,
    });
    scalers.push(scaler);
    scaler.register({ ...target, metricsPort: 9191 });
    await waitFor(() => scaler.pods(rev).length === 3, "three pods");
    await new Promise((r) => setTimeout(r, 50));
    expect(scaler.pods(rev).map((p) => [p.address, p.ready, p.metricsUrl])).toEqual([
      ["10.0.0.1:8012", true, "http://10.0.0.1:9191/metrics"],
      ["10.0.0.2:8012", true, "http://10.0.0.2:9191/metrics"],
      ["10.0.0.3:8012", true, "http://10.0.0.3:9191/metrics"],
    ]);
  });

  it("a failed PATCH is not recorded as applied: status shows the error, the Deployment still gets there", async () => {
    const scaler = make();
    const clock = new ManualClock(Date.now());
    const p = policyFor({ global: {}, autoscaling: {}, containerConcurrency: 1 });
    if (!p.ok) throw new Error("policy");
    const service = new AutoscalerService({
      scaler,
      clock,
      random: () => 0,
      scrape: async () => ({ ok: true, stat: emptyStat("p") }),
    });
    service.addRevision(rev, p.value);
    service.start();
    try {
      // Until the Deployment is read its count is unknown and a poke patches nothing (a loaded machine
      // lists it late): the failures below must meet a PATCH.
      await waitFor(() => scaler.replicas(rev) === 0, "the Deployment's count");
      api.failNext({ method: "PATCH", path: SCALE }, { status: 500 });
      api.failNext({ method: "PATCH", path: SCALE }, { status: 409 });
      service.poke(rev);
      await waitFor(() => service.status(rev)?.scaleError !== null, "the scale error");
      expect(service.status(rev)).toMatchObject({ desiredScale: 0 });
      expect(service.status(rev)?.scaleError).toMatch(/PATCH deployments\/hello\/scale in apps: (500|409)/);
      // The writer retries on its own; the next tick sees the Deployment at the count and records it.
      await waitFor(() => (replicas() ?? 0) > 0, "the scale-up");
      for (let i = 0; i < 20 && service.status(rev)?.scaleError !== null; i++) {
        await clock.advance(2000);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(service.status(rev)).toMatchObject({ desiredScale: replicas(), scaleError: null });
      expect(api.requests.filter((r) => r.method === "PATCH").map((r) => r.status)).toEqual([500, 409, 200]);
    } finally {
      await service.stop();
    }
  });

  it("decides from the Deployment's spec.replicas: one applied at 1 with no traffic is scaled to 0", async () => {
    api.apply("deployments", "apps", deployment({ name: "hello", replicas: 1 }));
    const scaler = make();
    const clock = new ManualClock(Date.now());
    const p = policyFor({
      global: { "stable-window": "6s", "scale-to-zero-grace-period": "1s" },
      autoscaling: {},
      containerConcurrency: 1,
    });
    if (!p.ok) throw new Error("policy");
    const service = new AutoscalerService({
      scaler,
      clock,
      random: () => 0,
      scrape: async () => ({ ok: true, stat: emptyStat("p") }),
    });
    await waitFor(() => scaler.replicas(rev) === 1, "the Deployment's count read");
    service.addRevision(rev, p.value);
    service.start();
    try {
      for (let i = 0; i < 30 && replicas() !== 0; i++) {
        await clock.advance(1000);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(replicas()).toBe(0);
      // The API holds 0 as soon as it accepted the PATCH; the status records it once the answer is read.
      await waitFor(() => service.status(rev)?.desiredScale === 0, "the status after the scale-down");
      expect(service.status(rev)).toMatchObject({ desiredScale: 0, scaleError: null });
    } finally {
      await service.stop();
    }
  });

  it("scales from zero with one PATCH once the Deployment was read: the cold start skips a GET", async () => {
    const scaler = make();
    await waitFor(() => scaler.replicas(rev) === 0, "the Deployment's count read");
    await scaler.scale(rev, 1);
    expect(replicas()).toBe(1);
    expect(api.requests.filter((r) => r.path === SCALE).map((r) => `${r.method} ${r.status}`)).toEqual([
      "PATCH 200",
    ]);
  });

  it("a follower writes no scale; once it leads, it does", async () => {
    const follower = make(false);
    await expect(follower.scale(rev, 2)).rejects.toMatchObject({ code: "ERR_NOT_LEADER" });
    await new Promise((r) => setTimeout(r, 100));
    expect(api.requests.filter((r) => r.method === "PATCH")).toHaveLength(0);
    follower.setLeading(true);
    await waitFor(() => replicas() === 2, "two replicas after taking over");
  });

  it("passes a Deployment's annotations to onDeployment", async () => {
    api.apply(
      "deployments",
      "apps",
      deployment({ name: "hello", replicas: 0, annotations: { "autoscaling.knative.dev/max-scale": "3" } }),
    );
    const seen: (Record<string, string> | undefined)[] = [];
    const scaler = new KubernetesScaler({
      kubeConfig: kubeConfigFor({ server: api.url }),
      clock: systemClock,
      onDeployment: (_r, d) => seen.push(d?.annotations),
    });
    scalers.push(scaler);
    scaler.register(target);
    await waitFor(() => seen.length > 0, "the Deployment");
    expect(seen.at(-1)).toEqual({ "autoscaling.knative.dev/max-scale": "3" });
  });

  it("folds the kubelet's Warning Events into the revision's problem: a failing probe, then a crash the status tells better", async () => {
    const problems = watchProblems(target);
    api.apply("pods", "apps", {
      metadata: { name: "hello-1", labels: { app: "hello" } },
      spec: { nodeName: "n1" },
      status: notReady({ state: running }),
    });
    const warning = (pod: string, reason: string, message: string, count: number, container?: string) => ({
      metadata: { name: `${pod}.${reason}` },
      involvedObject: {
        kind: "Pod",
        name: pod,
        namespace: "apps",
        ...(container ? { fieldPath: `spec.containers{${container}}` } : {}),
      },
      type: "Warning",
      reason,
      message,
      count,
      lastTimestamp: new Date().toISOString(),
    });
    // Another workload's pod in the same namespace: not this revision's problem.
    api.apply("events", "apps", warning("other-1", "FailedMount", 'secret "x" not found', 1));
    api.apply(
      "events",
      "apps",
      warning(
        "hello-1",
        "Unhealthy",
        "Readiness probe failed: HTTP probe failed with statuscode: 503",
        1,
        "queue-proxy",
      ),
    );
    api.apply(
      "events",
      "apps",
      warning(
        "hello-1",
        "Unhealthy",
        "Readiness probe failed: HTTP probe failed with statuscode: 503",
        4,
        "queue-proxy",
      ),
    );
    await waitFor(() => problems.at(-1)?.includes("(4 times)") === true, "the probe failures");
    expect(problems.at(-1)).toBe(
      "waiting: Readiness probe failed: HTTP probe failed with statuscode: 503 in container queue-proxy (4 times)",
    );
    expect(problems.some((p) => p.includes("other-1") || p.includes("secret"))).toBe(false);
    // The app exits: its status (exit code, last lines) says more than the kubelet's BackOff event.
    api.apply(
      "events",
      "apps",
      warning("hello-1", "BackOff", "Back-off restarting failed container", 2, "user-container"),
    );
    api.apply("pods", "apps", {
      metadata: { name: "hello-1", labels: { app: "hello" } },
      spec: { nodeName: "n1" },
      status: notReady(
        {
          state: { waiting: { reason: "CrashLoopBackOff" } },
          lastState: { terminated: { exitCode: 3, reason: "Error", message: "boom\n" } },
        },
        2,
      ),
    });
    await waitFor(() => problems.at(-1)?.startsWith("failing") === true, "the crash");
    expect(problems.at(-1)).toBe(
      "failing: app exited with code 3 before it was ready; last output: boom (crash loop: restarted 2 times)",
    );
    // The pod ready: nothing wrong any more.
    api.apply("pods", "apps", {
      metadata: { name: "hello-1", labels: { app: "hello" } },
      spec: { nodeName: "n1" },
      status: {
        conditions: [
          { type: "PodReadyToStartContainers", status: "True" },
          { type: "Ready", status: "True" },
        ],
        containerStatuses: [
          { name: "user-container", ready: true, restartCount: 3, state: running },
          { name: "queue-proxy", ready: true, restartCount: 0, state: running },
        ],
      },
    });
    await waitFor(() => problems.at(-1) === "none", "the problem cleared");
  });
  it("asks a pod never ready which port its app listens on: 8099 instead of $PORT is failing, named at once", async () => {
    // The pod's queue-proxy metrics port, as the real one answers Path.listening.
    let listening = [8099];
    const qp = createServer((req, res) => {
      if (req.url !== "/thaw/listening") return void res.writeHead(404).end();
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ userPort: 8080, listening }));
    });
    await new Promise<void>((r) => qp.listen(0, "127.0.0.1", r));
    try {
      const problems = watchProblems({ ...target, metricsPort: (qp.address() as AddressInfo).port });
      api.apply("pods", "apps", {
        metadata: { name: "hello-1", labels: { app: "hello" } },
        spec: { nodeName: "n1" },
        status: { podIP: "127.0.0.1", ...notReady({ state: running }) },
      });
      await waitFor(() => problems.at(-1)?.startsWith("failing") === true, "the port problem");
      expect(problems.at(-1)).toBe(
        "failing: app listens on 8099, not on $PORT=8080: read the port from the PORT environment variable",
      );
      // Fixed in place (it now listens on 8080 too): the problem goes.
      listening = [8080, 8099];
      await waitFor(() => problems.at(-1) === "none", "the problem cleared");
    } finally {
      qp.close();
    }
  });
});
