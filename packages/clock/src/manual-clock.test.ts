import { describe, expect, it } from "vitest";
import { sleepWith, type TimerHandle } from "./clock.js";
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

describe("sleepWith", () => {
  it("waits out the rest when the clock's timer fires before `ms` have passed by its now()", async () => {
    const m = new ManualClock(0);
    let first = true;
    // A runtime whose loop time lags: its first timer fires 3 ms early by now().
    const early = {
      now: () => m.now(),
      setTimeout: (fn: () => void, ms: number) => {
        const h = m.setTimeout(fn, first ? ms - 3 : ms);
        first = false;
        return h;
      },
      clearTimeout: (h: TimerHandle) => m.clearTimeout(h),
    };
    let done = false;
    const p = sleepWith(early, 10).then(() => {
      done = true;
    });
    await m.advance(7);
    expect(done).toBe(false);
    await m.advance(3);
    await p;
    expect(m.now()).toBe(10);
  });
  it("a wall clock set back while sleeping ends the sleep within 4 × ms", async () => {
    let t = 100;
    const m = new ManualClock(0);
    const back = {
      now: () => t,
      setTimeout: (fn: () => void, ms: number) => m.setTimeout(fn, ms),
      clearTimeout: (h: TimerHandle) => m.clearTimeout(h),
    };
    let done = false;
    const p = sleepWith(back, 10).then(() => {
      done = true;
    });
    t = 50; // set back by 50 ms while sleeping, and standing still
    await m.advance(30);
    expect(done).toBe(false);
    await m.advance(10);
    await p;
    expect(m.now()).toBe(40);
  });
});

describe("systemClock", () => {
  it("sleeps for real and reads wall time", async () => {
    const t0 = systemClock.now();
    await systemClock.sleep(5);
    expect(systemClock.now() - t0).toBeGreaterThanOrEqual(5);
    expect(Math.abs(systemClock.now() - Date.now())).toBeLessThan(50);
  });
});
