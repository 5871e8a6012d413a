import { describe, expect, it } from "vitest";
import type { Coordinator, RevisionKey } from "../ports.js";
import { closeDepartedPods } from "./departed-pods.js";

/** A coordinator whose endpoint events the test emits. */
function coordinator() {
  let listener: ((k: RevisionKey, e: string[]) => void) | undefined;
  const c = {
    onEndpoints(l: (k: RevisionKey, e: string[]) => void) {
      listener = l;
      return () => {
        listener = undefined;
      };
    },
  } as unknown as Coordinator;
  const emit = (name: string, eps: string[]) => listener?.({ namespace: "ns", name }, eps);
  return { c, emit, subscribed: () => listener !== undefined };
}

describe("closeDepartedPods", () => {
  it.each([
    {
      name: "a pod that leaves its revision's list",
      events: [
        ["a", ["p1", "p2"]],
        ["a", ["p2"]],
      ],
      want: ["p1"],
    },
    {
      name: "every pod of a revision scaled to zero",
      events: [
        ["a", ["p1", "p2"]],
        ["a", []],
      ],
      want: ["p1", "p2"],
    },
    {
      name: "nothing while pods only join",
      events: [
        ["a", ["p1"]],
        ["a", ["p1", "p2"]],
      ],
      want: [],
    },
    {
      name: "not a pod another revision still lists",
      events: [
        ["a", ["p1"]],
        ["b", ["p1"]],
        ["a", []],
      ],
      want: [],
    },
    {
      name: "a pod shared by two revisions once both let it go",
      events: [
        ["a", ["p1"]],
        ["b", ["p1"]],
        ["a", []],
        ["b", []],
      ],
      want: ["p1"],
    },
  ] as { name: string; events: [string, string[]][]; want: string[] }[])(
    "closes $name",
    ({ events, want }) => {
      const { c, emit } = coordinator();
      const dropped: string[] = [];
      closeDepartedPods(c, { drop: (d) => dropped.push(d) });
      for (const [rev, eps] of events) emit(rev, eps);
      expect(dropped).toEqual(want);
    },
  );

  it("stops listening when unsubscribed", () => {
    const { c, subscribed } = coordinator();
    const stop = closeDepartedPods(c, { drop: () => {} });
    expect(subscribed()).toBe(true);
    stop();
    expect(subscribed()).toBe(false);
  });
});
