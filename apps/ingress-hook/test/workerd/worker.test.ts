import { env, exports } from "cloudflare:workers";
import { systemClock } from "@thaw/clock";
import { decodeWireStatMessages } from "@thaw/protocol";
import { Hono } from "hono";
import { describe, expect, inject, it } from "vitest";
import {
  type ActivationOutcome,
  type ActivatorClient,
  httpActivatorClient,
} from "../../src/decision/activator-client.js";
import { IngressHook } from "../../src/decision/hook.js";
import { hostTableResolver } from "../../src/decision/resolvers.js";
import { type ThawIngressVariables, thawIngress } from "../../src/middleware.js";

/** What the fake activator was sent: activations, hints (`ns/name ttl`), held-request stats (base64). */
async function fakeCounts(): Promise<{ activate: number; hints: string[]; stats: string[] }> {
  const r = await env.ACTIVATOR.fetch("http://activator.internal/counts");
  return (await r.json()) as { activate: number; hints: string[]; stats: string[] };
}

async function activateCount(): Promise<number> {
  return (await fakeCounts()).activate;
}

type Echo = { url: string; headers: Record<string, string> };

describe("Workers entry (src/worker.ts) in workerd", () => {
  it("runs in workerd", () => {
    expect(navigator.userAgent).toBe("Cloudflare-Workers");
  });

  it("holds concurrent cold requests on one activation, then passes warm ones with no activator call", async () => {
    const before = await activateCount();
    const cold = await Promise.all(
      Array.from({ length: 20 }, (_, i) => exports.default.fetch(`http://hello.localhost/cold/${i}`)),
    );
    expect(cold.map((r) => r.status)).toEqual(Array(20).fill(200));
    const echo = (await cold[3]!.json()) as Echo;
    // Workers set Host from the URL: the client's Host travels in X-Forwarded-Host (CONTRACTS.md).
    expect(echo.url).toBe("/cold/3");
    expect(echo.headers["x-forwarded-host"]).toBe("hello.localhost");
    expect((await activateCount()) - before).toBe(1);
    const warm = await Promise.all(
      Array.from({ length: 20 }, () => exports.default.fetch("http://hello.localhost/w")),
    );
    expect(warm.every((r) => r.status === 200)).toBe(true);
    expect((await activateCount()) - before).toBe(1);
  });

  it("gives a browser's GET the waiting page after the service's threshold; other clients keep waiting", async () => {
    const browser = exports.default.fetch("http://stuck.localhost/p", {
      headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
    });
    const api = exports.default.fetch("http://stuck.localhost/p", {
      headers: { accept: "application/json" },
    });
    const page = await browser;
    expect(page.status).toBe(503);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(await page.text()).toContain("<title>stuck is starting</title>");
    // The API client was held to the activation timeout and got the JSON 503.
    const held = await api;
    expect(held.status).toBe(503);
    expect(held.headers.get("content-type")).toBe("application/json");
  });

  it("strips internal headers before the origin", async () => {
    const r = await exports.default.fetch("http://hello.localhost/spoof", {
      headers: {
        "K-Network-Probe": "queue",
        "K-Network-Hash": "override",
        "K-Proxy-Request": "activator",
        "K-Original-Host": "evil",
        "Knative-Serving-Revision": "stuck",
        "Knative-Serving-Namespace": "default",
        "X-Keep": "1",
      },
    });
    expect(r.status).toBe(200);
    const seen = Object.keys(((await r.json()) as Echo).headers);
    expect(seen.filter((h) => /^(k-|knative-|x-thaw-)/.test(h))).toEqual([]);
    expect(seen).toContain("x-keep");
  });

  it.each([426, 400, 200])(
    "a websocket upgrade the origin refuses with %i is an ordinary response; nothing is tunnelled",
    async (status) => {
      const r = await exports.default.fetch(`http://hello.localhost/ws?refuse=${status}`, {
        headers: { upgrade: "websocket", connection: "Upgrade", "sec-websocket-version": "13" },
      });
      expect(r.status).toBe(status);
      expect(r.webSocket).toBeNull();
      // The body is the origin's answer to the upgrade request, which carried the worker's headers.
      const echo = (await r.json()) as Echo;
      expect(echo.url).toBe(`/ws?refuse=${status}`);
      expect(echo.headers["x-forwarded-host"]).toBe("hello.localhost");
      // The next request is a request of its own, with the worker's rules (no raw bytes reach the origin).
      const next = await exports.default.fetch("http://hello.localhost/after", {
        headers: { "K-Proxy-Request": "activator", "X-Thaw-Route-Token": "stolen" },
      });
      const seen = (await next.json()) as Echo;
      expect(seen.url).toBe("/after");
      expect(Object.keys(seen.headers).filter((h) => /^(k-|x-thaw-)/.test(h))).toEqual([]);
    },
  );

  it("unknown host -> 404", async () => {
    const r = await exports.default.fetch("http://nobody.localhost/");
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("ERR_UNKNOWN_REVISION");
  });

  it("a revision that never becomes ready -> 503 with Retry-After", async () => {
    const r = await exports.default.fetch("http://stuck.localhost/");
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("3");
  });

  it("reports the requests it holds to the activator Worker (POST /v1/stats): 10 held, the first report 9", async () => {
    const before = (await fakeCounts()).stats.length;
    const held = await Promise.all(
      Array.from({ length: 10 }, (_, i) => exports.default.fetch(`http://slow.localhost/held/${i}`)),
    );
    expect(held.map((r) => r.status)).toEqual(Array(10).fill(200));
    const slow = async () =>
      (await fakeCounts()).stats
        .slice(before)
        .flatMap((b64) => {
          const d = decodeWireStatMessages(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
          return d.ok ? d.value : [];
        })
        .filter((m) => m.name === "slow");
    // The settle report, once the burst has arrived: the 10 held then, less the one the activation call
    // stands for, stamped with the burst's second so it lands in the poke's bucket.
    for (let i = 0; i < 50 && (await slow()).length === 0; i++)
      await new Promise((res) => setTimeout(res, 20));
    const first = (await slow())[0]?.stat;
    expect(first?.podName).toBe("thaw-edge-gateway");
    expect(first?.averageConcurrentRequests).toBe(9);
    expect(first?.timestamp).toBeGreaterThan(0);
  });

  it("a request on a warm: path sends a wake hint for the services it names, without holding the request", async () => {
    const r = await exports.default.fetch("http://hello.localhost/login");
    expect(r.status).toBe(200);
    for (let i = 0; i < 50 && (await fakeCounts()).hints.length === 0; i++) {
      await new Promise((res) => setTimeout(res, 20));
    }
    expect((await fakeCounts()).hints).toEqual(["default/stuck 120"]);
    // Elsewhere: no hint.
    await exports.default.fetch("http://hello.localhost/home");
    expect((await fakeCounts()).hints).toEqual(["default/stuck 120"]);
  });

  /** The gateway's own counters (GET /_thaw/edge). */
  async function edge(): Promise<{ received: number; hook: { warmAllows: number; denies: number } }> {
    return (await (await exports.default.fetch("http://hello.localhost/_thaw/edge")).json()) as never;
  }

  it("decides each request once, whether it goes around Hono (warm) or through it (denied)", async () => {
    const warmUp = await exports.default.fetch("http://hello.localhost/warm-up");
    await warmUp.text();
    expect(warmUp.status).toBe(200);
    const before = await edge();
    const fetches = [
      ...Array.from({ length: 5 }, () => exports.default.fetch("http://hello.localhost/w")),
      // Decided before Hono (deny), then answered by the middleware from that same decision.
      ...Array.from({ length: 3 }, () => exports.default.fetch("http://nobody.localhost/")),
    ];
    const statuses = await Promise.all(
      fetches.map(async (f) => {
        const r = await f;
        await r.text();
        return r.status;
      }),
    );
    expect(statuses).toEqual([...Array(5).fill(200), 404, 404, 404]);
    const after = await edge();
    expect(after.received - before.received).toBe(8);
    expect(after.hook.warmAllows - before.hook.warmAllows).toBe(5);
    expect(after.hook.denies - before.hook.denies).toBe(3);
  });

  it("GET /_thaw/edge reports the hook's counters", async () => {
    const r = await exports.default.fetch("http://hello.localhost/_thaw/edge");
    expect(r.status).toBe(200);
    const body = (await r.json()) as { hook: { activations: number; warmAllows: number } };
    expect(body.hook.activations).toBeGreaterThanOrEqual(1);
    expect(body.hook.warmAllows).toBeGreaterThanOrEqual(1);
  });
});

describe("thawIngress middleware in a Hono gateway on workerd", () => {
  class CountingActivator implements ActivatorClient {
    calls = 0;
    async activate(): Promise<ActivationOutcome> {
      this.calls++;
      await new Promise((r) => setTimeout(r, 20));
      return { kind: "ready", endpoints: ["10.1.0.1:8012", "10.1.0.2:8012"], coldStart: true };
    }
  }

  /** 0, 0.3, 0, 0.3...: random-choice-of-two then alternates between two pods. */
  function alternating(): () => number {
    let n = 0;
    return () => (n++ % 2 === 0 ? 0 : 0.3);
  }

  function gateway() {
    const activator = new CountingActivator();
    const hook = new IngressHook({
      clock: systemClock,
      random: alternating(),
      activator,
      resolvers: [
        hostTableResolver([{ name: "api", namespace: "shop", hosts: ["shop.example"], paths: ["/api"] }]),
      ],
    });
    const app = new Hono<{ Variables: ThawIngressVariables }>();
    app.use("*", thawIngress({ hook, setUpstreamHeader: true }));
    app.all("*", (c) => c.json({ thaw: c.var.thaw, upstream: c.req.header("x-thaw-upstream") ?? null }));
    return { app, activator };
  }

  it("single activation for concurrent cold requests, warm ones spread over pods", async () => {
    const { app, activator } = gateway();
    const cold = await Promise.all(
      Array.from({ length: 10 }, () => app.request("http://shop.example/api/x")),
    );
    expect(cold.every((r) => r.status === 200)).toBe(true);
    expect(activator.calls).toBe(1);
    const ups = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const body = (await (await app.request("http://shop.example/api/y")).json()) as {
        thaw: { warm: boolean };
        upstream: string;
      };
      expect(body.thaw.warm).toBe(true);
      ups.add(body.upstream);
    }
    expect(ups).toEqual(new Set(["10.1.0.1:8012", "10.1.0.2:8012"]));
    expect(activator.calls).toBe(1);
  });

  it("a path outside the service's prefixes is a 404", async () => {
    const { app } = gateway();
    expect((await app.request("http://shop.example/other")).status).toBe(404);
  });
});

describe("thawIngress on workerd against the real @thaw/activator worker (its Durable Object)", () => {
  it("activates once through the activator's /v1/activate, then passes warm requests with no call", async () => {
    const real = (env as unknown as { REAL_ACTIVATOR: Fetcher }).REAL_ACTIVATOR;
    let calls = 0;
    const hook = new IngressHook({
      clock: systemClock,
      random: Math.random,
      resolvers: [hostTableResolver([{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }])],
      activator: httpActivatorClient({
        baseUrl: "http://activator.internal",
        clock: systemClock,
        fetch: (r) => {
          calls++;
          return real.fetch(r);
        },
      }),
    });
    const app = new Hono<{ Variables: ThawIngressVariables }>();
    app.use("*", thawIngress({ hook }));
    app.all("*", (c) => c.json(c.var.thaw));
    const cold = await Promise.all(Array.from({ length: 5 }, () => app.request("http://hello.localhost/x")));
    expect(cold.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const body = (await cold[0]!.json()) as { upstream: string; warm: boolean };
    expect(body.upstream).toBe(`127.0.0.1:${inject("podPort")}`);
    expect(calls).toBe(1);
    const warm = (await (await app.request("http://hello.localhost/y")).json()) as { warm: boolean };
    expect(warm.warm).toBe(true);
    expect(calls).toBe(1);
  });

  it("an edge gateway on thawIngress sends held requests through the activator worker, warm ones to the pod", async () => {
    const real = (env as unknown as { REAL_ACTIVATOR: Fetcher }).REAL_ACTIVATOR;
    const hook = new IngressHook({
      clock: systemClock,
      random: Math.random,
      resolvers: [hostTableResolver([{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }])],
      activator: httpActivatorClient({
        baseUrl: "http://activator.internal",
        clock: systemClock,
        fetch: (r) => real.fetch(r),
      }),
      // The gateway's name for its activator binding.
      activatorUpstream: "activator.internal:0",
    });
    const app = new Hono<{ Variables: ThawIngressVariables }>();
    app.use("*", thawIngress({ hook }));
    app.all("*", async (c) => {
      const d = c.var.thaw;
      // Activator-bound: the middleware already put the revision in Knative-Serving-* on the request.
      const res =
        d.via === "activator"
          ? await real.fetch(c.req.raw)
          : new Response(JSON.stringify({ pod: d.upstream }));
      return new Response(res.body, { status: res.status, headers: { "x-via": d.via } });
    });
    const cold = await Promise.all(
      Array.from({ length: 5 }, (_, i) => app.request(`http://hello.localhost/c${i}`)),
    );
    expect(cold.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(cold.map((r) => r.headers.get("x-via"))).toEqual(Array(5).fill("activator"));
    // The activator worker forwarded each to the pod, which echoes the path.
    expect(await cold[3]!.json()).toMatchObject({ url: "/c3" });
    const warm = await app.request("http://hello.localhost/w");
    expect(warm.headers.get("x-via")).toBe("pod");
    expect(await warm.json()).toEqual({ pod: `127.0.0.1:${inject("podPort")}` });
  });

  it("a revision the activator does not know is a 404", async () => {
    const real = (env as unknown as { REAL_ACTIVATOR: Fetcher }).REAL_ACTIVATOR;
    const hook = new IngressHook({
      clock: systemClock,
      random: Math.random,
      resolvers: [hostTableResolver([{ name: "ghost", namespace: "default", hosts: ["ghost.localhost"] }])],
      activator: httpActivatorClient({
        baseUrl: "http://activator.internal",
        clock: systemClock,
        fetch: (r) => real.fetch(r),
      }),
    });
    const app = new Hono();
    app.use("*", thawIngress({ hook }));
    app.all("*", (c) => c.text("should not get here"));
    expect((await app.request("http://ghost.localhost/")).status).toBe(404);
  });
});
