import { ManualClock } from "@thaw/clock/testing";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { IngressHook } from "./decision/hook.js";
import { hostTableResolver } from "./decision/resolvers.js";
import { type ThawIngressVariables, thawIngress } from "./middleware.js";
import { FakeActivatorClient } from "./testing/fake-activator-client.js";

function gateway(internalHeaders: "strip" | "reject" = "strip", activatorUpstream?: string) {
  const clock = new ManualClock(0);
  const activator = new FakeActivatorClient();
  const hook = new IngressHook({
    clock,
    activator,
    internalHeaders,
    random: () => 0.5,
    ...(activatorUpstream ? { activatorUpstream } : {}),
    resolvers: [hostTableResolver([{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }])],
  });
  const app = new Hono<{ Variables: ThawIngressVariables }>();
  app.use("*", thawIngress({ hook, setUpstreamHeader: true }));
  // The "origin": echoes what reached it.
  app.all("*", (c) =>
    c.json({ headers: Object.fromEntries(c.req.raw.headers), thaw: c.var.thaw, path: c.req.path }),
  );
  return { app, hook, activator, clock };
}

describe("thawIngress middleware", () => {
  it("holds a cold request until the activation, then passes warm ones with no activator call", async () => {
    const { app, activator } = gateway();
    const cold = app.request("http://hello.localhost/a");
    await Promise.resolve();
    await new Promise((r) => setImmediate(r));
    expect(activator.answer({ kind: "ready", endpoints: ["10.0.0.1:8012"], coldStart: true })).toBe(1);
    const r1 = await cold;
    expect(r1.status).toBe(200);
    expect(((await r1.json()) as { thaw: { warm: boolean } }).thaw.warm).toBe(false);
    const r2 = await app.request("http://hello.localhost/b");
    const body = (await r2.json()) as {
      thaw: { warm: boolean; upstream: string };
      headers: Record<string, string>;
    };
    expect(body.thaw).toMatchObject({ warm: true, upstream: "10.0.0.1:8012" });
    expect(body.headers["x-thaw-upstream"]).toBe("10.0.0.1:8012");
    expect(activator.calls).toHaveLength(1);
  });

  it("sends a request held while cold on to the activator, with its revision headers set by the hook", async () => {
    const { app, activator } = gateway("strip", "activator.internal:0");
    const cold = app.request("http://hello.localhost/a", {
      headers: { "knative-serving-revision": "spoofed", "knative-serving-namespace": "spoofed" },
    });
    await new Promise((r) => setImmediate(r));
    activator.answer({ kind: "ready", endpoints: ["10.0.0.1:8012"], coldStart: true });
    const body = (await (await cold).json()) as {
      thaw: { via: string; upstream: string };
      headers: Record<string, string>;
    };
    expect(body.thaw).toMatchObject({ via: "activator", upstream: "activator.internal:0" });
    expect(body.headers["knative-serving-namespace"]).toBe("default");
    expect(body.headers["knative-serving-revision"]).toBe("hello");
    const warm = (await (await app.request("http://hello.localhost/b")).json()) as {
      thaw: { via: string };
      headers: Record<string, string>;
    };
    expect(warm.thaw.via).toBe("pod");
    expect(warm.headers["knative-serving-revision"]).toBeUndefined();
  });

  it("strips every internal header before the origin", async () => {
    const { app, hook, clock } = gateway();
    hook.cache.recordActivation("default/hello", ["10.0.0.1:8012"], clock.now());
    const r = await app.request("http://hello.localhost/", {
      headers: {
        "k-network-probe": "queue",
        "k-network-hash": "override",
        "k-proxy-request": "activator",
        "k-original-host": "x",
        "knative-serving-revision": "other",
        "knative-serving-namespace": "other",
        "x-thaw-upstream": "1.2.3.4:1",
        "x-keep": "yes",
      },
    });
    const seen = Object.keys(((await r.json()) as { headers: Record<string, string> }).headers);
    expect(seen.filter((h) => /^(k-|knative-)/.test(h))).toEqual([]);
    expect(seen).toContain("x-keep");
  });

  it("reject mode answers 400 for an outside internal header", async () => {
    const { app, hook, clock } = gateway("reject");
    hook.cache.recordActivation("default/hello", ["10.0.0.1:8012"], clock.now());
    const r = await app.request("http://hello.localhost/", { headers: { "k-network-probe": "queue" } });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("ERR_BAD_REQUEST");
  });

  const denials = [
    { name: "unknown host -> 404", host: "nobody.localhost", outcome: undefined, status: 404, retry: null },
    {
      name: "activation timeout -> 503 + Retry-After",
      host: "hello.localhost",
      outcome: { kind: "timeout" as const, retryAfterSeconds: 3, message: "slow" },
      status: 503,
      retry: "3",
    },
    {
      name: "activator failing in a way waiting does not fix -> 503 without Retry-After",
      host: "hello.localhost",
      outcome: { kind: "unavailable" as const, message: "activator unreachable" },
      status: 503,
      retry: null,
    },
    {
      name: "activator unreachable (down or restarting) -> 503 + Retry-After",
      host: "hello.localhost",
      outcome: { kind: "unavailable" as const, message: "activator unreachable", transient: true as const },
      status: 503,
      retry: "1",
    },
  ];
  for (const row of denials) {
    it(row.name, async () => {
      const { app, activator } = gateway();
      const p = app.request(`http://${row.host}/`);
      await new Promise((r) => setImmediate(r));
      if (row.outcome) activator.answer(row.outcome);
      const r = await p;
      expect(r.status).toBe(row.status);
      expect(r.headers.get("retry-after")).toBe(row.retry);
    });
  }
});

describe("thawIngress without an activator route: held requests released at the pods' capacity", () => {
  function throttled(maxQueue = 10_000, holdTickMs?: number) {
    const clock = new ManualClock(0);
    const activator = new FakeActivatorClient();
    const hook = new IngressHook({
      clock,
      activator,
      random: () => 0.5,
      containerConcurrencyFor: () => 1,
      maxQueue,
      resolvers: [hostTableResolver([{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }])],
    });
    const running = new Set<string>();
    const order: string[] = [];
    let most = 0;
    const gates: (() => void)[] = [];
    const app = new Hono<{ Variables: ThawIngressVariables }>();
    app.use("*", thawIngress({ hook, ...(holdTickMs ? { holdTickMs } : {}) }));
    // The "origin": counts requests in flight per pod and finishes each when the test says so.
    app.all("*", async (c) => {
      const pod = c.var.thaw.upstream as string;
      order.push(c.req.path);
      running.add(c.req.path);
      most = Math.max(most, running.size);
      await new Promise<void>((r) => gates.push(r));
      running.delete(c.req.path);
      return c.json({ pod });
    });
    const settle = () => new Promise((r) => setImmediate(r));
    // The client reads each answer to its end, as a real one does: the slot is kept until then.
    const get = async (path: string) => {
      const r = await app.request(`http://hello.localhost${path}`);
      return { status: r.status, headers: r.headers, body: await r.text() };
    };
    return { app, activator, order, gates, most: () => most, settle, get };
  }

  it("containerConcurrency 1 on 2 pods: 2 at a time, first come first served, all answered", async () => {
    const t = throttled();
    const answers = Array.from({ length: 6 }, (_, i) => t.get(`/r${i}`));
    await t.settle();
    t.activator.answer({ kind: "ready", endpoints: ["10.0.0.1:8012", "10.0.0.2:8012"], coldStart: true });
    for (let round = 0; round < 20 && t.order.length < 6; round++) {
      await t.settle();
      t.gates.shift()?.();
    }
    while (t.gates.length > 0) t.gates.shift()?.();
    const res = await Promise.all(answers);
    expect(res.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(t.order).toEqual(["/r0", "/r1", "/r2", "/r3", "/r4", "/r5"]);
    expect(t.most()).toBe(2);
    const pods = new Set(res.map((r) => (JSON.parse(r.body) as { pod: string }).pod));
    expect(pods).toEqual(new Set(["10.0.0.1:8012", "10.0.0.2:8012"]));
  });

  it("with holdTickMs (the Workers keep-alive timer), the same release: first come first served, 1 at a time", async () => {
    const t = throttled(10_000, 5);
    const answers = Array.from({ length: 4 }, (_, i) => t.get(`/t${i}`));
    await t.settle();
    t.activator.answer({ kind: "ready", endpoints: ["10.0.0.1:8012"], coldStart: true });
    for (let round = 0; round < 200 && t.order.length < 4; round++) {
      await new Promise((r) => setTimeout(r, 2));
      t.gates.shift()?.();
    }
    while (t.gates.length > 0) t.gates.shift()?.();
    const res = await Promise.all(answers);
    expect(res.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(t.order).toEqual(["/t0", "/t1", "/t2", "/t3"]);
    expect(t.most()).toBe(1);
  });

  it("past maxQueue waiters, the excess gets 503 + Retry-After", async () => {
    const t = throttled(2);
    const answers = Array.from({ length: 5 }, (_, i) => t.get(`/q${i}`));
    await t.settle();
    t.activator.answer({ kind: "ready", endpoints: ["10.0.0.1:8012"], coldStart: true });
    for (let round = 0; round < 20 && t.order.length < 3; round++) {
      await t.settle();
      t.gates.shift()?.();
    }
    while (t.gates.length > 0) t.gates.shift()?.();
    const res = await Promise.all(answers);
    // One on the pod, two waiting, two refused.
    expect(res.map((r) => r.status).sort()).toEqual([200, 200, 200, 503, 503]);
    for (const r of res.filter((x) => x.status === 503)) expect(r.headers.get("retry-after")).toBe("1");
    expect(t.most()).toBe(1);
  });

  it("a warm request arriving while held ones wait queues behind them instead of overtaking them", async () => {
    const t = throttled();
    const held = Array.from({ length: 3 }, (_, i) => t.get(`/h${i}`));
    await t.settle();
    t.activator.answer({ kind: "ready", endpoints: ["10.0.0.1:8012"], coldStart: true });
    await t.settle();
    // The revision is warm in the cache now; this one comes late, as on a loaded machine.
    const late = t.get("/late");
    for (let round = 0; round < 40 && t.order.length < 4; round++) {
      await t.settle();
      t.gates.shift()?.();
    }
    while (t.gates.length > 0) t.gates.shift()?.();
    const res = await Promise.all([...held, late]);
    expect(res.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(t.order).toEqual(["/h0", "/h1", "/h2", "/late"]);
    expect(t.most()).toBe(1);
    expect(t.activator.calls).toHaveLength(1);
  });

  it("a slot is kept until the response's body has ended, not when its head arrives", async () => {
    const activator = new FakeActivatorClient();
    const hook = new IngressHook({
      clock: new ManualClock(0),
      activator,
      random: () => 0.5,
      containerConcurrencyFor: () => 1,
      resolvers: [hostTableResolver([{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }])],
    });
    const reached: string[] = [];
    const bodies: ReadableStreamDefaultController<Uint8Array>[] = [];
    const app = new Hono<{ Variables: ThawIngressVariables }>();
    app.use("*", thawIngress({ hook }));
    // The "origin" answers its head at once and its body when the test says so (a pod still sending).
    app.all("*", (c) => {
      reached.push(c.req.path);
      return new Response(new ReadableStream<Uint8Array>({ start: (ctl) => void bodies.push(ctl) }));
    });
    const settle = async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    };
    const first = app.request("http://hello.localhost/a");
    const second = app.request("http://hello.localhost/b");
    await settle();
    activator.answer({ kind: "ready", endpoints: ["10.0.0.1:8012"], coldStart: true });
    const head = await first;
    expect(head.status).toBe(200);
    const reading = head.text();
    await settle();
    // The first response has started, its body has not ended: the pod is still busy.
    expect(reached).toEqual(["/a"]);
    bodies[0]?.enqueue(new TextEncoder().encode("one"));
    await settle();
    expect(reached).toEqual(["/a"]);
    bodies[0]?.close();
    expect(await reading).toBe("one");
    await settle();
    expect(reached).toEqual(["/a", "/b"]);
    bodies[1]?.close();
    expect(await (await second).text()).toBe("");
  });

  it("a client that stops reading gives its slot back", async () => {
    const activator = new FakeActivatorClient();
    const hook = new IngressHook({
      clock: new ManualClock(0),
      activator,
      random: () => 0.5,
      containerConcurrencyFor: () => 1,
      resolvers: [hostTableResolver([{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }])],
    });
    const reached: string[] = [];
    const app = new Hono<{ Variables: ThawIngressVariables }>();
    app.use("*", thawIngress({ hook }));
    app.all("*", (c) => {
      reached.push(c.req.path);
      return new Response(new ReadableStream<Uint8Array>({}));
    });
    const first = app.request("http://hello.localhost/a");
    const second = app.request("http://hello.localhost/b");
    await new Promise((r) => setImmediate(r));
    activator.answer({ kind: "ready", endpoints: ["10.0.0.1:8012"], coldStart: true });
    await (await first).body?.cancel();
    for (let i = 0; i < 5 && reached.length < 2; i++) await new Promise((r) => setImmediate(r));
    expect(reached).toEqual(["/a", "/b"]);
    await (await second).body?.cancel();
  });
});
