import { describe, expect, it } from "vitest";
import { samplePods } from "./pod-sample.js";
import type { PodInfo } from "./scalers/scaler.js";

function pods(n: number, oldCount: number): PodInfo[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `p${i}`,
    address: `127.0.0.1:${1000 + i}`,
    ready: true,
    startedAt: i < oldCount ? 0 : 100_000,
  }));
}

describe("samplePods", () => {
  it.each([
    ["3 pods: all", 3, 3],
    ["5 pods: 4", 5, 4],
    ["10 pods: 7", 10, 7],
    ["100 pods: 14", 100, 14],
  ])("%s", (_n, population, size) => {
    expect(samplePods(pods(population, 0), 120_000, 60_000, () => 0.5)).toHaveLength(size);
  });

  it("takes pods older than the stable window first", () => {
    const chosen = samplePods(pods(10, 3), 120_000, 60_000, () => 0.99);
    expect(
      chosen
        .slice(0, 3)
        .map((p) => p.name)
        .sort(),
    ).toEqual(["p0", "p1", "p2"]);
  });
});
