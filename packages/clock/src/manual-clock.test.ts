import { describe, expect, it } from "vitest";
import { ManualClock } from "./manual-clock.js";
import { systemClock } from "./system-clock.js";

describe("ManualClock", () => {
  it("fires due timers in time order, ties in creation order", async () => {
    const clock = new ManualClock(1000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`b@${clock.now()}`), 20);
    clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimeout(() => fired.push(`c@${clock.now()}`), 20);
    clock.setTimeout(() => fired.push("late"), 31);
    await clock.advance(30);
    expect(fired).toEqual(["a@1010", "b@1020", "c@1020"]);
    expect(clock.now()).toBe(1030);
    expect(clock.pending).toBe(1);
  });

  it("fires timers scheduled by timers within the same advance", async () => {
    const clock = new ManualClock();
    const fired: number[] = [];
    clock.setTimeout(() => {
      fired.push(clock.now());
      clock.setTimeout(() => fired.push(clock.now()), 5);
    }, 5);
    await clock.advance(10);
    expect(fired).toEqual([5, 10]);
  });

  it("does not fire cleared timers", async () => {
    const clock = new ManualClock();
    let fired = false;
    const h = clock.setTimeout(() => {
      fired = true;
    }, 1);
    clock.clearTimeout(h);
    await clock.advance(5);
    expect(fired).toBe(false);
  });

  it("lets promise chains run between timers", async () => {
    const clock = new ManualClock();
    const seen: number[] = [];
    const loop = async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(50);
        seen.push(clock.now());
      }
    };
    const done = loop();
    await clock.advance(200);
    await done;
    expect(seen).toEqual([50, 100, 150]);
  });

  it("sleep rejects with the abort reason and clears its timer", async () => {
    const clock = new ManualClock();
    const ac = new AbortController();
    const p = clock.sleep(100, ac.signal);
    ac.abort(new Error("gone"));
    await expect(p).rejects.toThrow("gone");
    expect(clock.pending).toBe(0);
  });

  it("sleep on an aborted signal rejects at once", async () => {
    const clock = new ManualClock();
    await expect(clock.sleep(1, AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
  });

  it("refuses to go backwards", async () => {
    await expect(new ManualClock().advance(-1)).rejects.toThrow(RangeError);
  });
});

describe("systemClock", () => {
  it("sleeps for real and reads wall time", async () => {
    const t0 = systemClock.now();
    await systemClock.sleep(5);
    expect(systemClock.now() - t0).toBeGreaterThanOrEqual(4);
    expect(Math.abs(systemClock.now() - Date.now())).toBeLessThan(50);
  });
});
