import { ManualClock } from "@thaw/clock/testing";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { IngressHook } from "../decision/hook.js";
import { hostTableResolver } from "../decision/resolvers.js";
import { forwardAuthApp } from "../forward-auth.js";
import { type ThawIngressVariables, thawIngress } from "../middleware.js";
import { FakeActivatorClient } from "../testing/fake-activator-client.js";

const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

import type { ActivationOutcome } from "../decision/activator-client.js";

const READY: ActivationOutcome = { kind: "ready", endpoints: ["10.0.0.1:8012"], coldStart: true };
const KEY = "default/hello";

function gateway(page = true) {
  const clock = new ManualClock(0);
  const activator = new FakeActivatorClient();
  const hook = new IngressHook({
    clock,
    activator,
    random: () => 0.5,
    resolvers: [hostTableResolver([{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }])],
    ...(page ? { waitingPageFor: () => ({ afterMs: 2000 }) } : {}),
  });
  const app = new Hono<{ Variables: ThawIngressVariables }>();
  app.use("*", thawIngress({ hook }));
  app.all("*", (c) => c.text("the app"));
  return { app, hook, activator, clock };
}

/** Runs one cold start that takes `ms` on the manual clock, then makes the revision cold again. */
async function measuredStart(g: ReturnType<typeof gateway>, ms: number): Promise<void> {
  const held = g.app.request("http://hello.localhost/");
  await new Promise((r) => setImmediate(r));
  await g.clock.advance(ms);
  g.activator.answer(READY);
  expect((await held).status).toBe(200);
  g.hook.cache.invalidate(KEY);
}

/** Settles within a few turns of the event loop, or says it is still pending. */
async function settled(p: Response | Promise<Response>): Promise<Response | "pending"> {
  return Promise.race([p, new Promise<"pending">((r) => setTimeout(() => r("pending"), 50))]);
}

describe("Retry-After and callers' deadlines from measured cold starts", () => {
  it("answers a caller whose deadline is shorter than the measured start at once, with that Retry-After", async () => {
    const g = gateway(false);
    for (const ms of [3000, 3100, 2900]) await measuredStart(g, ms);
    expect(g.hook.expectedStartMs(KEY)).toBe(3100);
    for (const headers of [
      { prefer: "wait=1" },
      { "grpc-timeout": "1S" },
      { "request-timeout": "2" },
    ] as Record<string, string>[]) {
      const r = await settled(g.app.request("http://hello.localhost/", { headers }));
      expect(r).not.toBe("pending");
      const res = r as Response;
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("4");
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("ERR_DEADLINE");
    }
    // A caller that waits long enough is held as before; the fast answers started the activation.
    const patient = g.app.request("http://hello.localhost/", { headers: { prefer: "wait=10" } });
    expect(await settled(patient)).toBe("pending");
    g.activator.answer(READY);
    expect((await patient).status).toBe(200);
  });

  it("holds every caller before any start was measured", async () => {
    const g = gateway(false);
    const r = g.app.request("http://hello.localhost/", { headers: { prefer: "wait=1" } });
    expect(await settled(r)).toBe("pending");
    g.activator.answer(READY);
    expect((await r).status).toBe(200);
  });
});

describe("the waiting page in the middleware", () => {
  it("gives a browser's GET the page past the threshold, holds the rest, and its poll says ready", async () => {
    const g = gateway();
    const browser = g.app.request("http://hello.localhost/x", { headers: { accept: BROWSER } });
    const curl = g.app.request("http://hello.localhost/x", { headers: { accept: "*/*" } });
    const post = g.app.request("http://hello.localhost/x", { method: "POST", headers: { accept: BROWSER } });
    await new Promise((r) => setImmediate(r));
    await g.clock.advance(1999);
    expect(await settled(browser)).toBe("pending");
    await g.clock.advance(1);
    const page = await browser;
    expect(page.status).toBe(503);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("retry-after")).toBe("1");
    expect(await page.text()).toContain("hello is starting");
    expect(await settled(curl)).toBe("pending");
    expect(await settled(post)).toBe("pending");
    const poll = g.app.request("http://hello.localhost/x", { headers: { "x-thaw-wait": "poll" } });
    expect(await settled(poll)).toBe("pending");
    expect(g.activator.calls).toHaveLength(1);
    g.activator.answer(READY);
    const polled = await poll;
    expect(polled.headers.get("x-thaw-wait")).toBe("ready");
    expect((await curl).status).toBe(200);
    expect((await post).status).toBe(200);
    // The reload: the app's own page.
    const reload = await g.app.request("http://hello.localhost/x", { headers: { accept: BROWSER } });
    expect(await reload.text()).toBe("the app");
  });

  it("answers a poll still waiting after its hold with `waiting`, and never with a page when off", async () => {
    const g = gateway();
    const poll = g.app.request("http://hello.localhost/", { headers: { "x-thaw-wait": "poll" } });
    await new Promise((r) => setImmediate(r));
    await g.clock.advance(15_000);
    const r = await poll;
    expect(r.status).toBe(503);
    expect(r.headers.get("x-thaw-wait")).toBe("waiting");
    const off = gateway(false);
    const browser = off.app.request("http://hello.localhost/", { headers: { accept: BROWSER } });
    await new Promise((r) => setImmediate(r));
    await off.clock.advance(10_000);
    expect(await settled(browser)).toBe("pending");
    off.activator.answer(READY);
    expect(await (await browser).text()).toBe("the app");
  });
});

describe("the waiting page in the forward-auth dialects", () => {
  it("Traefik gets the page itself, nginx a 401 for its @thaw_page, ingress-nginx keeps holding", async () => {
    const g = gateway();
    const auth = forwardAuthApp(g.hook);
    const traefik = auth.request("http://hook/traefik", {
      headers: {
        accept: BROWSER,
        "x-forwarded-host": "hello.localhost",
        "x-forwarded-uri": "/a",
        "x-forwarded-method": "GET",
      },
    });
    const nginx = auth.request("http://hook/nginx", {
      headers: {
        accept: BROWSER,
        "x-forwarded-host": "hello.localhost",
        "x-original-uri": "/a",
        "x-original-method": "GET",
      },
    });
    const nginxPost = auth.request("http://hook/nginx", {
      headers: {
        accept: BROWSER,
        "x-forwarded-host": "hello.localhost",
        "x-original-uri": "/a",
        "x-original-method": "POST",
      },
    });
    const ingressNginx = auth.request("http://hook/ingress-nginx", {
      headers: { accept: BROWSER, "x-original-url": "http://hello.localhost/a", "x-original-method": "GET" },
    });
    await new Promise((r) => setImmediate(r));
    await g.clock.advance(2000);
    const t = await traefik;
    expect(t.status).toBe(503);
    expect(await t.text()).toContain("<title>hello is starting</title>");
    expect((await nginx).status).toBe(401);
    expect(await settled(nginxPost)).toBe("pending");
    expect(await settled(ingressNginx)).toBe("pending");
    const page = await auth.request("http://hook/nginx/page", {
      headers: {
        accept: BROWSER,
        "x-forwarded-host": "hello.localhost",
        "x-original-uri": "/a",
        "x-original-method": "GET",
      },
    });
    expect(page.status).toBe(503);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    g.activator.answer(READY);
    expect((await nginxPost).status).toBe(200);
    expect((await ingressNginx).status).toBe(200);
  });
});
