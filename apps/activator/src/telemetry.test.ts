import { describe, expect, it } from "vitest";
import { noteFirstByte } from "./proxy-handler.js";
import { type FirstByteSample, Telemetry } from "./telemetry.js";

const hello = { namespace: "apps", name: "hello" };

describe("a cold start's first byte", () => {
  it("is told once per cold start, whichever held request answers first", () => {
    const t = new Telemetry();
    const told: FirstByteSample[] = [];
    t.onFirstByte((s) => told.push(s));
    t.firstByte(hello, 1_500, 1_000);
    t.firstByte(hello, 1_510, 1_000); // another request held by the same start
    t.firstByte({ namespace: "apps", name: "other" }, 1_520, 1_000);
    t.firstByte(hello, 9_000, 8_000); // the next cold start
    expect(told).toEqual([
      { ...hello, at: 1_500 },
      { namespace: "apps", name: "other", at: 1_520 },
      { ...hello, at: 9_000 },
    ]);
  });

  it("belongs to the cold start the request waited for, not to one that began after it left the queue", () => {
    const t = new Telemetry();
    const told: FirstByteSample[] = [];
    t.onFirstByte((s) => told.push(s));
    const gate = (beganAt: number | undefined) => ({
      lastColdStart: () => (beganAt === undefined ? undefined : { beganAt, scaleMs: 10, readyMs: 20 }),
    });
    // No cold start known to the gate (it never went cold): nothing to tell.
    noteFirstByte(t, gate(undefined), hello, 1_000, 1_200);
    // A start that began after this request was released is not the one it waited for.
    noteFirstByte(t, gate(1_100), hello, 1_000, 1_200);
    expect(told).toEqual([]);
    noteFirstByte(t, gate(900), hello, 1_000, 1_200);
    expect(told).toEqual([{ ...hello, at: 1_200 }]);
  });
});
