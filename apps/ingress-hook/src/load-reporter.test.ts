import { describe, expect, it } from "vitest";
import { LoadReporter } from "./load-reporter.js";

const rev = { namespace: "default", name: "hello" };

describe("LoadReporter (the gateway's load, for the edge decider)", () => {
  it("reports concurrency x time and counts at most once a period, then forgets idle revisions", () => {
    const r = new LoadReporter(0);
    r.requestIn(rev, 0);
    r.requestIn(rev, 0);
    r.requestOut(rev, 500);
    expect(r.take(900)).toEqual([]);
    const [first] = r.take(1000);
    expect(first?.requestCount).toBe(2);
    // 2 open for 500 ms, 1 open for 500 ms: 1.5 average over 1000 ms.
    expect(first?.requestMs).toBeCloseTo(1500, 0);
    r.requestOut(rev, 1200);
    expect(r.take(2000)[0]?.requestCount).toBe(0);
    expect(r.take(3000)).toEqual([]);
  });

  it("stops for good when told to", () => {
    const r = new LoadReporter(0);
    r.stop();
    r.requestIn(rev, 0);
    expect(r.take(5000)).toEqual([]);
  });
});
