import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { verdict } from "./verdict.mjs";

describe("verdict", () => {
  let dir = "";
  let file = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "thaw-verdict-"));
    file = join(dir, "sub", "verdicts.jsonl");
    vi.stubEnv("THAW_BENCH_VERDICTS", file);
    vi.spyOn(console, "log").mockImplementation(() => {});
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints one PASS or MISS line and appends each verdict as a JSON line", () => {
    expect(verdict("p99", 41.2, "<", 60, "ms")).toBe(true);
    expect(verdict("ratio", 2, ">=", 2.5, "x")).toBe(false);
    const lines = vi.mocked(console.log).mock.calls.map((c) => String(c[0]));
    expect(lines[0]).toMatch(/^PASS {2}p99 +41\.2 ms +target < 60 ms +load \d/);
    expect(lines[1]).toMatch(/^MISS {2}ratio/);
    const recorded = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(recorded.map((r) => [r.name, r.value, r.op, r.target, r.unit, r.pass])).toEqual([
      ["p99", 41.2, "<", 60, "ms", true],
      ["ratio", 2, ">=", 2.5, "x", false],
    ]);
  });

  it("counts a figure that could not be measured as a MISS", () => {
    expect(verdict("missing", Number.NaN, "<", 1)).toBe(false);
  });

  it("refuses an unknown comparison, naming the allowed ones", () => {
    // @ts-expect-error: not one of the comparisons
    expect(() => verdict("x", 1, "==", 1)).toThrow(/op must be one of < <= > >=/);
  });
});
