import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { LocalCoordinator } from "./local-coordinator.js";
import { StaticEndpointSource } from "./static-sources.js";
import { Telemetry } from "./telemetry.js";

const KEY = { namespace: "default", name: "r1" };
const CONFIG = {
  containerConcurrency: 1,
  timeoutSeconds: 300,
  responseStartTimeoutSeconds: 0,
  idleTimeoutSeconds: 0,
  maxQueue: 10,
  bodyBufferCap: 1024,
};

/** Pods answer the queue probe only once listed in `up`. */
function setup() {
  const clock = new ManualClock(1_000_000);
  const up = new Set<string>();
  const probed: string[] = [];
  const fetch = async (url: string) => {
    const dest = new URL(url).host;
    probed.push(dest);
    return up.has(dest) ? new Response("queue") : new Response("", { status: 503 });
  };
  const endpoints = new StaticEndpointSource();
  const pokes: string[] = [];
  const telemetry = new Telemetry();
  const coordinator = new LocalCoordinator({
    endpoints,
    clock,
    fetch,
    telemetry,
    scaler: { poke: (k) => pokes.push(`${k.namespace}/${k.name}`) },
  });
  return { clock, up, probed, endpoints, pokes, telemetry, coordinator, gate: coordinator.gate(KEY, CONFIG) };
}

describe("LocalCoordinator (over @thaw/activation)", () => {
  it("a cold revision: one poke, waiters admitted when a listed pod passes the probe, phases recorded", async () => {
    const { clock, up, endpoints, pokes, telemetry, coordinator, gate } = setup();
    const ac = new AbortController();
    const a = gate.acquire(ac.signal);
    const b = gate.acquire(ac.signal);
    const activated = gate.activate(5000);
    expect(pokes).toEqual(["default/r1"]);
    // Two proxied requests and one /v1/activate caller wait: the queue-depth gauge reads 3.
    expect([...coordinator.queueDepths()]).toEqual([{ ...KEY, waiting: 3 }]);
    await clock.advance(700);
    endpoints.set(KEY, ["10.0.0.1:8012"]); // listed, not yet answering
    await clock.advance(100);
    expect(gate.readyEndpoints()).toEqual([]);
    up.add("10.0.0.1:8012");
    await clock.advance(15); // the next probe while waking
    expect(gate.readyEndpoints()).toEqual(["10.0.0.1:8012"]);
    const la = await a;
    expect(la.dest).toBe("10.0.0.1:8012");
    expect(await activated).toMatchObject({ endpoints: ["10.0.0.1:8012"], coldStart: true });
    // containerConcurrency 1: the second waits for the first to finish.
    let bDone = false;
    void b.then(() => {
      bDone = true;
    });
    await clock.advance(0);
    expect(bDone).toBe(false);
    expect([...coordinator.queueDepths()]).toEqual([{ ...KEY, waiting: 1 }]);
    la.release();
    (await b).release();
    expect([...coordinator.queueDepths()]).toEqual([{ ...KEY, waiting: 0 }]);
    expect(pokes).toHaveLength(1);
    const phases = gate.lastColdStart();
    expect(phases).toMatchObject({ beganAt: 1_000_000, scaleMs: 700 });
    expect((phases?.readyMs ?? 0) + (phases?.scaleMs ?? 0)).toBeGreaterThanOrEqual(800);
    expect(telemetry.snapshot().coldStarts).toBe(1);
    expect(gate.recentColdStartsMs()).toHaveLength(1);
  });

  it("a pod that failed a forward is kept out until a direct probe passes again", async () => {
    const { clock, up, endpoints, gate } = setup();
    for (const d of ["a:1", "b:1"]) up.add(d);
    endpoints.set(KEY, ["a:1", "b:1"]);
    await clock.advance(1);
    expect(gate.readyEndpoints()).toEqual(["a:1", "b:1"]);
    up.delete("a:1");
    gate.reportFailure("a:1");
    expect(gate.readyEndpoints()).toEqual(["b:1"]);
    await clock.advance(500);
    expect(gate.readyEndpoints()).toEqual(["b:1"]);
    up.add("a:1");
    await clock.advance(1000);
    expect(gate.readyEndpoints()).toEqual(["a:1", "b:1"]);
  });

  it("activate times out with ERR_DEADLINE while nothing gets ready", async () => {
    const { clock, gate } = setup();
    const p = gate.activate(300);
    const caught = p.catch((e: { code?: string }) => e.code);
    await clock.advance(300);
    expect(await caught).toBe("ERR_DEADLINE");
  });

  it("a failing revision answers its waiters and every later request at once, until it is well again", async () => {
    const { clock, up, endpoints, gate } = setup();
    const code = (p: Promise<unknown>) =>
      p.then(
        () => "served",
        (e: { code?: string; message?: string; retryAfterSeconds?: number }) =>
          `${e.code} ${e.message} ${e.retryAfterSeconds}`,
      );
    const held = code(gate.activate(300_000));
    const ac = new AbortController();
    const proxied = code(gate.acquire(ac.signal));
    gate.fail?.("app exited with code 3 before it was ready", 8);
    const failed = "ERR_REVISION_FAILED app exited with code 3 before it was ready";
    expect([await held, await proxied]).toEqual([`${failed} 8`, `${failed} 8`]);
    // Later requests, 3 s on: answered now (not held), Retry-After the time left until the next start.
    const now = (p: Promise<unknown>) =>
      Promise.race([code(p), new Promise((r) => setImmediate(() => r("still held")))]);
    await clock.advance(3000);
    expect(await now(gate.activate(300_000))).toBe(`${failed} 5`);
    expect(await now(gate.acquire(ac.signal))).toBe(`${failed} 5`);
    // The scaler sees it start again (no longer failing): requests wait for the pod as usual.
    gate.explain?.("app is running but has not listened on $PORT yet");
    const waiting = code(gate.activate(300_000));
    endpoints.set(KEY, ["10.0.0.1:8012"]);
    up.add("10.0.0.1:8012");
    await clock.advance(15);
    expect(await waiting).toBe("served");
    // Failing again, but a pod serves: requests go to it.
    gate.fail?.("app exited with code 3 before it was ready");
    expect(await code(gate.activate(1000))).toBe("served");
  });

  it("/v1/activate waiters are bounded by maxQueue", async () => {
    const { clock, coordinator } = setup();
    const gate = coordinator.gate(KEY, { ...CONFIG, maxQueue: 2 });
    const waits = [gate.activate(1000), gate.activate(1000)].map((p) =>
      p.catch((e: { code?: string }) => e.code),
    );
    await expect(gate.activate(1000)).rejects.toMatchObject({ code: "ERR_QUEUE_FULL" });
    await clock.advance(1000);
    expect(await Promise.all(waits)).toEqual(["ERR_DEADLINE", "ERR_DEADLINE"]);
  });

  it("tells watchers about endpoint changes", async () => {
    const { clock, up, endpoints, coordinator } = setup();
    const seen: string[][] = [];
    coordinator.onEndpoints((_k, eps) => seen.push(eps));
    up.add("p:1");
    endpoints.set(KEY, ["p:1"]);
    await clock.advance(1);
    endpoints.set(KEY, []);
    await clock.advance(1);
    expect(seen).toEqual([["p:1"], []]);
    coordinator.close();
  });
});

describe("LocalCoordinator: the ClusterIP fallback (d.3) through the throttler", () => {
  it("mesh answers from every pod: routes through the ClusterIP with capacity CC x ready endpoints", async () => {
    const { clock, up, probed, endpoints, coordinator } = setup();
    const cc3 = coordinator.gate(KEY, { ...CONFIG, containerConcurrency: 3 });
    const pods = ["10.0.0.1:8012", "10.0.0.2:8012", "10.0.0.3:8012"];
    up.add("10.96.0.9:8080");
    endpoints.set(KEY, pods, { clusterIP: "10.96.0.9:8080", notReady: ["10.0.0.3:8012"] });
    for (let i = 0; i < 5; i++) await clock.advance(10);
    expect(probed).toContain("10.96.0.9:8080");
    expect(cc3.readyEndpoints()).toEqual(["10.96.0.9:8080"]);
    const leases = [cc3.tryAcquire?.(), cc3.tryAcquire?.(), cc3.tryAcquire?.()];
    expect(leases.map((l) => l?.dest)).toEqual(["10.96.0.9:8080", "10.96.0.9:8080", "10.96.0.9:8080"]);
    // Two ready endpoints x containerConcurrency 3 = 6 at once.
    for (let i = 0; i < 3; i++) expect(cc3.tryAcquire?.()?.dest).toBe("10.96.0.9:8080");
    expect(cc3.tryAcquire?.()).toBeUndefined();
    // No ready endpoint left behind it: no capacity.
    endpoints.set(KEY, ["10.0.0.3:8012"], { clusterIP: "10.96.0.9:8080", notReady: ["10.0.0.3:8012"] });
    expect(cc3.readyEndpoints()).toEqual([]);
    coordinator.close();
  });
});
