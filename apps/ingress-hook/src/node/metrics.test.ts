import { ManualClock } from "@thaw/clock/testing";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { httpActivatorClient } from "../decision/activator-client.js";
import { IngressHook } from "../decision/hook.js";
import { hostTableResolver } from "../decision/resolvers.js";
import { hookMetrics } from "../metrics.js";
import { hookServiceApp } from "./service.js";

/** A hook whose in-memory activator answers every activation ready at once (CONTRACTS.md shape). */
function setup() {
  const clock = new ManualClock(0);
  const activator = new Hono();
  activator.post("/v1/activate", (c) =>
    c.json({
      namespace: "default",
      name: "hello",
      endpoints: ["10.0.0.1:8012"],
      coldStart: true,
      waitedMs: 5,
    }),
  );
  const hook = new IngressHook({
    clock,
    resolvers: [hostTableResolver([{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }])],
    activator: httpActivatorClient({
      baseUrl: "http://a.test",
      fetch: async (r) => activator.fetch(r),
      clock,
    }),
    random: () => 0.5,
  });
  return { hook, metrics: hookMetrics(hook) };
}

const auth = (host: string) =>
  new Request("http://hook/nginx", {
    headers: { authorization: "Bearer tok", "x-forwarded-host": host, "x-original-uri": "/" },
  });

describe("hook metrics (docs/metrics.md)", () => {
  it("count decisions by outcome and activations; /metrics needs the token", async () => {
    const { hook, metrics } = setup();
    const app = hookServiceApp(hook, "tok", () => false, metrics);
    expect((await app.fetch(auth("hello.localhost"))).status).toBe(200); // cold: one activation
    expect((await app.fetch(auth("hello.localhost"))).status).toBe(200); // warm, from the cache
    expect((await app.fetch(auth("nobody.localhost"))).status).toBe(403); // nginx dialect: a deny is 403 + the reason headers
    expect((await app.fetch(new Request("http://hook/metrics"))).status).toBe(401);
    const res = await app.fetch(
      new Request("http://hook/metrics", { headers: { authorization: "Bearer tok" } }),
    );
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await res.text();
    expect(text).toContain('thaw_hook_decisions_total{decision="warm_allow"} 1\n');
    expect(text).toContain('thaw_hook_decisions_total{decision="cold_allow"} 1\n');
    expect(text).toContain('thaw_hook_decisions_total{decision="deny"} 1\n');
    expect(text).toContain("thaw_hook_activations_total 1\n");
  });

  it("count the watch stream's connects and losses", () => {
    const { metrics } = setup();
    metrics.watchState("connected");
    metrics.watchState("lost");
    metrics.watchState("connected");
    const text = metrics.registry.render();
    expect(text).toContain("thaw_hook_watch_connects_total 2\n");
    expect(text).toContain("thaw_hook_watch_losses_total 1\n");
  });
});
