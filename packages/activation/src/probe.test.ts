import { describe, expect, it } from "vitest";
import { backendProbeHeaders, type FetchLike, probeDestination } from "./probe.js";

/** A fetch that records the request and answers `status`/`body`. */
function recorder(status: number, body: string) {
  const seen: { url: string; headers: Headers }[] = [];
  const fetch: FetchLike = async (url, init) => {
    seen.push({ url, headers: new Headers(init.headers) });
    return new Response(body, { status });
  };
  return { seen, fetch };
}

describe("probeDestination (knative-spec.md a.3 P2, d.3)", () => {
  it("sends GET /healthz with K-Network-Probe: queue and the activator's user agent", async () => {
    const r = recorder(200, "queue");
    const out = await probeDestination(r.fetch, "10.0.0.7:8012", new AbortController().signal);
    expect(out).toEqual({ healthy: true, notMesh: true });
    expect(r.seen[0]?.url).toBe("http://10.0.0.7:8012/healthz");
    expect(Object.fromEntries(r.seen[0]?.headers ?? [])).toEqual({
      "k-network-probe": "queue",
      "user-agent": "Knative-Activator-Probe",
    });
  });

  it("with passthrough LB adds Host <rev>-private.<ns> and K-Passthrough-Lb: true", async () => {
    const r = recorder(200, "queue");
    const rev = { namespace: "default", name: "hello-00001" };
    await probeDestination(r.fetch, "10.0.0.7:8012", new AbortController().signal, "http", rev);
    expect(r.seen[0]?.headers.get("host")).toBe("hello-00001-private.default");
    expect(r.seen[0]?.headers.get("k-passthrough-lb")).toBe("true");
    expect(backendProbeHeaders().has("k-passthrough-lb")).toBe(false);
  });

  it.each([
    [503, "", false],
    [502, "", false],
    [404, "", true],
    [200, "ok", true],
  ])("status %i body %j: not healthy, notMesh %s", async (status, body, notMesh) => {
    const r = recorder(status, body);
    const out = await probeDestination(r.fetch, "10.0.0.7:8012", new AbortController().signal);
    expect(out.healthy).toBe(false);
    expect(out.notMesh).toBe(notMesh);
  });
});
