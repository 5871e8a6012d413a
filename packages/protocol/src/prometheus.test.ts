import { describe, expect, it } from "vitest";
import { escapeLabelValue, MetricsRegistry, renderAll } from "./prometheus.js";

describe("MetricsRegistry", () => {
  it("renders counters, gauges and histograms in the text format", () => {
    const r = new MetricsRegistry();
    const c = r.counter("thaw_x_requests_total", "Requests.", ["namespace", "revision"]);
    const g = r.gauge("thaw_x_depth", "Depth.");
    const h = r.histogram("thaw_x_seconds", "Time.", ["revision"], [0.1, 1]);
    c.inc(["default", "hello"]);
    c.inc(["default", "hello"], 2);
    g.set([], 4);
    h.observe(["a"], 0.05);
    h.observe(["a"], 0.5);
    h.observe(["a"], 5);
    expect(r.render()).toBe(
      [
        "# HELP thaw_x_requests_total Requests.",
        "# TYPE thaw_x_requests_total counter",
        'thaw_x_requests_total{namespace="default",revision="hello"} 3',
        "# HELP thaw_x_depth Depth.",
        "# TYPE thaw_x_depth gauge",
        "thaw_x_depth 4",
        "# HELP thaw_x_seconds Time.",
        "# TYPE thaw_x_seconds histogram",
        'thaw_x_seconds_bucket{revision="a",le="0.1"} 1',
        'thaw_x_seconds_bucket{revision="a",le="1"} 2',
        'thaw_x_seconds_bucket{revision="a",le="+Inf"} 3',
        'thaw_x_seconds_sum{revision="a"} 5.55',
        'thaw_x_seconds_count{revision="a"} 3',
        "",
      ].join("\n"),
    );
  });

  it("declares a family before any sample, so its name is exposed from the start", () => {
    const r = new MetricsRegistry();
    r.histogram("thaw_empty_seconds", "Nothing yet.", ["phase"], [1]);
    expect(r.render()).toBe("# HELP thaw_empty_seconds Nothing yet.\n# TYPE thaw_empty_seconds histogram\n");
  });

  it("runs collectors before each render and clear() drops stale series", () => {
    const r = new MetricsRegistry();
    const g = r.gauge("thaw_pods", "Pods.", ["revision"]);
    let revs = ["a", "b"];
    r.onCollect(() => {
      g.clear();
      for (const rev of revs) g.set([rev], 1);
    });
    expect(r.render()).toContain('thaw_pods{revision="b"} 1');
    revs = ["a"];
    expect(r.render()).not.toContain('revision="b"');
  });

  it("rejects a counter without _total, a second declaration, and a wrong label count", () => {
    const r = new MetricsRegistry();
    expect(() => r.counter("thaw_bad", "x")).toThrow(/_total/);
    r.gauge("thaw_g", "x", ["a"]);
    expect(() => r.gauge("thaw_g", "x")).toThrow(/declared twice/);
    const g = r.gauge("thaw_h", "x", ["a", "b"]);
    expect(() => g.set(["only-one"], 1)).toThrow(/2 label value/);
  });

  it("escapes label values and renders several registries as one text", () => {
    expect(escapeLabelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
    const a = new MetricsRegistry();
    const b = new MetricsRegistry();
    a.gauge("thaw_a", "A.").set([], 1);
    b.gauge("thaw_b", "B.").set([], Number.POSITIVE_INFINITY);
    expect(renderAll([a, b])).toBe(
      "# HELP thaw_a A.\n# TYPE thaw_a gauge\nthaw_a 1\n# HELP thaw_b B.\n# TYPE thaw_b gauge\nthaw_b +Inf\n",
    );
  });
});
