import { describe, expect, it } from "vitest";
import { scaleReached, withinOneTick } from "./cold-burst.mjs";

/** A burst's desired counts over time: [ms since the burst, desired, ready]. */
const burst = (timeline: Array<[number, number, number]>) =>
  ({ timeline }) as unknown as Parameters<typeof scaleReached>[0];

describe("withinOneTick: the scale reached its count within one decider tick of its first step", () => {
  it("one step after the first, however late", () => {
    expect(
      withinOneTick(
        scaleReached(
          burst([
            [300, 1, 0],
            [3500, 8, 0],
          ]),
          8,
        ),
      ),
    ).toBe(true);
  });

  it("two steps inside the tick's 2 s (the held count came in two reports)", () => {
    const r = scaleReached(
      burst([
        [300, 1, 0],
        [900, 4, 0],
        [1700, 8, 0],
      ]),
      8,
    );
    expect(r.stepsAfterFirst).toBe(2);
    expect(withinOneTick(r)).toBe(true);
  });

  it("two steps over more than one tick is not", () => {
    expect(
      withinOneTick(
        scaleReached(
          burst([
            [300, 1, 0],
            [2300, 4, 0],
            [4300, 8, 0],
          ]),
          8,
        ),
      ),
    ).toBe(false);
  });

  it("never reached is not", () => {
    expect(
      withinOneTick(
        scaleReached(
          burst([
            [300, 1, 0],
            [2300, 4, 0],
          ]),
          8,
        ),
      ),
    ).toBe(false);
  });
});
