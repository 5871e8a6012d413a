/**
 * The cluster path end to end on loopback. NO REAL KUBERNETES API SERVER OR KUBELET RUNS HERE: the API
 * server is @thaw/kubernetes's EmulatedApiServer, written from the API's documented semantics, and the
 * kubelet is a stand-in (test/k8s/kubelet.ts) that runs the rendered Deployment's pods as real local
 * processes (examples/hello/server.mjs + thaw-queue-proxy with the rendered env) and writes their
 * EndpointSlices. Everything else is the real thing: `thaw k8s render`'s output for
 * examples/hello/thaw.k8s.yaml, two `thaw-autoscaler` processes electing a leader, `thaw-activator
 * --config`, `thaw-ingress-hook`, and nginx with infra/nginx/nginx.conf in front, each bin started with
 * its rendered args and env. Only addresses (loopback, free ports) and time windows are changed: the
 * autoscaler's stable window is 6 s, scale-to-zero grace 2 s, max-scale 3, the queue-proxy's drain quiet
 * period 2 s and the stand-in's probe period 250 ms, so the file takes about two minutes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ApiObject, EmulatedApiServer, waitFor } from "@thaw/kubernetes/node/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { httpGet } from "../../ingress-hook/test/support/http-get.js";
import {
  freePort,
  type NginxProcess,
  startNginxForHook,
} from "../../ingress-hook/test/support/nginx-process.js";
import { CONFIG_PATH } from "../src/k8s/options.js";
import { type LoggedChild, startNode, startOnFreePort } from "./k8s/child.js";
import { allObjects, exampleFiles, INFRA, type Obj, ROOT } from "./k8s/fixtures.js";
import { type PodTemplate, StandInKubelet } from "./k8s/kubelet.js";

type EnvVar = {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { key: string } };
};
type Spec = { template: { spec: PodTemplate & { containers: { args?: string[]; env?: EnvVar[] }[] } } };

const TOKEN = "e2e-token-0123456789abcdef0123456789";
const SECRET: Record<string, string> = { token: TOKEN, "route-token": "e2e-route-token" };
const SYS = "thaw-system";
const HOST = "hello.example.com";
const objects = allObjects(exampleFiles());
const find = (kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name) as Obj;

const work = mkdtempSync(join(tmpdir(), "thaw-k8s-e2e-"));
// The stand-in kubelet gives pods 127.0.0.x addresses, which a real API server refuses (422): accepted on
// purpose here, until this file runs on a real node (issue 25).
const api = new EmulatedApiServer({ token: TOKEN, bookmarkIntervalMs: 5000, acceptLoopbackEndpoints: true });
let kubelet: StandInKubelet;
let nginx: NginxProcess;
let nginxPort = 0;
let autoscalerPort = 0;
const autoscalers = new Map<string, { ip: string; run: LoggedChild }>();
const platform: LoggedChild[] = [];

/** A platform component's rendered args and env, with the cluster's addresses moved to loopback. */
function rendered(name: string, fields: Record<string, string>, replace: (a: string) => string) {
  const spec = find("Deployment", name).spec as Spec;
  const c = spec.template.spec.containers[0] as { args: string[]; env: EnvVar[] };
  const env: Record<string, string> = { KUBECONFIG: join(work, "kubeconfig") };
  for (const e of c.env) {
    const f = e.valueFrom?.fieldRef?.fieldPath;
    const k = e.valueFrom?.secretKeyRef?.key;
    env[e.name] = f ? (fields[f] as string) : k ? (SECRET[k] as string) : (e.value ?? "");
  }
  return { args: c.args.map((a) => (a === CONFIG_PATH ? join(work, "thaw.config.yaml") : replace(a))), env };
}

const deploymentNow = () => api.get("deployments", "apps", "hello") as ApiObject;
const replicas = () => (deploymentNow().spec as { replicas?: number }).replicas ?? 1;
const holder = () =>
  (api.get("leases", SYS, "thaw-autoscaler")?.spec as { holderIdentity?: string } | undefined)
    ?.holderIdentity;
function annotate(annotations: Record<string, string>): void {
  const cur = deploymentNow();
  api.apply("deployments", "apps", { ...cur, metadata: { ...cur.metadata, annotations } });
}
/** The Service's slice for the autoscaler replicas still alive (the EndpointSlice controller's part). */
function publishAutoscalers(): void {
  api.apply("endpointslices", SYS, {
    metadata: { name: "thaw-autoscaler-ipv4", labels: { "kubernetes.io/service-name": "thaw-autoscaler" } },
    addressType: "IPv4",
    ports: [{ name: "http", port: autoscalerPort, protocol: "TCP" }],
    endpoints: [...autoscalers].map(([pod, a]) => ({
      addresses: [a.ip],
      conditions: { ready: true },
      targetRef: { kind: "Pod", namespace: SYS, name: pod, uid: `uid-${pod}` },
    })),
  });
}
/** The leader's status API entry for hello. */
async function status(): Promise<{ readyPods: number; desiredScale: number; scaleError: unknown }> {
  const lead = autoscalers.get(holder() ?? "") ?? [...autoscalers.values()][0];
  const res = await fetch(`http://${lead?.ip}:${autoscalerPort}/v1/revisions`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  }).catch(() => undefined);
  // The leader may have just been killed: read as nothing known yet.
  if (!res) return { readyPods: -1, desiredScale: -1, scaleError: "unreachable" };
  const all = (await res.json()) as {
    name: string;
    readyPods: number;
    desiredScale: number;
    scaleError: unknown;
  }[];
  const hello = all.find((r) => r.name === "hello");
  if (!hello) throw new Error(`no hello in ${JSON.stringify(all)}`);
  return hello;
}
/** Polls an async condition every 100 ms (waitFor takes a synchronous one). */
async function until(cond: () => Promise<boolean>, what: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const get = () => httpGet(nginxPort, HOST, "/", {}, 60_000);
const readyPods = () => kubelet.running().filter((p) => p.ready).length;

beforeAll(async () => {
  await api.start();
  writeFileSync(join(work, "kubeconfig"), api.kubeconfigYaml());
  const dep = find("Deployment", "hello");
  const template = (dep.spec as Spec).template.spec;
  const svc = find("Service", "hello").spec as { ports: { name: string; targetPort: string }[] };
  kubelet = new StandInKubelet({
    api,
    token: TOKEN,
    namespace: "apps",
    deployment: "hello",
    template,
    service: { name: "hello", ports: svc.ports },
    cwd: ROOT,
    dualStack: true,
    probePeriodMs: 250,
    images: {
      "ghcr.io/thaw-dev/example-hello:0.1.0": {
        args: [join(ROOT, "examples/hello/server.mjs")],
        listensOn: "localhost",
      },
      "ghcr.io/thaw-dev/queue-proxy:0.1.0": {
        args: [join(ROOT, "apps/queue-proxy/dist/main.js")],
        listensOn: "podIP",
        // In a pod these are the image's fixed ports (8022, 9090, 9091); here they are mapped.
        extraEnv: (pod) => ({
          THAW_ADMIN_PORT: String(pod.ports.get(8022)),
          THAW_METRICS_PORT: String(pod.ports.get(9090)),
          THAW_USER_METRICS_PORT: String(pod.ports.get(9091)),
          THAW_BIND_HOST: pod.ip,
          THAW_CERTS_DIR: join(work, "no-certs"),
          THAW_DRAIN_QUIET_PERIOD_MS: "2000",
        }),
      },
    },
  });
  await kubelet.start();

  // The config the ConfigMap holds, with the test's windows and the emulator's kubeconfig.
  const config = parse(readFileSync(join(INFRA, "base/thaw.config.yaml"), "utf8")) as {
    autoscaler: Record<string, unknown>;
    services: { autoscaling: Record<string, unknown>; kubernetes: Record<string, unknown> }[];
  };
  config.autoscaler = { "stable-window": "6s", "scale-to-zero-grace-period": "2s" };
  const hello = config.services[0] as (typeof config.services)[0];
  hello.autoscaling["max-scale"] = 3;
  hello.kubernetes.kubeconfig = join(work, "kubeconfig");
  hello.kubernetes.metricsPort = kubelet.sharedPort(9090);
  writeFileSync(join(work, "thaw.config.yaml"), stringify(config));

  // The rendered Deployment as `kubectl apply` sends it; the API server defaults the absent replicas to 1.
  api.apply("deployments", "apps", { ...dep, spec: { ...(dep.spec as object), replicas: 1 } });

  autoscalerPort = await freePort();
  for (const [i, pod] of ["thaw-autoscaler-0", "thaw-autoscaler-1"].entries()) {
    const ip = `127.0.0.${2 + i}`;
    const { args, env } = rendered(
      "thaw-autoscaler",
      { "metadata.name": pod, "metadata.namespace": SYS },
      (a) => a.replace(/^0\.0\.0\.0:\d+$/, `${ip}:${autoscalerPort}`),
    );
    const run = startNode([join(ROOT, "apps/autoscaler/dist/main.js"), ...args], ROOT, env);
    autoscalers.set(pod, { ip, run });
    await run.waitFor(/thaw-autoscaler listening/, 45_000);
  }
  publishAutoscalers();
  const { port: activatorPort } = await startOnFreePort(
    freePort,
    (port) => {
      api.apply("endpointslices", SYS, {
        metadata: { name: "thaw-activator-ipv4", labels: { "kubernetes.io/service-name": "thaw-activator" } },
        addressType: "IPv4",
        ports: [{ name: "http", port, protocol: "TCP" }],
        endpoints: [
          {
            addresses: ["127.0.0.1"],
            conditions: { ready: true },
            targetRef: { kind: "Pod", name: "thaw-activator-0", uid: "uid-act-0" },
          },
        ],
      });
      const activator = rendered(
        "thaw-activator",
        { "metadata.name": "thaw-activator-0", "metadata.namespace": SYS, "status.podIP": "127.0.0.1" },
        (a) => (a === "8012" ? String(port) : a),
      );
      const act = startNode(
        [join(ROOT, "apps/activator/dist/node/main.js"), ...activator.args, "--host", "127.0.0.1"],
        ROOT,
        activator.env,
      );
      platform.push(act);
      return act;
    },
    /"listening"/,
    45_000,
  );
  const { port: hookPort } = await startOnFreePort(
    freePort,
    (port) => {
      const hook = rendered("thaw-ingress-hook", {}, (a) =>
        a
          .replace(/^0\.0\.0\.0:\d+$/, `127.0.0.1:${port}`)
          .replace(/^http:\/\/thaw-activator\.[^/]+$/, `http://127.0.0.1:${activatorPort}`),
      );
      const hk = startNode([join(ROOT, "apps/ingress-hook/dist/node/cli.js"), ...hook.args], ROOT, hook.env);
      platform.push(hk);
      return hk;
    },
    /thaw-ingress-hook listening on/,
    45_000,
  );
  ({ nginx, port: nginxPort } = await startNginxForHook(hookPort, activatorPort));
}, 120_000);

afterAll(async () => {
  await kubelet?.stop();
  for (const c of [...platform, ...[...autoscalers.values()].map((a) => a.run)]) c.child.kill("SIGKILL");
  await nginx?.stop();
  await api.close();
  rmSync(work, { recursive: true, force: true });
});

describe("the cluster path on loopback: emulated API server (no real API server), stand-in kubelet, real Thaw bins", () => {
  it("scales hello 0 -> N -> 0; 200 cold concurrent requests through nginx, the hook and the activator all get 200", async () => {
    // The API server defaulted replicas to 1; with no traffic the autoscaler takes it to 0.
    await waitFor(
      () => replicas() === 0 && kubelet.pods.size === 0,
      "idle hello to reach 0 pods",
      60_000,
    ).catch(async (e: Error) => {
      throw new Error(
        `${e.message}: replicas ${replicas()}, events ${JSON.stringify(kubelet.events)}, status ${JSON.stringify(await status())}`,
      );
    });
    let peak = 0;
    const watch = setInterval(() => {
      peak = Math.max(peak, replicas());
    }, 100);
    const answers = await Promise.all(Array.from({ length: 200 }, () => get().catch((e: Error) => e)));
    clearInterval(watch);
    const statuses = answers.map((a) => (a instanceof Error ? a.message : a.status));
    expect(
      statuses.filter((s) => s !== 200),
      `every cold request answered 200; the first: ${JSON.stringify(answers[0] instanceof Error ? answers[0].message : answers[0])}; peak ${peak} replicas`,
    ).toEqual([]);
    expect(answers.every((a) => !(a instanceof Error) && a.body.startsWith("hello from hello-"))).toBe(true);
    process.stderr.write(`k8s-e2e: 200 cold requests answered 200, peak ${peak} replicas\n`);
    expect(peak).toBeGreaterThanOrEqual(2);
    expect(peak).toBeLessThanOrEqual(3); // max-scale
    await waitFor(() => replicas() === 0 && kubelet.pods.size === 0, "back to 0 pods", 60_000);
  }, 180_000);

  it("a scale PATCH answered 500 then 409 is retried: the Deployment still reaches the desired count", async () => {
    const scale = /\/deployments\/hello\/scale$/;
    api.failNext({ method: "PATCH", path: scale }, { status: 500 });
    api.failNext({ method: "PATCH", path: scale }, { status: 409 });
    const from = api.requests.length;
    annotate({ "autoscaling.knative.dev/min-scale": "2" });
    await waitFor(() => replicas() === 2, "min-scale 2 despite the failures", 45_000);
    const patches = api.requests.slice(from).filter((r) => r.method === "PATCH" && scale.test(r.path));
    expect(patches.map((r) => r.status).slice(0, 3)).toEqual([500, 409, 200]);
    await waitFor(() => readyPods() === 2, "2 ready pods", 30_000);
    await until(async () => (await status()).readyPods === 2, "the status API to show 2 ready pods", 15_000);
    expect((await status()).scaleError).toBeNull();
  }, 90_000);

  it("a dual-stack Service (an IPv4 and an IPv6 slice for the same pods) counts each pod once", async () => {
    const v4 = api.get("endpointslices", "apps", "hello-ipv4") as { endpoints: unknown[] } & ApiObject;
    const v6 = api.get("endpointslices", "apps", "hello-ipv6") as { endpoints: unknown[] } & ApiObject;
    expect(v4.endpoints).toHaveLength(2);
    expect(v6.endpoints).toHaveLength(2);
    expect((await status()).readyPods).toBe(2);
    expect(replicas()).toBe(2);
  });

  it("cut watch streams: readyPods on the status API never drops", async () => {
    let low = Number.POSITIVE_INFINITY;
    let cut = 0;
    const deadline = Date.now() + 5000;
    let n = 0;
    while (Date.now() < deadline) {
      if (n++ % 15 === 0) cut += api.cutWatches("endpointslices");
      low = Math.min(low, (await status()).readyPods);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(cut).toBeGreaterThan(0);
    expect(low).toBe(2);
  }, 30_000);

  it("a pod drained with its preStop (as kubelet does) while requests are in flight loses no request", async () => {
    const victim = kubelet.running()[0]?.name as string;
    const inflight: Promise<number | string>[] = [];
    for (let i = 0; i < 40; i++) {
      inflight.push(
        get().then(
          (a) => a.status,
          (e: Error) => e.message,
        ),
      );
      if (i === 10) void kubelet.evict(victim);
      await new Promise((r) => setTimeout(r, 50));
    }
    const statuses = await Promise.all(inflight);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    await waitFor(() => !kubelet.pods.has(victim), `${victim} to be gone`, 45_000);
    const ev = kubelet.events.filter((e) => e.pod === victim).map((e) => e.what);
    const at = (w: string) => ev.indexOf(w);
    expect(at("preStop user-container answered 200")).toBeGreaterThan(at("SIGTERM queue-proxy"));
    expect(at("SIGTERM user-container")).toBeGreaterThan(at("preStop user-container answered 200"));
    expect(ev.some((w) => w.startsWith("SIGKILL"))).toBe(false);
    await waitFor(() => readyPods() === 2, "the Deployment's replacement pod to be ready", 30_000);
  }, 90_000);

  it("the leader autoscaler SIGKILLed: the follower takes the Lease and scales within 15 s (slack for load)", async () => {
    const leader = holder() as string;
    expect(autoscalers.has(leader)).toBe(true);
    const dead = autoscalers.get(leader) as { run: LoggedChild };
    dead.run.child.kill("SIGKILL");
    const killed = Date.now();
    await dead.run.exited;
    autoscalers.delete(leader);
    publishAutoscalers();
    annotate({ "autoscaling.knative.dev/min-scale": "3" });
    await waitFor(() => holder() !== leader && holder() !== "", "the follower to take the Lease", 30_000);
    const takeoverMs = Date.now() - killed;
    await waitFor(() => replicas() === 3, "the new leader to scale to min-scale 3", 30_000);
    const scaledMs = Date.now() - killed;
    process.stderr.write(`k8s-e2e: leader SIGKILL -> Lease taken ${takeoverMs} ms, scaled ${scaledMs} ms\n`);
    expect(takeoverMs).toBeLessThan(15_000 + 5_000);
    expect(scaledMs).toBeLessThan(15_000 + 10_000);
    await until(async () => (await status()).readyPods === 3, "3 ready pods on the new leader", 30_000);
  }, 90_000);
});
