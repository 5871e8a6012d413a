import { describe, expect, it } from "vitest";
import { parseAnnotations } from "./annotations.js";
import { parseAutoscalingBlock } from "./autoscaling-block.js";
import { DEFAULT_AUTOSCALER_CONFIG, parseAutoscalerConfig } from "./config.js";
import { formatGoDuration, parseGoDuration } from "./duration.js";

describe("parseGoDuration", () => {
  it.each([
    ["60s", 60_000],
    ["1m30s", 90_000],
    ["1.5h", 5_400_000],
    ["-1m23s", -83_000],
    ["250ms", 250],
    ["0", 0],
    ["2m0s", 120_000],
  ])("%s = %i ms", (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each(["", "60", "1x", "s", "1m 30s", "not a duration"])("rejects %j", (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });

  it.each([
    [90_000, "1m30s"],
    [500, "500ms"],
    [3_600_000, "1h0m0s"],
  ])("formats %i ms as %s", (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});

describe("parseAutoscalerConfig", () => {
  it("gives Knative's defaults for empty data", () => {
    expect(parseAutoscalerConfig({})).toEqual({ ok: true, value: DEFAULT_AUTOSCALER_CONFIG });
  });

  it("accepts YAML numbers and booleans", () => {
    const r = parseAutoscalerConfig({ "stable-window": "2m", "max-scale": 5, "enable-scale-to-zero": false });
    expect(r.ok && r.value).toMatchObject({ stableWindowMs: 120_000, maxScale: 5, enableScaleToZero: false });
  });

  it("ignores unknown keys like Knative, or rejects them on request", () => {
    expect(parseAutoscalerConfig({ "tick-interval": "2s" }).ok).toBe(true);
    const r = parseAutoscalerConfig({ "stable-windw": "2s" }, DEFAULT_AUTOSCALER_CONFIG, {
      rejectUnknownKeys: true,
    });
    expect(r.ok ? [] : r.issues.map((i) => i.path)).toEqual(["stable-windw"]);
  });

  it.each([
    {
      name: "malformed float",
      data: { "max-scale-up-rate": "fast" },
      path: "max-scale-up-rate",
      text: "number",
    },
    { name: "stable window range", data: { "stable-window": "2h" }, path: "stable-window", text: "[6s, 1h]" },
    {
      name: "TBC",
      data: { "target-burst-capacity": "-2" },
      path: "target-burst-capacity",
      text: "exactly -1",
    },
    {
      name: "initial scale 0",
      data: { "initial-scale": "0" },
      path: "initial-scale",
      text: "allow-zero-initial-scale",
    },
    {
      name: "min above max",
      data: { "min-scale": "3", "max-scale": "2" },
      path: "min-scale",
      text: "max-scale (2)",
    },
    {
      name: "panic window",
      data: { "panic-window-percentage": "0.5" },
      path: "panic-window-percentage",
      text: "[1, 100]",
    },
  ])("names the key and range: $name", ({ data, path, text }) => {
    const r = parseAutoscalerConfig(data);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues[0]?.path).toBe(path);
    expect(r.issues[0]?.message).toContain(text);
  });
});

describe("parseAnnotations", () => {
  it("reads prefixed keys and camelCase legacy spellings", () => {
    const r = parseAnnotations({
      "autoscaling.knative.dev/minScale": "2",
      "autoscaling.knative.dev/max-scale": "9",
      "autoscaling.knative.dev/window": "90s",
      "autoscaling.knative.dev/metric-aggregation-algorithm": "weightedExponential",
    });
    expect(r.issues).toEqual([]);
    expect(r.value).toEqual({
      minScale: 2,
      maxScale: 9,
      windowMs: 90_000,
      metricAggregationAlgorithm: "weighted",
    });
  });

  it.each([
    ["autoscaling.knative.dev/panic-threshold-percentage", "100", "[110, 1000]"],
    ["autoscaling.knative.dev/window", "5s", "[6s, 1h]"],
    ["autoscaling.knative.dev/metric", "cpu", "concurrency or rps"],
    ["autoscaling.knative.dev/initial-scale", "0", "allow-zero-initial-scale"],
    ["autoscaling.knative.dev/target", "0", "≥ 0.01"],
    ["autoscaling.knative.dev/class", "xpa.autoscaling.knative.dev", "kpa.autoscaling.knative.dev or"],
  ])("rejects %s=%s naming the range", (key, value, text) => {
    const r = parseAnnotations({ [key]: value });
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]?.path).toBe(key);
    expect(r.issues[0]?.message).toContain(text);
  });
});

describe("parseAutoscalingBlock", () => {
  it("splits annotation keys from config keys", () => {
    const r = parseAutoscalingBlock({ target: 7, "min-scale": 1, "scale-to-zero-grace-period": "10s" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.annotations).toEqual({ target: 7, minScale: 1 });
    expect(r.value.annotationStrings).toEqual({
      "autoscaling.knative.dev/target": "7",
      "autoscaling.knative.dev/min-scale": "1",
    });
    expect(r.value.config.scaleToZeroGracePeriodMs).toBe(10_000);
  });

  it("reports unknown keys and bad values with the block's path", () => {
    const r = parseAutoscalingBlock(
      { targte: 7, "max-scale": -1, "stable-window": "1s" },
      DEFAULT_AUTOSCALER_CONFIG,
      "services[0].autoscaling",
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map((i) => i.path)).toEqual([
      "services[0].autoscaling.targte",
      "services[0].autoscaling.stable-window",
      "services[0].autoscaling.max-scale",
    ]);
  });

  it("reads progress-deadline as serving.knative.dev/progress-deadline, and names the key on a bad value", () => {
    const r = parseAutoscalingBlock({ "progress-deadline": "8s" });
    expect(r.ok && r.value.annotations.progressDeadlineMs).toBe(8000);
    expect(r.ok && r.value.annotationStrings).toEqual({ "serving.knative.dev/progress-deadline": "8s" });
    const bad = parseAutoscalingBlock(
      { "progress-deadline": "soon" },
      DEFAULT_AUTOSCALER_CONFIG,
      "s.autoscaling",
    );
    expect(bad.ok ? [] : bad.issues.map((i) => i.path)).toEqual(["s.autoscaling.progress-deadline"]);
  });
});
