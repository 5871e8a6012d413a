import { describe, expect, it } from "vitest";
import { MetricCollector, shouldPoke } from "./collector.js";
import { scaleScrapedStats } from "./load-stat.js";

const T = 1_700_000_010_000;
const spec = { stableWindowMs: 60_000, panicWindowMs: 6000, scrapeTarget: "rev-private" };

describe("MetricCollector", () => {
  it("says no data before any stat when it has a scrape target, zeros without one", () => {
    const c = new MetricCollector();
    c.createOrUpdate("a", spec, T);
    c.createOrUpdate("b", { ...spec, scrapeTarget: "" }, T);
    expect(c.stableAndPanicConcurrency("a", T)).toEqual({ ok: false, error: "no-data" });
    expect(c.stableAndPanicConcurrency("b", T)).toEqual({ ok: true, stable: 0, panic: 0 });
    expect(c.stableAndPanicRPS("zzz", T)).toEqual({ ok: false, error: "not-found" });
  });

  it("records a stat with timestamp 0 at now, others at their own second", () => {
    const c = new MetricCollector();
    c.createOrUpdate("a", spec, T);
    c.recordStat("a", { averageConcurrentRequests: 4, requestCount: 2, timestamp: 0 }, T + 10_000);
    c.recordStat(
      "a",
      { averageConcurrentRequests: 6, requestCount: 2, timestamp: (T + 9000) / 1000 },
      T + 10_000,
    );
    const r = c.stableAndPanicConcurrency("a", T + 10_000);
    expect(r).toEqual({ ok: true, stable: 5, panic: 5 });
  });

  it("subtracts proxied traffic", () => {
    const c = new MetricCollector();
    c.createOrUpdate("a", spec, T);
    c.record("a", T, {
      averageConcurrentRequests: 10,
      averageProxiedConcurrentRequests: 4,
      requestCount: 8,
      proxiedRequestCount: 3,
    });
    expect(c.readingFor("a", "concurrency", T)).toMatchObject({ stable: 6 });
    expect(c.readingFor("a", "rps", T)).toMatchObject({ stable: 5 });
  });

  it("keeps data when the window is resized and switches to weighted windows on request", () => {
    const c = new MetricCollector();
    c.createOrUpdate("a", spec, T);
    c.record("a", T, { averageConcurrentRequests: 10, requestCount: 0 });
    c.createOrUpdate("a", { ...spec, stableWindowMs: 120_000 }, T);
    // The bucket survives; as in Knative the first write is then assumed a whole old window back (60 buckets).
    expect(c.stableAndPanicConcurrency("a", T)).toMatchObject({ stable: 0.166667 });
    c.createOrUpdate("a", { ...spec, aggregation: "weighted" }, T);
    expect(c.stableAndPanicConcurrency("a", T)).toEqual({ ok: false, error: "no-data" });
  });

  it("snapshots and restores a revision's windows", () => {
    const c = new MetricCollector();
    c.createOrUpdate("a", { ...spec, aggregation: "weighted" }, T);
    c.record("a", T, { averageConcurrentRequests: 8, requestCount: 3 });
    c.record("a", T + 1000, { averageConcurrentRequests: 2, requestCount: 1 });
    const snap = JSON.parse(JSON.stringify(c.snapshot("a")));
    const d = new MetricCollector();
    d.restore("a", snap);
    expect(d.stableAndPanicRPS("a", T + 3000)).toEqual(c.stableAndPanicRPS("a", T + 3000));
    expect(d.snapshot("a")).toEqual(c.snapshot("a"));
    expect(c.snapshot("zzz")).toBeUndefined();
  });

  it.each([
    { name: "scaled to zero and load", last: 0, conc: 1, poke: true },
    { name: "scaled to zero, no load", last: 0, conc: 0, poke: false },
    { name: "already scaled", last: 2, conc: 1, poke: false },
    { name: "unknown scale", last: -1, conc: 1, poke: false },
  ])("poke rule: $name", ({ last, conc, poke }) => {
    expect(shouldPoke(last, { averageConcurrentRequests: conc, requestCount: 1 })).toBe(poke);
  });

  it("scales a scrape sample up to the population", () => {
    const s = scaleScrapedStats(
      [
        { averageConcurrentRequests: 2, requestCount: 4 },
        { averageConcurrentRequests: 4, requestCount: 6 },
      ],
      10,
    );
    expect(s).toMatchObject({ averageConcurrentRequests: 30, requestCount: 50 });
  });
});
