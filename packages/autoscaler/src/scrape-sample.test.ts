import { describe, expect, it } from "vitest";
import { chooseScrapeSample } from "./scrape-sample.js";

const pods = (ages: number[]) => ages.map((a, i) => ({ id: `p${i}`, startedAtMs: 100_000 - a }));

describe("chooseScrapeSample", () => {
  it.each([
    { name: "all of 3", ages: [1, 2, 3], n: 3 },
    { name: "7 of 10", ages: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], n: 7 },
    { name: "none of 0", ages: [], n: 0 },
  ])("takes the sample size: $name", ({ ages, n }) => {
    expect(chooseScrapeSample(pods(ages), 100_000, 60_000, () => 0.5)).toHaveLength(n);
  });

  it("prefers pods older than the stable window", () => {
    // Ten pods, three young; a sample of 7 must include every old one.
    const ps = pods([1000, 70_000, 2000, 61_000, 90_000, 60_000, 3000, 80_000, 65_000, 99_000]);
    const got = chooseScrapeSample(ps, 100_000, 60_000, () => 0.3).map((p) => p.id);
    expect(got.sort()).toEqual(["p1", "p3", "p4", "p5", "p7", "p8", "p9"]);
  });
});
