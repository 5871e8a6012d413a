import { systemClock } from "@thaw/clock";
import { afterEach, describe, expect, it } from "vitest";
import { policyFor } from "../src/policy.js";
import type { Scaler } from "../src/scalers/scaler.js";
import { type AutoscalerServer, startAutoscalerServer } from "../src/server.js";
import { AutoscalerService } from "../src/service.js";

// POST /v1/activate on the autoscaler (CONTRACTS.md): a wake hint alone, as a cluster's activator passes it on.
const TOKEN = "a-token-of-sixteen-chars";

let server: AutoscalerServer | undefined;
let service: AutoscalerService | undefined;
afterEach(async () => {
  await service?.stop();
  await server?.close();
  server = undefined;
});

async function start() {
  const scaled: number[] = [];
  const scaler: Scaler = {
    scale: async (_rev, n) => {
      scaled.push(n);
    },
    pods: () => [],
    subscribe: () => () => {},
    close: async () => {},
  };
  service = new AutoscalerService({ scaler, clock: systemClock });
  const p = policyFor({ containerConcurrency: 1 });
  if (!p.ok) throw new Error("policy");
  service.addRevision({ namespace: "default", name: "hello" }, p.value);
  service.start();
  server = await startAutoscalerServer({ service, clock: systemClock, token: TOKEN });
  const post = (body: unknown, token = TOKEN) =>
    fetch(`${server?.url}/v1/activate`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return { scaled, post };
}

describe("autoscaler POST /v1/activate (wake hints)", () => {
  it("holds a hint: 202 with warmUntilMs, the revision's warm status shows it, and one pod is asked for", async () => {
    const { scaled, post } = await start();
    const before = Date.now();
    const res = await post({ namespace: "default", name: "hello", ttlSeconds: 60 });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { warmUntilMs: number };
    expect(body.warmUntilMs).toBeGreaterThanOrEqual(before + 60_000);
    expect(service?.status({ namespace: "default", name: "hello" })?.warm.hintUntilMs).toBe(body.warmUntilMs);
    for (let i = 0; i < 100 && scaled.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(scaled).toEqual([1]);
  });

  it.each([
    {
      name: "an activation that waits",
      body: { namespace: "default", name: "hello", timeoutMs: 1000 },
      status: 400,
      match: /timeoutMs/,
    },
    {
      name: "a TTL out of range",
      body: { namespace: "default", name: "hello", ttlSeconds: 0 },
      status: 400,
      match: /ttlSeconds/,
    },
    {
      name: "an unknown revision",
      body: { namespace: "default", name: "nope", ttlSeconds: 5 },
      status: 404,
      match: /nope/,
    },
  ])("refuses $name ($status), naming it", async ({ body, status, match }) => {
    const { post, scaled } = await start();
    const res = await post(body);
    expect(res.status).toBe(status);
    expect(await res.text()).toMatch(match);
    expect(scaled).toEqual([]);
  });

  it("refuses a caller without the token (401)", async () => {
    const { post } = await start();
    expect(
      (await post({ namespace: "default", name: "hello", ttlSeconds: 5 }, "wrong-token-wrong-token")).status,
    ).toBe(401);
  });
});
