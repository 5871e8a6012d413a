import { describe, expect, it } from "vitest";
import { BodyBudget } from "./body-budget.js";

describe("BodyBudget", () => {
  it("bounds each revision and the process, and gives bytes back on release", () => {
    const budget = new BodyBudget({ revisionBytes: 10, processBytes: 15 });
    const a1 = budget.open("ns/a");
    const a2 = budget.open("ns/a");
    const b = budget.open("ns/b");
    expect(a1.take(6)).toBe(true);
    // Revision a has 4 left.
    expect(a2.take(5)).toBe(false);
    expect(a2.take(4)).toBe(true);
    // The process has 5 left, revision b its full 10.
    expect(b.take(6)).toBe(false);
    expect(b.take(5)).toBe(true);
    expect([budget.used, budget.usedBy("ns/a"), budget.usedBy("ns/b")]).toEqual([15, 10, 5]);
    a1.release();
    expect([budget.used, budget.usedBy("ns/a")]).toEqual([9, 4]);
    expect(b.take(5)).toBe(true);
    a2.release();
    b.release();
    expect([budget.used, budget.usedBy("ns/a"), budget.usedBy("ns/b")]).toEqual([0, 0, 0]);
  });

  it("a released account takes nothing more and releases once", () => {
    const budget = new BodyBudget({ revisionBytes: 10, processBytes: 10 });
    const a = budget.open("r");
    expect(a.take(4)).toBe(true);
    a.release();
    a.release();
    expect(a.take(1)).toBe(false);
    expect(budget.used).toBe(0);
  });

  it("defaults to 16 MiB per revision and 64 MiB per process; 0 keeps nothing", () => {
    const budget = new BodyBudget();
    const mib = 1024 * 1024;
    expect(budget.open("r1").take(16 * mib)).toBe(true);
    expect(budget.open("r1").take(1)).toBe(false);
    for (const r of ["r2", "r3", "r4"]) expect(budget.open(r).take(16 * mib)).toBe(true);
    expect(budget.open("r5").take(1)).toBe(false);
    expect(new BodyBudget({ processBytes: 0 }).open("r").take(1)).toBe(false);
  });
});
