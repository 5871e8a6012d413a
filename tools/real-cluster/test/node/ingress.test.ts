import { Agent } from "node:http";
import { printFigures } from "@thaw/bench-kit/overload";
import { type SseEvent, sseRead, wsOpen } from "@thaw/bench-kit/protocols";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../src/node/api.js";
import { type PodPhases, watchPodPhases } from "../../src/node/pod-phases.js";
import {
  DRAIN_QUIET_PERIOD,
  HELLO_HOST,
  installThawOnNode,
  type ThawOnNode,
} from "../../src/node/thaw-on-node.js";
import { eventually } from "../support.js";
import { burst, emptyLoad, oneRequest, percentile, steadyLoad, total } from "./load.js";
import { changeHelloTemplate, newestHelloHash } from "./rollout.js";

type Deployment = { spec: { replicas?: number }; status: { readyReplicas?: number } };
type Lease = { spec: { holderIdentity?: string } };

/** Concurrent requests of the cold burst: the 500 (see the README's figures for its duration). */
const BURST = 500;

// Items 4 and 5 of issue 25 on a real node: Debian's nginx running infra/nginx's config as the ingress,
// inside the node's namespace (where an ingress controller's pod would send from), asking the hook at its
// Service's ClusterIP and sending held requests to the activator's. The examples/hello service is rendered
// with 6 s autoscaler windows so a trip to zero takes seconds, not the example's 90 s. The tests run in
// order and each starts from where the one before left hello (warm, or at zero), to make few trips to zero.
describe("nginx → hook → activator when cold → the pod's queue-proxy, on a real node", () => {
  let thaw: ThawOnNode | undefined;
  const t = () => thaw as ThawOnNode;
  const cp = () => t().cluster.controlPlane;
  const url = () => t().nginx.url;
  const hello = async () =>
    (await api<Deployment>(cp(), "GET", "/apis/apps/v1/namespaces/apps/deployments/hello")) as Deployment;
  const helloPods = async () => (await t().pods("apps", "hello")).map((p) => p.metadata.name).join(", ");
  const atZero = (timeoutMs: number) =>
    eventually(
      async () => ((await t().pods("apps", "hello")).length === 0 ? true : undefined),
      timeoutMs,
      async () => `hello pods still there: ${await helloPods()}`,
    );
  const get = async (path = "/one", r = emptyLoad(), timeoutMs?: number) => {
    const agent = new Agent();
    await oneRequest(agent, `${url()}${path}`, HELLO_HOST, r, timeoutMs);
    agent.destroy();
    return r;
  };
  const live = async (ns: string, name: string) =>
    (await t().pods(ns, name)).filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name);
  /** Deletes `pod` at once (no grace: its processes are killed), as a node failure or an OOM kill would. */
  const kill = (ns: string, pod: string) =>
    t().kubectl(["-n", ns, "delete", "pod", pod, "--grace-period=0", "--force", "--wait=false"]);

  beforeAll(async () => {
    thaw = await installThawOnNode();
  }, 420_000);
  afterAll(async () => {
    await thaw?.stop();
  }, 120_000);

  it("warm: requests go nginx → the pod, never the activator; the kubelet runs the rendered probes", async () => {
    const t0 = Date.now();
    // The hook learns the pod over the activator's watch; until then its answers go through the activator.
    // Wait, bounded, for a round of requests that leaves the activator's count where it was.
    let last = emptyLoad();
    const cleanRound = async () => {
      const before = await t().activatorRequests();
      for (let i = 0; i < 5; i++) {
        last = await get();
        expect(last.lost).toEqual([]);
        if (last.byStatus[200] !== 1) return undefined;
      }
      return (await t().activatorRequests()) === before ? true : undefined;
    };
    const stillThrough = () =>
      `every round still went through the activator, or did not answer 200: ${last.refused.join(", ")}`;
    await eventually(cleanRound, 60_000, stillThrough);
    // Warm means after the wake has settled: the kubelet has counted the pod Ready (its EndpointSlice says
    // so too) and a round still leaves the activator out. A wake's first seconds may put the activator back
    // in the path for a moment (seen 1-2 requests of 20 on a loaded machine; cause not yet found).
    // A request each look keeps the revision wanted meanwhile: the kubelet may count the pod Ready only at
    // its next probe period (10 s after a first probe the app was too slow for, on a loaded machine), and an
    // idle hello is scaled to zero 12 s after its last request (6 s window, 6 s grace).
    await eventually(
      async () => {
        expect((await get("/keep-warm")).lost).toEqual([]);
        const pods = (await t().pods("apps", "hello")).filter((p) => !p.metadata.deletionTimestamp);
        const ready = (p: (typeof pods)[number]) =>
          p.status.conditions?.find((c) => c.type === "Ready")?.status === "True";
        return pods.length > 0 && pods.every(ready) ? true : undefined;
      },
      30_000,
      async () => `hello not Ready by the kubelet: ${await helloPods()}`,
    );
    await eventually(cleanRound, 30_000, stillThrough);
    const before = await t().activatorRequests();
    // Two clients, under the target of 3: one pod is enough, so no scale-up puts the activator in the path.
    const load = steadyLoad(url(), HELLO_HOST, 2);
    await new Promise((r) => setTimeout(r, 3000));
    load.stop();
    const r = await load.done;
    expect(r.lost).toEqual([]);
    expect(r.byStatus[200]).toBe(total(r));
    const through = (await t().activatorRequests()) - before;
    // When one went through the activator, the hooks' logs and watch counts say whether a watch dropped.
    const why = through === 0 ? "" : `\n${await t().diagnostics()}`;
    expect(through, `warm requests through the activator${why}`).toBe(0);
    // Ready through the kubelet's own probe of the queue-proxy (K-Network-Probe), never restarted. The pod
    // that served may be new (hello went to zero after the install): the activator probes it and serves it
    // before the kubelet's first passing probe, which its 10 s period may put seconds later.
    const served = [...r.pods][0] ?? "";
    const containers = await eventually(
      async () => {
        const pod = (await t().pods("apps", "hello")).find((p) => p.metadata.name === served);
        const ready = pod?.status.conditions?.find((c) => c.type === "Ready")?.status === "True";
        return ready ? pod?.status.containerStatuses : undefined;
      },
      30_000,
      async () => `${served} not Ready by the kubelet: ${await helloPods()}`,
    );
    expect(containers.map((c) => [c.name, c.ready, c.restartCount]).sort()).toEqual([
      ["queue-proxy", true, 0],
      ["user-container", true, 0],
    ]);
    printFigures("real-node/ingress-warm", {
      requests: r.byStatus,
      activatorRequests: (await t().activatorRequests()) - before,
      ms: Date.now() - t0,
    });
  }, 120_000);

  it("a rolling update of hello under load: none lost, the new ReplicaSet serves at the end", async () => {
    const t0 = Date.now();
    const old = new Set((await t().pods("apps", "hello")).map((p) => p.metadata.name));
    // Three clients, at the target: one pod (or two) serving while the Deployment replaces them.
    const load = steadyLoad(url(), HELLO_HOST, 3);
    let rolledMs = 0;
    let oldGoneMs = 0;
    try {
      // As a user ships a change: edit the render, apply the overlay again (no replicas in it: the
      // autoscaler's count stays).
      changeHelloTemplate(t().render, new Date(t0).toISOString());
      await t().kubectl(["apply", "-k", `${t().render}/overlays/dev`]);
      await t().kubectl(["-n", "apps", "rollout", "status", "deployment/hello", "--timeout=120s"]);
      rolledMs = Date.now() - t0;
      // Keep the load on until every old pod has drained and gone.
      await eventually(
        async () =>
          (await t().pods("apps", "hello")).some((p) => old.has(p.metadata.name)) ? undefined : true,
        120_000,
        async () => `old pods still there: ${await helloPods()}`,
      );
      oldGoneMs = Date.now() - t0;
    } finally {
      load.stop();
    }
    const r = await load.done;
    expect(r.lost).toEqual([]);
    const hash = await newestHelloHash(cp());
    const after = await get("/after-rollout");
    expect(after.lost).toEqual([]);
    expect([...after.pods][0]).toMatch(new RegExp(`^hello-${hash}-`));
    const servedByNew = [...r.pods].filter((p) => p.startsWith(`hello-${hash}-`));
    expect(servedByNew.length).toBeGreaterThan(0);
    printFigures("real-node/rolling-update-under-load", {
      requests: r.byStatus,
      oldPods: old.size,
      newPodsServing: servedByNew.length,
      p50: percentile(r, 50),
      p99: percentile(r, 99),
      rolledMs,
      oldGoneMs,
    });
  }, 300_000);

  it("a pod deleted under load: its requests drain or replay, none lost", async () => {
    const t0 = Date.now();
    const load = steadyLoad(url(), HELLO_HOST, 12);
    let victim: string | undefined;
    try {
      // 12 clients against containerConcurrency 4, target 3: the autoscaler wants several pods.
      await eventually(
        async () => ((await hello()).status.readyReplicas ?? 0) >= 2 || undefined,
        90_000,
        async () => `readyReplicas ${(await hello()).status.readyReplicas}`,
      );
      victim = (await t().pods("apps", "hello")).find((p) => !p.metadata.deletionTimestamp)?.metadata.name;
      await t().kubectl(["-n", "apps", "delete", "pod", victim ?? "", "--wait=false"]);
      // Keep the load on while it drains and its endpoint leaves.
      await eventually(
        async () =>
          (await t().pods("apps", "hello")).some((p) => p.metadata.name === victim) ? undefined : true,
        90_000,
        () => `${victim} still there`,
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
      p50: percentile(r, 50),
      p99: percentile(r, 99),
      ms: Date.now() - t0,
    });
  }, 200_000);

  it("streams drain whole: an SSE stream and a websocket open through nginx when their pod is deleted", async () => {
    // Longer than the drain's quiet period, so each stream outlasts it and the queue-proxy's wait for
    // requests (and upgraded connections) in flight is what keeps it whole.
    const n = 24;
    const gapMs = 500;
    const quietMs = Number.parseInt(DRAIN_QUIET_PERIOD, 10) * 1000;
    expect(n * gapMs).toBeGreaterThan(quietMs + 3000);
    expect((await get("/before-streams")).lost).toEqual([]);
    await eventually(
      async () => ((await hello()).status.readyReplicas ?? 0) >= 1 || undefined,
      60_000,
      async () => `readyReplicas ${(await hello()).status.readyReplicas}`,
    );
    const target = { origin: url(), host: HELLO_HOST, timeoutMs: 60_000 };
    let first!: () => void;
    const firstEvent = new Promise<void>((r) => {
      first = r;
    });
    const events: SseEvent[] = [];
    const sse = sseRead({
      ...target,
      n,
      gapMs,
      onEvent: (e) => {
        events.push(e);
        first();
      },
    });
    const ws = await wsOpen({ ...target, path: "/ws" });
    expect(ws.pid).toBeDefined();
    const echoes: string[] = [await ws.send("0")];
    await firstEvent;
    const victims = [...new Set([events[0]?.data.pid, ws.pid])].filter((p): p is string => Boolean(p));
    expect(victims.length).toBeGreaterThan(0);
    const t0 = Date.now();
    for (const v of victims) await t().kubectl(["-n", "apps", "delete", "pod", v, "--wait=false"]);
    let sseDoneMs = 0;
    let wsDoneMs = 0;
    const wsRun = (async () => {
      for (let i = 1; i < n; i++) {
        await new Promise((r) => setTimeout(r, gapMs));
        echoes.push(await ws.send(String(i)));
      }
      wsDoneMs = Date.now() - t0;
    })();
    const sseRun = sse.then((g) => {
      sseDoneMs = Date.now() - t0;
      return g;
    });
    const [got] = await Promise.all([sseRun, wsRun]);
    ws.close();
    // Both ended whole while their pods were still on their way out.
    const terminating = (await t().pods("apps", "hello"))
      .filter((p) => victims.includes(p.metadata.name))
      .map((p) => Boolean(p.metadata.deletionTimestamp));
    expect(got.status).toBe(200);
    expect(got.events.map((e) => [e.id, e.data.i])).toEqual(
      Array.from({ length: n }, (_, i) => [String(i), i]),
    );
    expect(new Set(got.events.map((e) => e.data.pid)).size).toBe(1);
    expect(got.rest).toBe("");
    expect(echoes).toEqual(Array.from({ length: n }, (_, i) => String(i)));
    expect(Math.min(sseDoneMs, wsDoneMs)).toBeGreaterThan(quietMs);
    await eventually(
      async () =>
        (await t().pods("apps", "hello")).some((p) => victims.includes(p.metadata.name)) ? undefined : true,
      90_000,
      async () => `deleted pods still there: ${await helloPods()}`,
    );
    printFigures("real-node/streams-drained-on-delete", {
      events: got.events.length,
      echoes: echoes.length,
      podsDeleted: victims.length,
      stillTerminatingAtEnd: terminating,
      sseDoneMs,
      wsDoneMs,
      podsGoneMs: Date.now() - t0,
    });
  }, 200_000);

  it("cold: a request after scale to zero wakes a pod through the activator, once", async () => {
    const t0 = Date.now();
    await atZero(120_000);
    const zeroMs = Date.now() - t0;
    const before = await t().activatorRequests();
    const t1 = Date.now();
    const r = await get();
    const coldMs = Date.now() - t1;
    expect(r.lost).toEqual([]);
    expect(r.byStatus[200]).toBe(1);
    expect((await t().activatorRequests()) - before).toBe(1);
    printFigures("real-node/ingress-cold", { zeroMs, coldMs });
  }, 200_000);

  it(`cold burst of ${BURST} at once: 0 → N → 0, none lost (200, or 503 with Retry-After)`, async () => {
    await atZero(120_000);
    let maxPods = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        maxPods = Math.max(maxPods, (await hello()).status.readyReplicas ?? 0);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const t1 = Date.now();
    const r = await burst(url(), HELLO_HOST, BURST).finally(() => {
      watching = false;
    });
    const burstMs = Date.now() - t1;
    await watcher;
    expect(r.lost).toEqual([]);
    expect(total(r)).toBe(BURST);
    expect(r.byStatus[200]).toBeGreaterThan(0);
    // 0 → N: several pods answered. The Deployment's readyReplicas is only a figure: the activator probes
    // new pods itself and serves them before the kubelet's 10 s probe period marks them Ready (on a loaded
    // machine a sample every 250 ms saw 1 ready while more pods answered).
    expect(r.pods.size).toBeGreaterThan(1);
    const t2 = Date.now();
    await atZero(120_000);
    printFigures(`real-node/ingress-cold-burst-${BURST}`, {
      requests: r.byStatus,
      podsAnswering: r.pods.size,
      maxReady: maxPods,
      p50: percentile(r, 50),
      p99: percentile(r, 99),
      burstMs,
      backToZeroMs: Date.now() - t2,
    });
  }, 300_000);

  it("kubectl scale from outside is put back by the autoscaler", async () => {
    await atZero(120_000);
    await t().kubectl(["-n", "apps", "scale", "deployment/hello", "--replicas=3"]);
    const t1 = Date.now();
    await eventually(
      async () => ((await hello()).spec.replicas === 0 ? true : undefined),
      60_000,
      async () => `spec.replicas still ${(await hello()).spec.replicas}`,
    );
    const putBackMs = Date.now() - t1;
    await atZero(120_000);
    printFigures("real-node/kubectl-scale-fought", { putBackMs });
  }, 300_000);

  it("the activator pod killed as a cold start begins: held requests get 200 or 503 + Retry-After, the woken app is served through the gap, then the replacement wakes hello", async () => {
    await atZero(120_000);
    const [old] = await live("thaw-system", "thaw-activator");
    expect(old).toBeDefined();
    // A cold burst wakes hello; the activator is killed as soon as the first request through it is
    // answered, with the rest held in its queue or on their way through it (4 at a time per pod).
    const r = emptyLoad();
    const held = burst(url(), HELLO_HOST, 60, r);
    await eventually(
      async () => (r.byStatus[200] || total(r) === 60 ? true : undefined),
      90_000,
      () => `no answer yet: ${JSON.stringify(r.byStatus)}`,
    );
    const t0 = Date.now();
    await kill("thaw-system", old as string);
    // The replacement's phases by watch, from the kill (the old pod's object is already gone).
    const phases = watchPodPhases(
      cp(),
      "thaw-system",
      "app.kubernetes.io/name=thaw-activator",
      "thaw-activator",
      t0,
    );
    let replacement: PodPhases | undefined;
    phases.done.then(
      (v) => {
        replacement = v;
      },
      () => {},
    );
    // Through the gap, one request after another (4 a second, each bounded at 20 s: a hang fails as
    // status 0), until one sent after the replacement is in its Service's endpoints is answered 200.
    const gap = emptyLoad();
    const sent: string[] = [];
    let after: number | undefined;
    try {
      while (sent.length < 400 && Date.now() - t0 < 120_000) {
        const at = Date.now() - t0;
        const inService = replacement !== undefined;
        const before = gap.byStatus[200] ?? 0;
        await get(`/gap/${sent.length}`, gap, 20_000);
        sent.push(`${at}+${gap.ms.at(-1)}:${(gap.byStatus[200] ?? 0) > before ? 200 : "x"}`);
        if (inService && (gap.byStatus[200] ?? 0) > before) {
          after = at;
          break;
        }
        await new Promise((res) => setTimeout(res, 250));
      }
    } finally {
      phases.stop();
    }
    await held;
    console.log(`activator gap: ${JSON.stringify(replacement)} ${sent.join(" ")} ${gap.refused.join(" | ")}`);
    // A loss names its hop: nginx's error log says whether the activator or the pod cut it.
    const why = r.lost.length + gap.lost.length > 0 ? `\n${await t().diagnostics()}` : "";
    expect(r.lost, why).toEqual([]);
    expect(gap.lost, why).toEqual([]);
    // hello's pod is up: the hook serves it from the pods it last saw ready, with the activator gone and
    // its warm entry long stale (before: 503 ERR_UPSTREAM from 2 s after the hook's watch dropped).
    expect(gap.byStatus).toEqual({ 200: sent.length });
    expect(after).toBeDefined();
    expect(await live("thaw-system", "thaw-activator")).not.toContain(old);
    // At zero again, a cold request wakes hello through the replacement.
    await atZero(120_000);
    const cold = await get("/cold-after-replacement");
    expect(cold.lost).toEqual([]);
    expect(cold.byStatus[200]).toBe(1);
    printFigures("real-node/activator-killed-at-cold-start", {
      held: r.byStatus,
      gap: gap.byStatus,
      maxAnswerMs: Math.max(...r.ms, ...gap.ms),
      replacementReadyMs: replacement?.ready,
      inServiceMs: replacement?.endpoints,
      first200AfterMs: after,
      coldAfterMs: cold.ms[0],
    });
  }, 300_000);

  it("the autoscaler leader's pod killed: another replica takes the Lease and the next cold request wakes", async () => {
    await t().kubectl(["-n", "thaw-system", "scale", "deployment/thaw-autoscaler", "--replicas=2"]);
    await t().kubectl([
      "-n",
      "thaw-system",
      "rollout",
      "status",
      "deployment/thaw-autoscaler",
      "--timeout=90s",
    ]);
    const holder = async () =>
      (
        await api<Lease>(
          cp(),
          "GET",
          "/apis/coordination.k8s.io/v1/namespaces/thaw-system/leases/thaw-autoscaler",
        )
      )?.spec.holderIdentity;
    const leader = await eventually(holder, 30_000, () => "no autoscaler holds the Lease");
    const follower = (await t().pods("thaw-system", "thaw-autoscaler")).find(
      (p) => p.metadata.name !== leader && !p.metadata.deletionTimestamp,
    )?.metadata.name;
    expect(follower).toBeDefined();
    const t0 = Date.now();
    await kill("thaw-system", leader);
    const newLeader = await eventually(
      async () => {
        const h = await holder();
        return h && h !== leader ? h : undefined;
      },
      60_000,
      async () => `the Lease still names ${await holder()}`,
    );
    const takeoverMs = Date.now() - t0;
    await atZero(120_000);
    const r = await get();
    expect(r.lost).toEqual([]);
    expect(r.byStatus[200]).toBe(1);
    printFigures("real-node/autoscaler-leader-killed", {
      takeoverMs,
      byStandingFollower: newLeader === follower,
      coldAfterMs: Date.now() - t0,
    });
  }, 300_000);
});
