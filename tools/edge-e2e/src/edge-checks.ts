/**
 * The edge's promises that hold whatever the origin (thaw up's gateway, or thaw-autoscaler's webhook
 * receiver and its queue-proxy): checked the same way by each origin's test, against the `hello` service.
 */
import { expect } from "vitest";
import { counters, type EdgeCounters, get, wakesOf } from "./http.js";

/** Where a check sends: the edge's URL, its counters token, and the service's Host. */
export interface EdgeTarget {
  url: string;
  token: string;
  host: string;
}

/**
 * 50 concurrent cold requests all answer 200 with the hello app's body, no sooner than its 3 s cold start
 * (2.5 s, for timer slack), after exactly one activation, one wake and one scale-up (`scaleUps()`).
 */
export async function expectColdBurstOneActivation(
  edge: EdgeTarget,
  scaleUps: () => unknown[],
): Promise<void> {
  const t0 = Date.now();
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      get(`${edge.url}/cold/${i}`, { host: edge.host, timeoutMs: 45_000 }),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
  expect(answers[0]?.body).toMatch(/^hello from hello-/);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(2500);
  const c = await counters(edge.url, edge.token);
  expect(c.hook.activations).toBe(1);
  expect(wakesOf(c, "hello")).toBe(1);
  expect(scaleUps()).toHaveLength(1);
}

/** 20 warm requests answer 200 with no activation and no wake; gives the counters around them. */
export async function expectWarmSkipsActivator(
  edge: EdgeTarget,
): Promise<{ before: EdgeCounters; after: EdgeCounters }> {
  const before = await counters(edge.url, edge.token);
  for (let i = 0; i < 20; i++)
    expect((await get(`${edge.url}/warm/${i}`, { host: edge.host })).status).toBe(200);
  const after = await counters(edge.url, edge.token);
  expect(after.hook.activations - before.hook.activations).toBe(0);
  expect(wakesOf(after, "hello") - wakesOf(before, "hello")).toBe(0);
  return { before, after };
}

/** With the origin gone, a warm entry and a cold one both get 503 + Retry-After (20 s at most each). */
export async function expectOriginGone503(edge: EdgeTarget): Promise<void> {
  for (const path of ["/after/warm-entry", "/after/cold-again"]) {
    const a = await get(`${edge.url}${path}`, { host: edge.host, timeoutMs: 20_000 });
    expect(a.status).toBe(503);
    expect(Number(a.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  }
}
