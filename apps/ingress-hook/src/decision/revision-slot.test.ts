import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { FakeActivatorClient } from "../testing/fake-activator-client.js";
import { IngressHook, type IngressHookOptions } from "./hook.js";
import type { HookRequest } from "./request-view.js";
import { hostTableResolver, type Resolver, routeHeadersResolver } from "./resolvers.js";

const table = hostTableResolver([
  { name: "hello", namespace: "default", hosts: ["hello.localhost"] },
  { name: "api", namespace: "shop", hosts: ["shop.localhost"], paths: ["/api"] },
  { name: "web", namespace: "shop", hosts: ["shop.localhost"] },
]);

function setup(extra: Partial<IngressHookOptions> = {}, resolvers: Resolver[] = [table]) {
  const clock = new ManualClock(1_000);
  const activator = new FakeActivatorClient();
  const hook = new IngressHook({ clock, activator, resolvers, random: () => 0.25, ...extra });
  return { clock, activator, hook, gen: hook.cache.watchConnected() };
}

function req(host: string, path = "/", headers: Record<string, string> = {}): HookRequest {
  return { method: "GET", host, path, headers: new Headers(headers) };
}

function push(hook: IngressHook, gen: number, name: string, endpoints: string[], namespace = "default") {
  hook.cache.applyEvent({ namespace, name, endpoints, mode: "serve" }, gen, 0);
}

describe("revision slots: the warm decision reads one slot per revision", () => {
  it("answers a one-pod revision with the same allow every time, and a new one when its pod changes", () => {
    const { hook, clock, gen } = setup();
    push(hook, gen, "hello", ["a:1"]);
    const first = hook.tryDecide(req("hello.localhost"), clock.now());
    expect(first).toEqual({
      kind: "allow",
      revision: { namespace: "default", name: "hello" },
      key: "default/hello",
      upstream: "a:1",
      via: "pod",
      warm: true,
    });
    // Nothing is built per request: the slot hands out the allow it prepared.
    expect(hook.tryDecide(req("hello.localhost"), clock.now())).toBe(first);
    push(hook, gen, "hello", ["b:2"]);
    expect(hook.tryDecide(req("hello.localhost"), clock.now())).toMatchObject({ upstream: "b:2" });
  });

  it("keeps path routes apart on one host, each with its own slot", () => {
    const { hook, clock, gen } = setup();
    push(hook, gen, "api", ["api:1"], "shop");
    expect(hook.tryDecide(req("shop.localhost", "/api/x"), clock.now())).toMatchObject({ upstream: "api:1" });
    expect(hook.tryDecide(req("shop.localhost", "/"), clock.now())).toMatchObject({
      kind: "cold",
      key: "shop/web",
    });
  });

  it("round-robins several pods by the revision's policy, its position kept when the pods change", () => {
    const { hook, clock, gen } = setup({ containerConcurrencyFor: () => 10 });
    push(hook, gen, "hello", ["a:1", "b:2"]);
    const up = () => (hook.tryDecide(req("hello.localhost"), clock.now()) as { upstream?: string }).upstream;
    expect([up(), up(), up()]).toEqual(["a:1", "b:2", "a:1"]);
    push(hook, gen, "hello", ["a:1", "b:2", "c:3"]);
    expect([up(), up(), up()]).toEqual(["b:2", "c:3", "a:1"]);
  });

  it("an invalidated host-table revision goes cold, stays in the table, and warms again", () => {
    const { hook, clock, gen } = setup();
    push(hook, gen, "hello", ["a:1"]);
    expect(hook.cache.size).toBe(1);
    hook.cache.invalidate("default/hello");
    expect(hook.cache.size).toBe(0);
    expect(hook.tryDecide(req("hello.localhost"), clock.now()).kind).toBe("cold");
    hook.cache.recordActivation("default/hello", ["c:3"], clock.now());
    expect(hook.tryDecide(req("hello.localhost"), clock.now())).toMatchObject({
      upstream: "c:3",
      warm: true,
    });
  });

  it("two hooks sharing one resolver keep their own warm state", () => {
    const one = setup();
    const two = setup();
    push(one.hook, one.gen, "hello", ["a:1"]);
    expect(one.hook.tryDecide(req("hello.localhost"), 1000).kind).toBe("allow");
    expect(two.hook.tryDecide(req("hello.localhost"), 1000).kind).toBe("cold");
  });

  it("revisions named by route headers are looked up by key; cold ones add nothing to the cache", async () => {
    const token = { "x-thaw-route-token": "s3cret" };
    const named = { "knative-serving-namespace": "ns1", "knative-serving-revision": "rev1", ...token };
    const { hook, clock, activator } = setup({ routeToken: "s3cret" }, [routeHeadersResolver(), table]);
    expect(hook.tryDecide(req("x", "/", named), clock.now())).toMatchObject({
      kind: "cold",
      key: "ns1/rev1",
    });
    expect(hook.cache.peek("ns1/rev1")).toBeUndefined();
    const d = hook.decide(req("x", "/", named));
    activator.answer({ kind: "ready", endpoints: ["r:1"], coldStart: true });
    expect(await d).toMatchObject({ upstream: "r:1", warm: false });
    expect(hook.tryDecide(req("x", "/", named), clock.now())).toMatchObject({ upstream: "r:1", warm: true });
    // The activator forgets it: its slot leaves the cache (no table holds it).
    hook.cache.invalidate("ns1/rev1");
    expect(hook.cache.peek("ns1/rev1")).toBeUndefined();
  });
});
