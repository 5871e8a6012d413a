import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { growth, slopeOf } from "./growth.mjs";

describe("growth", () => {
  let dir = "";
  let file = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "thaw-growth-"));
    file = join(dir, "verdicts.jsonl");
    vi.stubEnv("THAW_BENCH_VERDICTS", file);
    vi.spyOn(console, "log").mockImplementation(() => {});
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads the slope of totals and of per-item costs on log-log axes", () => {
    expect(
      slopeOf(
        [
          [10, 1],
          [100, 10],
          [1000, 100],
        ],
        false,
      ),
    ).toBeCloseTo(1, 10);
    expect(
      slopeOf(
        [
          [10, 1],
          [1000, 10_000],
        ],
        false,
      ),
    ).toBeCloseTo(2, 10);
    // The same linear growth given as a flat cost per item.
    expect(
      slopeOf(
        [
          [10, 5],
          [1000, 5],
        ],
        true,
      ),
    ).toBeCloseTo(1, 10);
    expect(slopeOf([[10, 1]], false)).toBeNaN();
    expect(
      slopeOf(
        [
          [10, 0],
          [100, 1],
        ],
        false,
      ),
    ).toBeNaN();
  });

  it("passes a total that grows linearly and misses one whose per-item cost grows past the target", () => {
    expect(
      growth(
        "tick by revisions",
        [
          [100, 0.2],
          [1000, 2.1],
          [10_000, 24],
        ],
        { unit: "ms" },
      ),
    ).toBe(true);
    expect(
      growth(
        "scrape by pods",
        [
          [10, 1],
          [100, 12],
          [1000, 400],
        ],
        { item: "pod" },
      ),
    ).toBe(false);
    const lines = vi.mocked(console.log).mock.calls.map((c) => String(c[0]));
    expect(lines[0]).toMatch(
      /growth tick by revisions: 100 -> 0\.20 ms, 1000 -> 2\.10 ms, 10000 -> 24\.0 ms/,
    );
    expect(lines[0]).toMatch(/slope 1\.04/);
    expect(lines[1]).toMatch(
      /^PASS {2}growth: tick by revisions, per item 100x \/ 1x +1\.20 x +target <= 1\.5 x/,
    );
    expect(lines[3]).toMatch(/^MISS {2}growth: scrape by pods, per pod 100x \/ 1x +4\.00 x/);
    const recorded = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(recorded.map((r) => [r.op, r.target, r.pass])).toEqual([
      ["<=", 1.5, true],
      ["<=", 1.5, false],
    ]);
  });

  it("takes per-item values as they are and honours another target", () => {
    expect(
      growth(
        "decision ns",
        [
          [10, 100],
          [100, 120],
          [1000, 190],
        ],
        { perItem: true, target: 2 },
      ),
    ).toBe(true);
    expect(
      growth(
        "decision ns",
        [
          [10, 100],
          [100, 120],
          [1000, 210],
        ],
        { perItem: true, target: 2 },
      ),
    ).toBe(false);
  });
});
