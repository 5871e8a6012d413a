import { describe, expect, it } from "vitest";
import { type QueueProber, queueHealthResponse } from "./queue-health.js";

const probe = (value?: string) => new Headers(value === undefined ? {} : { "K-Network-Probe": value });

describe("queue-proxy health handler (knative-spec.md a.3)", () => {
  const rows: { name: string; value?: string; prober: QueueProber | null; status: number; body: string }[] = [
    {
      name: "missing probe header",
      prober: () => true,
      status: 400,
      body: "unexpected probe header value: \n",
    },
    {
      name: "wrong probe value",
      value: "activator",
      prober: () => true,
      status: 400,
      body: "unexpected probe header value: activator\n",
    },
    { name: "no prober", value: "queue", prober: null, status: 500, body: "no probe\n" },
    { name: "prober says not ready", value: "queue", prober: () => false, status: 503, body: "" },
    { name: "async prober not ready", value: "queue", prober: async () => false, status: 503, body: "" },
    {
      name: "prober throws",
      value: "queue",
      prober: () => {
        throw new Error("boom");
      },
      status: 503,
      body: "",
    },
    {
      name: "prober rejects",
      value: "queue",
      prober: () => Promise.reject(new Error("boom")),
      status: 503,
      body: "",
    },
    { name: "ready", value: "queue", prober: () => true, status: 200, body: "queue" },
    { name: "async ready", value: "queue", prober: async () => true, status: 200, body: "queue" },
  ];
  it.each(rows)("$name", async ({ value, prober, status, body }) => {
    const res = await queueHealthResponse(probe(value), prober);
    expect(res.status).toBe(status);
    expect(await res.text()).toBe(body);
  });

  it("the wrong-value check comes before the prober runs", async () => {
    let ran = false;
    await queueHealthResponse(probe("probe"), () => {
      ran = true;
      return true;
    });
    expect(ran).toBe(false);
  });
});
