import { describe, expect, it } from "vitest";
import type { SimulationResult } from "./simulate.js";
import { renderSvg } from "./svg.js";

const result: SimulationResult = {
  requests: 3,
  endMs: 10_000,
  podSeconds: 20,
  timeline: [
    { tMs: 2000, desired: 1, replicas: 1, readyPods: 0, concurrency: 2, panicking: false, mode: "Proxy" },
    { tMs: 4000, desired: 3, replicas: 3, readyPods: 1, concurrency: 8, panicking: true, mode: "Proxy" },
    { tMs: 6000, desired: 3, replicas: 3, readyPods: 3, concurrency: 4, panicking: true, mode: "Serve" },
  ],
  coldStarts: 1,
  coldRequests: 1,
  queued: { waited: 1, p50Ms: 0, p99Ms: 5, maxMs: 5, meanMs: 2 },
  panicPeriods: [{ startMs: 4000, endMs: 8000 }],
  scaledToZeroAtMs: [],
  maxReplicas: 3,
};

describe("renderSvg", () => {
  it("draws a replica step line, a concurrency line and one band per panic period", () => {
    const svg = renderSvg(result, "a <title> & more");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("a &lt;title&gt; &amp; more");
    const paths = [...svg.matchAll(/<path d="([^"]+)"/g)].map((m) => m[1] as string);
    expect(paths).toHaveLength(2);
    // Concurrency: one point per tick. Replicas: a step up at 4 s, then flat to the last tick.
    expect(paths[0]?.match(/[ML]/g)).toHaveLength(3);
    expect(paths[1]).toMatch(/^M[\d.]+,[\d.]+H[\d.]+V[\d.]+H[\d.]+$/);
    expect(svg.match(/fill="#f8d7d0"/g)).toHaveLength(1);
  });

  it("renders an empty timeline without paths", () => {
    const svg = renderSvg({ ...result, timeline: [], panicPeriods: [] });
    expect(svg).not.toContain("<path");
    expect(svg.trim().endsWith("</svg>")).toBe(true);
  });
});
