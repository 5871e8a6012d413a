import { describe, expect, it } from "vitest";
import { MetricCollection } from "./collection.js";
import { MetricCollector } from "./collector.js";

const T = 1_700_000_010_000;
const spec = { stableWindowMs: 60_000, panicWindowMs: 6000, scrapeTarget: "rev-private" };

describe("MetricCollection", () => {
  it("reads what the collector reads by key, for both metrics", () => {
    const c = new MetricCollector();
    const held = c.createOrUpdate("a", spec, T);
    for (let s = 0; s < 8; s++)
      c.record("a", T + s * 1000, { averageConcurrentRequests: s, requestCount: 2 * s });
    for (const at of [T + 7000, T + 7500, T + 9000, T + 70_000]) {
      expect(held.reading("concurrency", at)).toEqual(c.readingFor("a", "concurrency", at));
      expect(held.reading("rps", at)).toEqual(c.readingFor("a", "rps", at));
    }
    // Stable: 0..7 over 8 buckets; panic: its 6 buckets hold seconds 2..7.
    expect(held.reading("concurrency", T + 7000)).toEqual({ ok: true, stable: 3.5, panic: 4.5 });
  });

  it("stays the revision's collection through a resize, a change of averaging and a restore", () => {
    const c = new MetricCollector();
    const held = c.createOrUpdate("a", spec, T);
    expect(c.createOrUpdate("a", { ...spec, stableWindowMs: 120_000 }, T)).toBe(held);
    expect(held.spec.stableWindowMs).toBe(120_000);
    expect(c.createOrUpdate("a", { ...spec, aggregation: "weighted" }, T)).toBe(held);
    c.record("a", T, { averageConcurrentRequests: 8, requestCount: 3 });
    expect(held.reading("concurrency", T)).toEqual(c.readingFor("a", "concurrency", T));
    const snap = JSON.parse(JSON.stringify(c.snapshot("a")));
    c.record("a", T + 1000, { averageConcurrentRequests: 100, requestCount: 100 });
    expect(c.restore("a", snap)).toBe(held);
    expect(held.snapshot()).toEqual(snap);
    expect(c.collection("a")).toBe(held);
  });

  it("starts fresh windows when the averaging rule changes, as Knative recreates the collection", () => {
    const m = new MetricCollection(spec);
    m.record(T, { averageConcurrentRequests: 10, requestCount: 4 });
    m.update({ ...spec, aggregation: "weighted" }, T);
    expect(m.reading("concurrency", T)).toEqual({ ok: false, error: "no-data" });
    m.update({ ...spec, scrapeTarget: "" }, T);
    expect(m.reading("concurrency", T)).toEqual({ ok: true, stable: 0, panic: 0 });
  });

  it("is no longer fed by key once deleted", () => {
    const c = new MetricCollector();
    const held = c.createOrUpdate("a", spec, T);
    c.record("a", T, { averageConcurrentRequests: 10, requestCount: 4 });
    expect(c.delete("a")).toBe(true);
    expect(c.record("a", T + 1000, { averageConcurrentRequests: 50, requestCount: 4 })).toBe(false);
    expect(c.collection("a")).toBeUndefined();
    expect(held.reading("concurrency", T + 1000)).toEqual({ ok: true, stable: 10, panic: 10 });
  });
});
