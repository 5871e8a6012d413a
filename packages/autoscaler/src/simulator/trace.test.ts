import { describe, expect, it } from "vitest";
import { simulationOptionsFrom } from "./options.js";
import { parseTrace } from "./trace.js";

describe("parseTrace", () => {
  it.each([
    {
      name: "CSV with header and comment",
      text: "arrival_ms,duration_ms\n# warm-up\n10,5\n0,7\n",
      fmt: undefined,
    },
    {
      name: "JSONL guessed",
      text: '{"arrivalMs":10,"durationMs":5}\n\n{"arrival_ms":0,"duration_ms":7}\n',
      fmt: undefined,
    },
    { name: "CSV forced", text: "10, 5\n0,7", fmt: "csv" as const },
  ])("reads $name, sorted by arrival", ({ text, fmt }) => {
    expect(parseTrace(text, fmt)).toEqual({
      ok: true,
      value: [
        { arrivalMs: 0, durationMs: 7 },
        { arrivalMs: 10, durationMs: 5 },
      ],
    });
  });

  it.each([
    { name: "negative duration", text: "0,5\n1,-3\n", path: "line 2: duration_ms" },
    { name: "missing field", text: "0,5\n7\n", path: "line 2: duration_ms" },
    { name: "not a number", text: "0,5\nsoon,3\n", path: "line 2: arrival_ms" },
    { name: "bad JSON", text: '{"arrivalMs":0,"durationMs":1}\n{oops\n', path: "line 2" },
    { name: "JSON field", text: '{"arrivalMs":0}\n', path: "line 1: durationMs" },
  ])("names line and field: $name", ({ text, path }) => {
    const r = parseTrace(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.path).toBe(path);
  });
});

describe("simulationOptionsFrom", () => {
  it("reads a thaw.config.yaml document, choosing the named service", () => {
    const r = simulationOptionsFrom(
      {
        autoscaler: { "stable-window": "30s" },
        services: [
          { name: "a", containerConcurrency: 1 },
          {
            name: "hello",
            containerConcurrency: 10,
            autoscaling: { target: 7, "scale-to-zero-grace-period": "10s" },
            run: { env: { STARTUP_DELAY_MS: "800" } },
          },
        ],
      },
      "hello",
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.containerConcurrency).toBe(10);
    expect(r.value.startupDelayMs).toBe(800);
    expect(r.value.annotations).toEqual({ target: 7 });
    expect(r.value.config.stableWindowMs).toBe(30_000);
    expect(r.value.config.scaleToZeroGracePeriodMs).toBe(10_000);
  });

  it("reads a single service object with simulate settings", () => {
    const r = simulationOptionsFrom({
      containerConcurrency: 2,
      simulate: { startupDelay: "2s", tick: 1000 },
    });
    expect(r.ok && r.value).toMatchObject({ containerConcurrency: 2, startupDelayMs: 2000, tickMs: 1000 });
  });

  it("reports paths for bad fields", () => {
    const r = simulationOptionsFrom({
      services: [{ name: "x", containerConcurrency: -1, autoscaling: { window: "2s" } }],
      simulate: { startupDelay: "soon" },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issues.map((i) => i.path)).toEqual([
        "services[0].autoscaling.window",
        "services[0].containerConcurrency",
        "simulate.startupDelay",
      ]);
    }
  });
});
