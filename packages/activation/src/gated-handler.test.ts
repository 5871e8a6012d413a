import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { Breaker } from "./breaker.js";
import { gatedHandler } from "./gated-handler.js";
import { RequestStats } from "./request-stats.js";

describe("gatedHandler", () => {
  it("holds the slot until the response body has been read", async () => {
    const gate = new Breaker({ queueDepth: 1, maxConcurrency: 1, initialCapacity: 1 });
    const clock = new ManualClock(0);
    const h = gatedHandler({ gate, clock, next: async () => new Response("hello") });
    const res = await h(new Request("http://x/"));
    expect(gate.inFlight).toBe(1);
    expect(await res.text()).toBe("hello");
    expect(gate.inFlight).toBe(0);
  });

  it.each([
    {
      name: "cancelled while waiting is 500 with no body",
      abort: () => AbortSignal.abort(),
      status: 500,
      body: "",
    },
    {
      name: "deadline while waiting is 503 with the error text",
      abort: () => AbortSignal.abort(new DOMException("t", "TimeoutError")),
      status: 503,
      body: "context deadline exceeded\n",
    },
  ])("$name", async ({ abort, status, body }) => {
    const gate = new Breaker({ queueDepth: 1, maxConcurrency: 1, initialCapacity: 0 });
    const clock = new ManualClock(0);
    const stats = new RequestStats(0);
    const h = gatedHandler({ gate, clock, stats, next: async () => new Response("never") });
    const res = await h(new Request("http://x/", { signal: abort() }));
    expect(res.status).toBe(status);
    expect(await res.text()).toBe(body);
    expect(stats.concurrency).toBe(0);
    expect(gate.inFlight).toBe(0);
  });

  it("releases when the upstream throws", async () => {
    const gate = new Breaker({ queueDepth: 1, maxConcurrency: 1, initialCapacity: 1 });
    const h = gatedHandler({
      gate,
      clock: new ManualClock(0),
      next: () => Promise.reject(new Error("down")),
    });
    await expect(h(new Request("http://x/"))).rejects.toThrow("down");
    expect(gate.inFlight).toBe(0);
  });
});
