import { decodeWireStatMessages, emptyStat } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import { activatorStatsSink } from "./held-stats-sink.js";

const batch = [
  { namespace: "ns", name: "hello", stat: { ...emptyStat("hook-0"), averageConcurrentRequests: 9 } },
];
const settle = () => new Promise((r) => setTimeout(r, 0));

describe("activatorStatsSink", () => {
  it("posts each batch to the activator's /v1/stats as protobuf with the token", async () => {
    const seen: Request[] = [];
    const sink = activatorStatsSink({
      baseUrl: "http://activator:8012",
      token: "t0ken",
      podName: "hook-0",
      fetch: async (r) => {
        seen.push(r);
        return new Response(null, { status: 204 });
      },
    });
    sink.send(batch);
    await settle();
    expect(seen).toHaveLength(1);
    const r = seen[0] as Request;
    expect([r.method, r.url, r.headers.get("authorization"), r.headers.get("content-type")]).toEqual([
      "POST",
      "http://activator:8012/v1/stats",
      "Bearer t0ken",
      "application/protobuf",
    ]);
    const decoded = decodeWireStatMessages(new Uint8Array(await r.arrayBuffer()));
    expect(decoded.ok && decoded.value[0]?.stat?.averageConcurrentRequests).toBe(9);
  });

  it("stops after a 404 (the activator passes no stats on); counts other failures and keeps sending", async () => {
    const statuses = [500, 404, 204];
    let calls = 0;
    const sink = activatorStatsSink({
      baseUrl: "http://activator:8012",
      podName: "hook-0",
      fetch: async () => new Response(null, { status: statuses[calls++] ?? 204 }),
    });
    sink.send(batch);
    await settle();
    expect(sink.failures).toBe(1);
    sink.send(batch);
    await settle();
    sink.send(batch);
    await settle();
    expect(calls).toBe(2);
  });
});
