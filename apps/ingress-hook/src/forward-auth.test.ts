import { ManualClock } from "@thaw/clock/testing";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { httpActivatorClient } from "./decision/activator-client.js";
import { IngressHook } from "./decision/hook.js";
import { hostTableResolver, routeHeadersResolver } from "./decision/resolvers.js";
import { detectDialect, forwardAuthApp } from "./forward-auth.js";

/** A hook whose activator is an in-memory Hono app speaking CONTRACTS.md. */
function setup(activator: Hono, activatorUpstream?: string) {
  const clock = new ManualClock(0);
  const hook = new IngressHook({
    clock,
    resolvers: [
      routeHeadersResolver(),
      hostTableResolver([{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }]),
    ],
    activator: httpActivatorClient({
      baseUrl: "http://activator.test",
      fetch: async (r) => activator.fetch(r),
      clock,
    }),
    activationTimeoutMs: 1000,
    routeToken: "tok",
    random: () => 0.5,
    ...(activatorUpstream ? { activatorUpstream } : {}),
  });
  return { hook, app: forwardAuthApp(hook) };
}

function readyActivator(counter: { n: number }) {
  const a = new Hono();
  a.post("/v1/activate", (c) => {
    counter.n++;
    return c.json({
      namespace: "default",
      name: "hello",
      endpoints: ["10.0.0.1:8012"],
      coldStart: true,
      waitedMs: 5,
    });
  });
  return a;
}

describe("forward-auth dialects", () => {
  const rows: { name: string; path: string; headers: Record<string, string> }[] = [
    {
      name: "nginx auth_request",
      path: "/nginx",
      headers: { host: "hook", "x-forwarded-host": "hello.localhost", "x-original-uri": "/a?b=1" },
    },
    {
      name: "nginx without X-Forwarded-Host uses Host",
      path: "/nginx",
      headers: { host: "hello.localhost", "x-original-uri": "/a" },
    },
    {
      name: "ingress-nginx auth-url (X-Original-URL; the client's X-Forwarded-Host is ignored)",
      path: "/ingress-nginx",
      headers: {
        host: "thaw-ingress-hook.thaw-system.svc.cluster.local",
        "x-forwarded-host": "other.localhost",
        "x-original-url": "https://hello.localhost/a?b=1",
        "x-original-method": "GET",
      },
    },
    {
      name: "traefik forwardAuth",
      path: "/traefik",
      headers: {
        host: "hook",
        "x-forwarded-host": "hello.localhost",
        "x-forwarded-uri": "/a",
        "x-forwarded-method": "PUT",
      },
    },
    {
      name: "envoy ext_authz (original path after the prefix)",
      path: "/envoy/a/b",
      headers: { host: "hello.localhost:8080" },
    },
    {
      name: "auto-detected traefik at /",
      path: "/",
      headers: { host: "hook", "x-forwarded-host": "hello.localhost", "x-forwarded-uri": "/" },
    },
  ];
  for (const row of rows) {
    it(`${row.name}: cold then warm allow with X-Thaw-Upstream`, async () => {
      const counter = { n: 0 };
      const { app } = setup(readyActivator(counter));
      const cold = await app.request(row.path, { headers: row.headers });
      expect(cold.status).toBe(200);
      expect(cold.headers.get("x-thaw-upstream")).toBe("10.0.0.1:8012");
      expect(cold.headers.get("cache-control")).toBe("no-store");
      const warm = await app.request(row.path, { headers: row.headers });
      expect(warm.status).toBe(200);
      expect(warm.headers.get("cache-control")).toBe("max-age=1, stale-while-revalidate=1");
      expect(warm.headers.get("x-thaw-revision")).toBe("default/hello");
      expect(counter.n).toBe(1);
    });
  }

  it("ingress-nginx: a request with no X-Original-URL names no revision (404 as 403 + X-Thaw-Status)", async () => {
    const { app } = setup(readyActivator({ n: 0 }));
    const r = await app.request("/ingress-nginx", { headers: { host: "hello.localhost" } });
    expect(r.status).toBe(403);
    expect(r.headers.get("x-thaw-status")).toBe("404");
  });

  it("a request held while cold is answered activator-bound: the activator and its revision headers", async () => {
    const counter = { n: 0 };
    const { app } = setup(readyActivator(counter), "10.0.0.99:8012");
    const headers = { host: "hook", "x-forwarded-host": "hello.localhost", "x-original-uri": "/a" };
    const cold = await app.request("/nginx", { headers });
    expect(cold.status).toBe(200);
    expect(cold.headers.get("x-thaw-upstream")).toBe("10.0.0.99:8012");
    expect(cold.headers.get("knative-serving-namespace")).toBe("default");
    expect(cold.headers.get("knative-serving-revision")).toBe("hello");
    // Warm, serve mode (an activation answer says nothing of the mode): straight to the pod, no revision headers.
    const warm = await app.request("/nginx", { headers });
    expect(warm.headers.get("x-thaw-upstream")).toBe("10.0.0.1:8012");
    expect(warm.headers.get("knative-serving-revision")).toBeNull();
  });

  it("ingress-nginx: every allow names the revision, warm ones too (its Ingress always goes through the activator)", async () => {
    const { app } = setup(readyActivator({ n: 0 }));
    const headers = { host: "hook", "x-original-url": "https://hello.localhost/a" };
    for (const round of ["cold", "warm"]) {
      const r = await app.request("/ingress-nginx", { headers });
      expect(r.status, round).toBe(200);
      expect(r.headers.get("knative-serving-namespace"), round).toBe("default");
      expect(r.headers.get("knative-serving-revision"), round).toBe("hello");
    }
  });

  it("detects the dialect from the headers", () => {
    expect(detectDialect(new Headers({ "x-forwarded-uri": "/" }))).toBe("traefik");
    expect(detectDialect(new Headers({ "x-original-uri": "/" }))).toBe("nginx");
    expect(detectDialect(new Headers())).toBe("envoy");
  });

  it("envoy: asks the proxy to remove client-sent internal headers", async () => {
    const { app } = setup(readyActivator({ n: 0 }));
    const r = await app.request("/envoy/x", {
      headers: { host: "hello.localhost", "k-network-probe": "queue" },
    });
    expect(r.headers.get("x-envoy-auth-headers-to-remove")).toBe("k-network-probe");
  });
});

describe("forward-auth denials", () => {
  const activators: {
    name: string;
    app: () => Hono | undefined;
    status: number;
    code: string;
    retry?: string;
  }[] = [
    {
      name: "activation timeout -> 503 + Retry-After from the activator",
      app: () => {
        const a = new Hono();
        a.post("/v1/activate", (c) => {
          c.header("retry-after", "4");
          return c.json({ error: { code: "ERR_ACTIVATION_TIMEOUT", message: "not ready" } }, 504);
        });
        return a;
      },
      status: 503,
      code: "ERR_ACTIVATION_TIMEOUT",
      retry: "4",
    },
    {
      name: "unknown revision at the activator -> 404",
      app: () => {
        const a = new Hono();
        a.post("/v1/activate", (c) =>
          c.json({ error: { code: "ERR_UNKNOWN_REVISION", message: "nope" } }, 404),
        );
        return a;
      },
      status: 404,
      code: "ERR_UNKNOWN_REVISION",
    },
    {
      name: "activator refuses the token -> 503 saying so",
      app: () => {
        const a = new Hono();
        a.post("/v1/activate", (c) =>
          c.json({ error: { code: "ERR_UNAUTHORIZED", message: "bad token" } }, 401),
        );
        return a;
      },
      status: 503,
      code: "ERR_UPSTREAM",
    },
  ];
  for (const row of activators) {
    it(`traefik/envoy: ${row.name}`, async () => {
      const { app } = setup(row.app() as Hono);
      const r = await app.request("/envoy/", { headers: { host: "hello.localhost" } });
      expect(r.status).toBe(row.status);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe(row.code);
      expect(r.headers.get("retry-after")).toBe(row.retry ?? null);
      expect(r.headers.get("cache-control")).toBe("no-store");
    });
    it(`nginx: ${row.name} travels as 403 + X-Thaw-Status`, async () => {
      const { app } = setup(row.app() as Hono);
      const r = await app.request("/nginx", { headers: { host: "hello.localhost", "x-original-uri": "/" } });
      expect(r.status).toBe(403);
      expect(r.headers.get("x-thaw-status")).toBe(String(row.status));
      expect(r.headers.get("x-thaw-retry-after")).toBe(row.retry ?? null);
      expect(JSON.parse(r.headers.get("x-thaw-error") ?? "{}").error.code).toBe(row.code);
    });
  }

  it("activator unreachable -> 503 with a clear body", async () => {
    const clock = new ManualClock(0);
    const hook = new IngressHook({
      clock,
      random: () => 0.5,
      resolvers: [hostTableResolver([{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }])],
      activator: httpActivatorClient({
        baseUrl: "http://127.0.0.1:9",
        clock,
        fetch: async () => {
          throw new TypeError("fetch failed", {
            cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }),
          });
        },
      }),
    });
    const r = await forwardAuthApp(hook).request("/envoy/", { headers: { host: "hello.localhost" } });
    expect(r.status).toBe(503);
    const body = (await r.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("ERR_UPSTREAM");
    expect(body.error.message).toContain("activator unreachable at http://127.0.0.1:9");
    expect(body.error.message).toContain("ECONNREFUSED");
  });

  it("an activator that never answers is cut off at the deadline plus grace", async () => {
    const clock = new ManualClock(0);
    const hook = new IngressHook({
      clock,
      random: () => 0.5,
      activationTimeoutMs: 1000,
      resolvers: [hostTableResolver([{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }])],
      activator: httpActivatorClient({
        baseUrl: "http://activator.test",
        clock,
        graceMs: 500,
        fetch: (req) =>
          new Promise((_resolve, reject) =>
            req.signal.addEventListener("abort", () => reject(req.signal.reason)),
          ),
      }),
    });
    const p = Promise.resolve(
      forwardAuthApp(hook).request("/envoy/", { headers: { host: "hello.localhost" } }),
    );
    await clock.advance(1499);
    let settled = false;
    void p.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await clock.advance(1);
    const r = await p;
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("1");
  });
});
