import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { FakeActivatorClient } from "../testing/fake-activator-client.js";
import { IngressHook, type IngressHookOptions } from "./hook.js";
import type { HookRequest } from "./request-view.js";
import { envoyDecoratorResolver, hostTableResolver, routeHeadersResolver } from "./resolvers.js";

const services = [
  { name: "hello", namespace: "default", hosts: ["hello.localhost"] },
  { name: "api", namespace: "shop", hosts: ["shop.localhost"], paths: ["/api"] },
  { name: "web", namespace: "shop", hosts: ["shop.localhost"] },
];

function setup(extra: Partial<IngressHookOptions> = {}) {
  const clock = new ManualClock(1_000);
  const activator = new FakeActivatorClient();
  const hook = new IngressHook({
    clock,
    activator,
    resolvers: [routeHeadersResolver(), envoyDecoratorResolver(), hostTableResolver(services)],
    warmTtlMs: 2000,
    activationTimeoutMs: 5000,
    routeToken: "s3cret",
    random: seeded(),
    ...extra,
  });
  return { clock, activator, hook };
}

/** Deterministic [0, 1) sequence for the LB policy. */
function seeded(): () => number {
  let x = 7;
  return () => {
    x = (x * 48271) % 2147483647;
    return x / 2147483647;
  };
}

function req(host: string, path = "/", headers: Record<string, string> = {}): HookRequest {
  return { method: "GET", host, path, headers: new Headers(headers) };
}

describe("IngressHook.tryDecide: resolving the revision", () => {
  const rows: { name: string; r: HookRequest; want: string | 404 }[] = [
    { name: "host table", r: req("hello.localhost"), want: "default/hello" },
    { name: "longest path prefix wins", r: req("shop.localhost", "/api/orders"), want: "shop/api" },
    { name: "prefix matches whole segments only", r: req("shop.localhost", "/apix"), want: "shop/web" },
    { name: "unknown host is 404", r: req("nope.localhost"), want: 404 },
    {
      name: "route headers with the route token",
      r: req("nope.localhost", "/", {
        "knative-serving-namespace": "ns1",
        "knative-serving-revision": "rev1",
        "x-thaw-route-token": "s3cret",
      }),
      want: "ns1/rev1",
    },
    {
      name: "route headers without the token are the client's: ignored",
      r: req("hello.localhost", "/", {
        "knative-serving-namespace": "ns1",
        "knative-serving-revision": "rev1",
      }),
      want: "default/hello",
    },
    {
      name: "route headers with a wrong token are ignored",
      r: req("nope.localhost", "/", {
        "knative-serving-namespace": "ns1",
        "knative-serving-revision": "rev1",
        "x-thaw-route-token": "guess",
      }),
      want: 404,
    },
    {
      name: "envoy decorator operation (Istio form) with the token",
      r: req("nope.localhost", "/", {
        "x-envoy-decorator-operation": "hello-00001.default.svc.cluster.local:80/*",
        "x-thaw-route-token": "s3cret",
      }),
      want: "default/hello-00001",
    },
    {
      name: "malformed decorator falls through to the host table",
      r: req("hello.localhost", "/", {
        "x-envoy-decorator-operation": "garbage",
        "x-thaw-route-token": "s3cret",
      }),
      want: "default/hello",
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const { hook, clock } = setup();
      const d = hook.tryDecide(row.r, clock.now());
      if (row.want === 404) {
        expect(d).toMatchObject({ kind: "deny", status: 404, code: "ERR_UNKNOWN_REVISION" });
      } else {
        expect(d).toMatchObject({ kind: "cold", key: row.want });
      }
    });
  }

  it("never believes route headers when no token is configured", () => {
    const { hook, clock } = setup({ routeToken: undefined });
    const d = hook.tryDecide(
      req("nope.localhost", "/", {
        "knative-serving-namespace": "ns1",
        "knative-serving-revision": "rev1",
        "x-thaw-route-token": "",
      }),
      clock.now(),
    );
    expect(d).toMatchObject({ kind: "deny", status: 404 });
  });
});

describe("IngressHook: internal headers from outside", () => {
  const rows: { name: string; h: Record<string, string> }[] = [
    { name: "K-Network-Probe", h: { "k-network-probe": "queue" } },
    { name: "K-Network-Hash", h: { "k-network-hash": "override" } },
    { name: "K-Proxy-Request", h: { "k-proxy-request": "activator" } },
    { name: "K-Original-Host", h: { "k-original-host": "evil" } },
    { name: "Knative-Serving-Tag (any Knative-Serving-*)", h: { "knative-serving-tag": "x" } },
    { name: "X-Thaw-Upstream", h: { "x-thaw-upstream": "10.0.0.1:80" } },
  ];
  for (const row of rows) {
    it(`reject mode refuses ${row.name} with 400`, () => {
      const { hook, clock } = setup({ internalHeaders: "reject" });
      expect(hook.tryDecide(req("hello.localhost", "/", row.h), clock.now())).toMatchObject({
        kind: "deny",
        status: 400,
        code: "ERR_BAD_REQUEST",
      });
    });
    it(`strip mode lets ${row.name} through to the decision (the proxy drops it)`, () => {
      const { hook, clock } = setup();
      expect(hook.tryDecide(req("hello.localhost", "/", row.h), clock.now()).kind).toBe("cold");
    });
  }
  it("reject mode accepts the route's own Knative-Serving-* when the token proves them", () => {
    const { hook, clock } = setup({ internalHeaders: "reject" });
    const d = hook.tryDecide(
      req("x", "/", {
        "knative-serving-namespace": "ns1",
        "knative-serving-revision": "rev1",
        "x-thaw-route-token": "s3cret",
      }),
      clock.now(),
    );
    expect(d).toMatchObject({ kind: "cold", key: "ns1/rev1" });
  });
});

describe("IngressHook.decide: cold and warm", () => {
  it("activates once for concurrent cold requests, then answers warm with no activator call", async () => {
    const { hook, activator } = setup();
    const waits = Array.from({ length: 50 }, () => hook.decide(req("hello.localhost")));
    await Promise.resolve();
    expect(activator.calls).toEqual([{ namespace: "default", name: "hello", timeoutMs: 5000 }]);
    expect(
      activator.answer({ kind: "ready", endpoints: ["10.0.0.1:8012", "10.0.0.2:8012"], coldStart: true }),
    ).toBe(1);
    const ds = await Promise.all(waits);
    expect(ds.every((d) => d.kind === "allow" && !d.warm)).toBe(true);
    const warm = await hook.decide(req("hello.localhost"));
    expect(warm).toMatchObject({ kind: "allow", warm: true, key: "default/hello" });
    expect(activator.calls).toHaveLength(1);
    expect(hook.stats.activations).toBe(1);
  });

  it("spreads warm requests over the ready pods", async () => {
    const { hook, activator, clock } = setup();
    const p = hook.decide(req("hello.localhost"));
    activator.answer({ kind: "ready", endpoints: ["a:1", "b:2"], coldStart: true });
    await p;
    const ups = Array.from({ length: 20 }, () => {
      const d = hook.tryDecide(req("hello.localhost"), clock.now());
      return d.kind === "allow" ? d.upstream : d.kind;
    });
    expect(new Set(ups)).toEqual(new Set(["a:1", "b:2"]));
  });

  it("goes cold again after the TTL when no watch vouches for the entry", async () => {
    const { hook, activator, clock } = setup();
    const p = hook.decide(req("hello.localhost"));
    activator.answer({ kind: "ready", endpoints: ["a:1"], coldStart: true });
    await p;
    await clock.advance(1999);
    expect(hook.tryDecide(req("hello.localhost"), clock.now()).kind).toBe("allow");
    await clock.advance(1);
    expect(hook.tryDecide(req("hello.localhost"), clock.now()).kind).toBe("cold");
  });

  it("stays warm past the TTL while the watch stream is connected, and goes cold when it pushes no endpoints", async () => {
    const { hook, clock } = setup();
    const gen = hook.cache.watchConnected();
    hook.cache.applyEvent(
      { namespace: "default", name: "hello", endpoints: ["a:1"], mode: "serve" },
      gen,
      clock.now(),
    );
    await clock.advance(60_000);
    expect(hook.tryDecide(req("hello.localhost"), clock.now())).toMatchObject({
      kind: "allow",
      upstream: "a:1",
    });
    hook.cache.applyEvent(
      { namespace: "default", name: "hello", endpoints: [], mode: "serve" },
      gen,
      clock.now(),
    );
    expect(hook.tryDecide(req("hello.localhost"), clock.now()).kind).toBe("cold");
  });

  it("routes proxy-mode revisions to the activator when it has a data-path address", () => {
    const { hook, clock } = setup({ activatorUpstream: "127.0.0.1:8089" });
    const gen = hook.cache.watchConnected();
    hook.cache.applyEvent(
      { namespace: "default", name: "hello", endpoints: ["a:1"], mode: "proxy" },
      gen,
      clock.now(),
    );
    expect(hook.tryDecide(req("hello.localhost"), clock.now())).toMatchObject({
      upstream: "127.0.0.1:8089",
      via: "activator",
      warm: true,
    });
  });

  it("sends requests held while cold through the activator, warm serve-mode ones straight to a pod", async () => {
    const { hook, activator, clock } = setup({ activatorUpstream: "127.0.0.1:8089" });
    const held = Array.from({ length: 20 }, () => hook.decide(req("hello.localhost")));
    await Promise.resolve();
    activator.answer({ kind: "ready", endpoints: ["a:1"], coldStart: true });
    for (const d of await Promise.all(held)) {
      expect(d).toMatchObject({ kind: "allow", via: "activator", upstream: "127.0.0.1:8089", warm: false });
    }
    expect(hook.tryDecide(req("hello.localhost"), clock.now())).toMatchObject({
      via: "pod",
      upstream: "a:1",
      warm: true,
    });
  });

  it("without an activator address, releases held requests straight to a pod", async () => {
    const { hook, activator } = setup();
    const p = hook.decide(req("hello.localhost"));
    await Promise.resolve();
    activator.answer({ kind: "ready", endpoints: ["a:1"], coldStart: true });
    expect(await p).toMatchObject({ kind: "allow", via: "pod", upstream: "a:1" });
  });

  const outcomes = [
    {
      name: "activation timeout -> 503 with the activator's Retry-After and its diagnosis, said once",
      outcome: { kind: "timeout" as const, retryAfterSeconds: 7, message: "x not ready", detail: "slow" },
      want: { status: 503, code: "ERR_ACTIVATION_TIMEOUT", retryAfterSeconds: 7 },
      says: "revision default/hello did not become ready within 5000 ms: slow",
    },
    {
      name: "activation timeout without Retry-After nor diagnosis -> 503 with the default",
      outcome: { kind: "timeout" as const, retryAfterSeconds: undefined, message: "HTTP 504" },
      want: { status: 503, code: "ERR_ACTIVATION_TIMEOUT", retryAfterSeconds: 1 },
      says: "revision default/hello did not become ready within 5000 ms",
    },
    {
      name: "failing revision -> 503 naming the cause at once",
      outcome: { kind: "failed" as const, retryAfterSeconds: 4, message: "app exited with code 3" },
      want: { status: 503, code: "ERR_REVISION_FAILED", retryAfterSeconds: 4 },
      says: "revision default/hello is failing: app exited with code 3",
    },
    {
      name: "unknown revision -> 404",
      outcome: { kind: "unknown" as const, message: "no such revision" },
      want: { status: 404, code: "ERR_UNKNOWN_REVISION" },
      says: "revision default/hello is unknown: no such revision",
    },
    {
      name: "activator unreachable -> 503 naming the cause",
      outcome: { kind: "unavailable" as const, message: "activator unreachable at http://x: ECONNREFUSED" },
      want: { status: 503, code: "ERR_UPSTREAM" },
      says: "cannot activate default/hello: activator unreachable at http://x: ECONNREFUSED",
    },
  ];
  for (const row of outcomes) {
    it(row.name, async () => {
      const { hook, activator } = setup();
      const p = hook.decide(req("hello.localhost"));
      activator.answer(row.outcome);
      const d = await p;
      expect(d).toMatchObject({ kind: "deny", ...row.want, message: row.says });
    });
  }
});

describe("IngressHook while the activator cannot be reached", () => {
  /** hello activated on pod a:1, then its entry left to go stale (the watch dropped with the activator). */
  async function staleHello(extra: Partial<IngressHookOptions> = {}) {
    const s = setup(extra);
    const p = s.hook.decide(req("hello.localhost"));
    s.activator.answer({ kind: "ready", endpoints: ["a:1"], coldStart: true });
    await p;
    await s.clock.advance(2001);
    expect(s.hook.tryDecide(req("hello.localhost"), s.clock.now()).kind).toBe("cold");
    return s;
  }
  const down = {
    kind: "unavailable" as const,
    message: "activator failed: ECONNREFUSED",
    transient: true as const,
  };

  it("a revision whose pods were last seen ready is served from them, not cached by the proxy", async () => {
    const { hook, activator } = await staleHello({ activatorUpstream: "act:8012" });
    const p = hook.decide(req("hello.localhost"));
    activator.answer(down);
    expect(await p).toEqual({
      kind: "allow",
      revision: { namespace: "default", name: "hello" },
      key: "default/hello",
      upstream: "a:1",
      via: "pod",
      warm: false,
    });
    expect(hook.stats.staleAllows).toBe(1);
  });
  it("a revision never seen ready gets 503 + Retry-After", async () => {
    const { hook, activator } = setup();
    const p = hook.decide(req("hello.localhost"));
    activator.answer(down);
    expect(await p).toMatchObject({ kind: "deny", code: "ERR_UPSTREAM", retryAfterSeconds: 1 });
  });
  it("a setup fault (a refused token) is not papered over with old pods", async () => {
    const { hook, activator } = await staleHello();
    const p = hook.decide(req("hello.localhost"));
    activator.answer({ kind: "unavailable", message: "activator refused the hook's credentials: 401" });
    const d = await p;
    expect(d).toMatchObject({ kind: "deny", code: "ERR_UPSTREAM" });
    expect(d).not.toHaveProperty("retryAfterSeconds");
  });
  it("a revision the activator said is unknown has no pods left to serve from", async () => {
    const { hook, activator } = await staleHello();
    const gone = hook.decide(req("hello.localhost"));
    activator.answer({ kind: "unknown", message: "no such revision" });
    await gone;
    const p = hook.decide(req("hello.localhost"));
    activator.answer(down);
    expect(await p).toMatchObject({ kind: "deny", code: "ERR_UPSTREAM" });
  });
});

describe("IngressHook options", () => {
  it("an option passed as undefined keeps its default", async () => {
    const { hook, activator } = setup({ activationTimeoutMs: undefined, warmTtlMs: undefined });
    void hook.decide(req("hello.localhost"));
    await Promise.resolve();
    expect(activator.calls[0]?.timeoutMs).toBe(60_000);
  });
  it("refuses a non-positive activation timeout", () => {
    expect(() => setup({ activationTimeoutMs: 0 })).toThrow(RangeError);
  });
});
