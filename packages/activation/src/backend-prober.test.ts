import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ManualClock } from "@thaw/clock/testing";
import { afterEach, describe, expect, it } from "vitest";
import { BackendProber } from "./backend-prober.js";
import type { FetchLike } from "./probe.js";
import { type FakeAnswer, fakeFetch } from "./test-support/fake-fetch.js";

describe("BackendProber", () => {
  it("re-probes every 200 ms until a not-ready pod answers, then stops", async () => {
    const clock = new ManualClock(0);
    const state = new Map<string, FakeAnswer>([["p1:8012", "down"]]);
    const { fetch, calls } = fakeFetch(state);
    const seen: string[][] = [];
    const prober = new BackendProber({ fetch, clock, onHealthy: (d) => seen.push(d) });
    await prober.updateEndpoints([], ["p1:8012"]);
    expect(seen).toEqual([[]]);
    await clock.advance(199);
    expect(calls.length).toBe(1);
    await clock.advance(1);
    expect(calls.length).toBe(2);
    state.set("p1:8012", "up");
    await clock.advance(200);
    expect(seen).toEqual([[], ["p1:8012"]]);
    await clock.advance(1000);
    expect(calls.length).toBe(3);
    expect(clock.pending).toBe(0);
  });

  it("probeNow runs a round at once and the activating interval is used while waking", async () => {
    const clock = new ManualClock(0);
    const state = new Map<string, FakeAnswer>();
    const { fetch, calls } = fakeFetch(state);
    const prober = new BackendProber({ fetch, clock, onHealthy: () => {}, activatingIntervalMs: 25 });
    prober.setActivating(true);
    await prober.updateEndpoints([], ["p:1"]);
    await clock.advance(25);
    expect(calls.length).toBe(2);
    state.set("p:1", "up");
    await prober.probeNow();
    expect(prober.healthy).toEqual(["p:1"]);
  });

  it("drops a pod that goes from ready to not ready and probes it again", async () => {
    const clock = new ManualClock(0);
    const state = new Map<string, FakeAnswer>([["a:1", "up"]]);
    const { fetch } = fakeFetch(state);
    const seen: string[][] = [];
    const prober = new BackendProber({ fetch, clock, onHealthy: (d) => seen.push(d) });
    await prober.updateEndpoints(["a:1"], []);
    state.set("a:1", "down");
    await prober.updateEndpoints([], ["a:1"]);
    expect(seen).toEqual([["a:1"], []]);
  });

  it("without the probe optimisation only ready endpoints count", async () => {
    const clock = new ManualClock(0);
    const state = new Map<string, FakeAnswer>([
      ["a:1", "up"],
      ["b:1", "up"],
    ]);
    const { fetch } = fakeFetch(state);
    const prober = new BackendProber({ fetch, clock, onHealthy: () => {}, probeOptimisation: false });
    await prober.updateEndpoints(["a:1"], ["b:1"]);
    expect(prober.healthy).toEqual(["a:1"]);
    prober.stop();
    expect(clock.pending).toBe(0);
  });

  it("a probe that outlives the 300 ms round deadline fails", async () => {
    const clock = new ManualClock(0);
    const fetch: FetchLike = (_url, init) =>
      clock.sleep(400, init.signal ?? undefined).then(() => new Response("queue"));
    const prober = new BackendProber({ fetch, clock, onHealthy: () => {} });
    const round = prober.updateEndpoints([], ["slow:1"]);
    await clock.advance(300);
    await round;
    expect(prober.healthy).toEqual([]);
    prober.stop();
  });
});

describe("BackendProber against a real queue-proxy stand-in", () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it("sends K-Network-Probe: queue and the activator user agent, and accepts only `queue`", async () => {
    const seen: Record<string, string | undefined>[] = [];
    server = createServer((req, res) => {
      seen.push({
        path: req.url,
        probe: req.headers["k-network-probe"] as string,
        ua: req.headers["user-agent"],
      });
      res.end(req.headers["k-network-probe"] === "queue" ? "queue" : "nope");
    });
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    const dest = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const prober = new BackendProber({
      fetch: globalThis.fetch,
      clock: new ManualClock(0),
      onHealthy: () => {},
    });
    await prober.updateEndpoints([], [dest]);
    prober.stop();
    expect(prober.healthy).toEqual([dest]);
    expect(seen).toEqual([{ path: "/healthz", probe: "queue", ua: "Knative-Activator-Probe" }]);
  });
});
