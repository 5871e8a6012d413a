import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { CancelledError, DeadlineExceededError, RevisionFailedError } from "./errors.js";
import { SingleFlightActivator } from "./single-flight.js";

function setup() {
  const clock = new ManualClock(0);
  const pokes: string[] = [];
  const act = new SingleFlightActivator({ clock, poke: (r) => void pokes.push(r) });
  return { clock, pokes, act };
}

describe("SingleFlightActivator", () => {
  it("pokes once for many waiters and answers them oldest first", async () => {
    const { clock, pokes, act } = setup();
    const order: number[] = [];
    const ws = [0, 1, 2].map((n) =>
      act.wait("r", { timeoutMs: 1000 }).then((res) => {
        order.push(n);
        return res;
      }),
    );
    expect(pokes).toEqual(["r"]);
    await clock.advance(120);
    act.update("r", ["p:8012"]);
    const results = await Promise.all(ws);
    expect(order).toEqual([0, 1, 2]);
    expect(results[0]).toEqual({ endpoints: ["p:8012"], coldStart: true, waitedMs: 120 });
    expect(await act.wait("r", { timeoutMs: 1 })).toEqual({
      endpoints: ["p:8012"],
      coldStart: false,
      waitedMs: 0,
    });
  });

  it("each waiter leaves on its own deadline or signal without disturbing the others", async () => {
    const { clock, pokes, act } = setup();
    const ac = new AbortController();
    const short = act.wait("r", { timeoutMs: 50 });
    const cancelled = act.wait("r", { timeoutMs: 1000, signal: ac.signal });
    const long = act.wait("r", { timeoutMs: 1000 });
    const shortDone = expect(short).rejects.toBeInstanceOf(DeadlineExceededError);
    await clock.advance(60);
    await shortDone;
    ac.abort();
    await expect(cancelled).rejects.toBeInstanceOf(CancelledError);
    expect(act.waiting("r")).toBe(1);
    act.update("r", ["p"]);
    await expect(long).resolves.toMatchObject({ endpoints: ["p"] });
    expect(pokes.length).toBe(1);
    expect(clock.pending).toBe(0);
  });

  it("a failing revision ends the flight: every waiter gets the cause now, the next one pokes again", async () => {
    const { clock, pokes, act } = setup();
    const ws = [act.wait("r", { timeoutMs: 20_000 }), act.wait("r", { timeoutMs: 20_000 })];
    act.fail("r", new RevisionFailedError("app exited with code 3; last output: boom"));
    for (const w of ws) await expect(w).rejects.toThrow("app exited with code 3; last output: boom");
    expect(act.waiting("r")).toBe(0);
    expect(clock.pending).toBe(0);
    const again = act.wait("r", { timeoutMs: 100 });
    expect(pokes).toEqual(["r", "r"]);
    act.update("r", ["p"]);
    await expect(again).resolves.toMatchObject({ endpoints: ["p"] });
  });

  it("a revision that went cold again gets a new flight and a new poke", async () => {
    const { pokes, act } = setup();
    act.update("r", ["p"]);
    act.update("r", []);
    const w = act.wait("r", { timeoutMs: 100 });
    act.update("r", ["q"]);
    await expect(w).resolves.toMatchObject({ endpoints: ["q"], coldStart: true });
    expect(pokes).toEqual(["r"]);
  });

  it("a failing poke is reported and the waiters still wait", async () => {
    const clock = new ManualClock(0);
    const errors: unknown[] = [];
    const act = new SingleFlightActivator({
      clock,
      poke: () => Promise.reject(new Error("scaler down")),
      onPokeError: (_r, e) => errors.push(e),
    });
    const w = act.wait("r", { timeoutMs: 100 });
    await clock.advance(1);
    expect(errors.length).toBe(1);
    act.update("r", ["p"]);
    await expect(w).resolves.toMatchObject({ endpoints: ["p"] });
  });
});
