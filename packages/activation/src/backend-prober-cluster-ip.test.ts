import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ManualClock } from "@thaw/clock/testing";
import { afterEach, describe, expect, it } from "vitest";
import { BackendProber, type BackendProberOptions } from "./backend-prober.js";
import type { FetchLike, MeshMode } from "./probe.js";
import { type FakeAnswer as Answer, fakeFetch } from "./test-support/fake-fetch.js";

const CIP = "rev-private.ns:8012";

function setup(state: Map<string, Answer>, extra: Partial<BackendProberOptions> = {}) {
  const clock = new ManualClock(0);
  const { fetch, calls } = fakeFetch(state);
  const healthy: string[][] = [];
  const viaCip: [string, number][] = [];
  const prober = new BackendProber({
    fetch,
    clock,
    clusterIP: CIP,
    onHealthy: (d) => healthy.push(d),
    onClusterIP: (dest, backends) => viaCip.push([dest, backends]),
    ...extra,
  });
  return { clock, calls, healthy, viaCip, prober };
}

describe("BackendProber ClusterIP fallback (d.3)", () => {
  const rows: {
    name: string;
    pods: Answer[];
    meshMode?: MeshMode;
    passthroughLb?: boolean;
    fallsBack: boolean;
  }[] = [
    { name: "all four conditions hold (mesh answers, auto)", pods: ["mesh", "down"], fallsBack: true },
    {
      name: "mesh mode enabled also falls back",
      pods: ["mesh", "mesh"],
      meshMode: "enabled",
      fallsBack: true,
    },
    { name: "a healthy pod prevents it", pods: ["up", "mesh"], fallsBack: false },
    { name: "a 404 (non-mesh answer) prevents it", pods: ["404", "mesh"], fallsBack: false },
    { name: "a 200 with the wrong body prevents it", pods: ["wrong-body", "mesh"], fallsBack: false },
    { name: "passthrough LB prevents it", pods: ["mesh", "mesh"], passthroughLb: true, fallsBack: false },
    {
      name: "mesh mode disabled prevents it",
      pods: ["mesh", "mesh"],
      meshMode: "disabled",
      fallsBack: false,
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      // Not-ready endpoints: probed in every mesh mode, so only the row's condition differs.
      const pods = row.pods.map((_, i) => `10.0.0.${i + 1}:8012`);
      const state = new Map<string, Answer>([
        [CIP, "up"],
        ...pods.map((p, i) => [p, row.pods[i]] as [string, Answer]),
      ]);
      const extra: Partial<BackendProberOptions> = {
        passthroughLb: row.passthroughLb ?? false,
        revision: { namespace: "ns", name: "rev" },
      };
      if (row.meshMode) extra.meshMode = row.meshMode;
      const { clock, calls, viaCip, prober } = setup(state, extra);
      await prober.updateEndpoints([], pods);
      await clock.advance(1000);
      prober.stop();
      if (row.fallsBack) {
        expect(viaCip).toEqual([[CIP, 0]]);
        expect(prober.clusterIP).toBe(CIP);
        expect(calls.filter((h) => h === CIP).length).toBe(1);
      } else {
        expect(viaCip).toEqual([]);
        expect(prober.clusterIP).toBeUndefined();
        expect(calls).not.toContain(CIP);
      }
    });
  }

  it("a non-mesh answer in an earlier round keeps the fallback off for good", async () => {
    const state = new Map<string, Answer>([
      [CIP, "up"],
      ["p:1", "404"],
    ]);
    const { clock, calls, viaCip, prober } = setup(state);
    await prober.updateEndpoints([], ["p:1"]);
    state.set("p:1", "mesh");
    await clock.advance(1000);
    prober.stop();
    expect(calls.filter((h) => h === "p:1").length).toBe(6);
    expect(calls).not.toContain(CIP);
    expect(viaCip).toEqual([]);
  });

  it("after the switch endpoint updates report the ClusterIP with the ready count and probe no pod", async () => {
    const state = new Map<string, Answer>([
      [CIP, "up"],
      ["a:1", "mesh"],
      ["b:1", "mesh"],
    ]);
    const { clock, calls, healthy, viaCip, prober } = setup(state);
    await prober.updateEndpoints(["a:1", "b:1"], []);
    expect(viaCip).toEqual([[CIP, 2]]);
    // The switching round reports the ClusterIP instead of an empty pod set.
    expect(healthy).toEqual([]);
    const sent = calls.length;
    state.set("c:1", "up");
    await prober.updateEndpoints(["a:1", "b:1", "c:1"], ["d:1"]);
    await prober.updateEndpoints([], ["a:1"]);
    await prober.probeNow();
    await clock.advance(2000);
    expect(viaCip).toEqual([
      [CIP, 2],
      [CIP, 3],
      [CIP, 0],
    ]);
    expect(calls.length).toBe(sent);
    expect(healthy).toEqual([]);
    expect(prober.healthy).toEqual([]);
    expect(clock.pending).toBe(0);
  });

  it("a failed ClusterIP probe keeps the 200 ms re-probe schedule and retries the ClusterIP", async () => {
    const state = new Map<string, Answer>([
      [CIP, "down"],
      ["p:1", "mesh"],
    ]);
    const { clock, calls, healthy, viaCip, prober } = setup(state);
    await prober.updateEndpoints(["p:1"], []);
    expect(healthy).toEqual([[]]);
    expect(calls).toEqual(["p:1", CIP]);
    await clock.advance(199);
    expect(calls.length).toBe(2);
    state.set(CIP, "up");
    await clock.advance(1);
    expect(calls).toEqual(["p:1", CIP, "p:1", CIP]);
    expect(viaCip).toEqual([[CIP, 1]]);
    await clock.advance(1000);
    expect(calls.length).toBe(4);
    expect(clock.pending).toBe(0);
  });

  it("a ClusterIP probe that outlives the round deadline fails", async () => {
    const clock = new ManualClock(0);
    const viaCip: [string, number][] = [];
    const fetch: FetchLike = (url, init) =>
      new URL(url).host === CIP
        ? clock.sleep(400, init.signal ?? undefined).then(() => new Response("queue"))
        : Promise.resolve(new Response("", { status: 502 }));
    const prober = new BackendProber({
      fetch,
      clock,
      clusterIP: CIP,
      onHealthy: () => {},
      onClusterIP: (d, n) => viaCip.push([d, n]),
    });
    const round = prober.updateEndpoints(["p:1"], []);
    await clock.advance(300);
    await round;
    prober.stop();
    expect(viaCip).toEqual([]);
    expect(prober.clusterIP).toBeUndefined();
  });

  it("without a clusterIP option there is no fallback, and clusterIP without onClusterIP throws", async () => {
    const clock = new ManualClock(0);
    const { fetch, calls } = fakeFetch(new Map([["p:1", "mesh"]]));
    const prober = new BackendProber({ fetch, clock, onHealthy: () => {} });
    await prober.updateEndpoints(["p:1"], []);
    prober.stop();
    expect(calls).toEqual(["p:1"]);
    expect(() => new BackendProber({ fetch, clock, onHealthy: () => {}, clusterIP: CIP })).toThrow(TypeError);
  });
});

describe("BackendProber: a ClusterIP learned later, and endpoints changing mid-round", () => {
  it("setClusterIP after a mesh round probes the new address at once and switches", async () => {
    const state = new Map<string, Answer>([
      [CIP, "up"],
      ["p:1", "mesh"],
    ]);
    const clock = new ManualClock(0);
    const { fetch, calls } = fakeFetch(state);
    const viaCip: [string, number][] = [];
    const prober = new BackendProber({
      fetch,
      clock,
      onHealthy: () => {},
      onClusterIP: (d, n) => viaCip.push([d, n]),
    });
    await prober.updateEndpoints(["p:1"], []);
    expect(calls).toEqual(["p:1"]);
    prober.setClusterIP(CIP);
    await clock.advance(0);
    await prober.probeNow();
    prober.stop();
    expect(viaCip).toEqual([[CIP, 1]]);
    expect(calls).toContain(CIP);
  });

  it("endpoints that arrive while an empty round runs are probed before the fallback is judged", async () => {
    // The 404 pod shows pods are addressable: the ClusterIP must never be tried.
    const state = new Map<string, Answer>([
      [CIP, "up"],
      ["p:1", "404"],
    ]);
    const { clock, calls, viaCip, prober } = setup(state);
    const first = prober.probeNow();
    const second = prober.updateEndpoints(["p:1"], []);
    await Promise.all([first, second]);
    await clock.advance(500);
    prober.stop();
    expect(calls).not.toContain(CIP);
    expect(calls[0]).toBe("p:1");
    expect(viaCip).toEqual([]);
  });
});

describe("BackendProber passthrough LB probes (P2)", () => {
  it("sends Host <rev>-private.<ns> and K-Passthrough-Lb: true only with passthroughLb", async () => {
    const seen: Headers[] = [];
    const fetch: FetchLike = async (_url, init) => {
      seen.push(new Headers(init.headers));
      return new Response("queue");
    };
    const revision = { namespace: "ns", name: "rev" };
    for (const passthroughLb of [true, false]) {
      const p = new BackendProber({
        fetch,
        clock: new ManualClock(0),
        onHealthy: () => {},
        passthroughLb,
        revision,
      });
      await p.updateEndpoints([], [`p${passthroughLb}:1`]);
      p.stop();
    }
    expect(seen.map((h) => [h.get("host"), h.get("k-passthrough-lb"), h.get("k-network-probe")])).toEqual([
      ["rev-private.ns", "true", "queue"],
      [null, null, "queue"],
    ]);
    expect(
      () => new BackendProber({ fetch, clock: new ManualClock(0), onHealthy: () => {}, passthroughLb: true }),
    ).toThrow(/needs the revision/);
  });
});

describe("BackendProber ClusterIP fallback against real loopback servers", () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) s.close();
  });

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return `127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("probes the ClusterIP like a pod after the pod gives a mesh answer, and switches", async () => {
    const cipSeen: Record<string, string | undefined>[] = [];
    const pod = await serve((_req, res) => {
      res.statusCode = 503;
      res.end("upstream connect error");
    });
    const cip = await serve((req, res) => {
      cipSeen.push({
        path: req.url,
        probe: req.headers["k-network-probe"] as string,
        ua: req.headers["user-agent"],
      });
      res.end(req.headers["k-network-probe"] === "queue" ? "queue" : "nope");
    });
    const viaCip: [string, number][] = [];
    const prober = new BackendProber({
      fetch: globalThis.fetch,
      clock: new ManualClock(0),
      clusterIP: cip,
      onHealthy: () => {},
      onClusterIP: (d, n) => viaCip.push([d, n]),
    });
    await prober.updateEndpoints([pod], []);
    prober.stop();
    expect(viaCip).toEqual([[cip, 1]]);
    expect(cipSeen).toEqual([{ path: "/healthz", probe: "queue", ua: "Knative-Activator-Probe" }]);
  });
});
