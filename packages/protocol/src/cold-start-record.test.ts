import { describe, expect, it } from "vitest";
import { COLD_START_PHASES, ColdStartRecorder } from "./cold-start-record.js";

describe("ColdStartRecorder", () => {
  it("queued opens a record; the other phases keep their first time; finish gives durations that add up", () => {
    const r = new ColdStartRecorder();
    r.mark("ns", "rev", "scaleDecision", 5); // nothing open yet: ignored
    expect(r.isOpen("ns", "rev")).toBe(false);
    r.mark("ns", "rev", "queued", 100);
    r.mark("ns", "rev", "queued", 150); // a second waiter of the same cold start
    r.mark("ns", "rev", "scaleDecision", 102);
    r.mark("ns", "rev", "podStarted", 104);
    r.mark("ns", "rev", "firstReady", 900);
    r.mark("ns", "rev", "firstReady", 950);
    expect(r.has("ns", "rev", "firstReady")).toBe(true);
    r.mark("ns", "rev", "firstByte", 1000);
    const rec = r.finish("ns", "rev");
    expect(rec).toEqual({
      namespace: "ns",
      revision: "rev",
      id: "ns/rev#1",
      startedAt: 100,
      phases: [
        { phase: "queued", at: 100, ms: 0 },
        { phase: "scaleDecision", at: 102, ms: 2 },
        { phase: "podStarted", at: 104, ms: 2 },
        { phase: "firstReady", at: 900, ms: 796 },
        { phase: "firstByte", at: 1000, ms: 100 },
      ],
      totalMs: 900,
    });
    // Every phase it saw, in COLD_START_PHASES order (thaw up sees none of a cluster's pod phases).
    expect(rec?.phases.map((p) => p.phase)).toEqual(
      COLD_START_PHASES.filter((p) => rec?.phases.some((m) => m.phase === p)),
    );
    expect(r.isOpen("ns", "rev")).toBe(false);
    expect(r.finish("ns", "rev")).toBeUndefined();
  });

  it("a moment reported before the previous phase counts as zero time, never negative", () => {
    const r = new ColdStartRecorder();
    r.mark("a", "b", "queued", 10);
    r.mark("a", "b", "scaleDecision", 20);
    r.mark("a", "b", "podStarted", 15); // the pod spawned inside the scale call, before its event
    const rec = r.finish("a", "b");
    expect(rec?.phases.map((p) => p.ms)).toEqual([0, 10, 0]);
    expect(rec?.totalMs).toBe(10);
  });

  it("abandon forgets an open cold start; revisions are independent", () => {
    const r = new ColdStartRecorder();
    r.mark("a", "one", "queued", 1);
    r.mark("a", "two", "queued", 2);
    r.abandon("a", "one");
    expect(r.isOpen("a", "one")).toBe(false);
    expect(r.finish("a", "two")?.id).toBe("a/two#1");
  });

  it("keeps the first pod's name and the moments beside the phases, out of the phase sequence", () => {
    const r = new ColdStartRecorder();
    r.moment("a", "b", "podReady", 1); // nothing open yet: ignored
    r.mark("a", "b", "queued", 10);
    r.mark("a", "b", "podStarted", 12, "b-1");
    r.mark("a", "b", "podStarted", 13, "b-2");
    r.moment("a", "b", "queueProxyListening", 14);
    r.mark("a", "b", "firstReady", 30);
    r.moment("a", "b", "podReady", 40); // after firstReady: a moment, so no phase is distorted
    r.moment("a", "b", "podReady", 50);
    const rec = r.finish("a", "b");
    expect(rec?.pod).toBe("b-1");
    expect(rec?.moments).toEqual({ queueProxyListening: 14, podReady: 40 });
    expect(rec?.phases.map((p) => p.phase)).toEqual(["queued", "podStarted", "firstReady"]);
    r.mark("a", "b", "queued", 60);
    const bare = r.finish("a", "b");
    expect(bare && ("pod" in bare || "moments" in bare)).toBe(false);
  });
});
