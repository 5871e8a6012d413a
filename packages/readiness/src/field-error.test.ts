import { describe, expect, it } from "vitest";
import { fieldErrorsToIssues, renderFieldErrors } from "./field-error.js";

describe("renderFieldErrors", () => {
  it.each([
    { name: "nothing", errors: [], want: "" },
    { name: "one error", errors: [{ message: "bad", paths: ["a"] }], want: "bad: a" },
    {
      name: "same message merges and sorts paths byte-wise",
      errors: [
        { message: "m", paths: ["b"] },
        { message: "m", paths: ["a", "B"] },
      ],
      want: "m: B, a, b",
    },
    {
      name: "details on their own line, errors sorted by message",
      errors: [
        { message: "z", paths: ["p"] },
        { message: "invalid value: x", paths: ["q"], details: "Probe port must match container port" },
      ],
      want: "invalid value: x: q\nProbe port must match container port\nz: p",
    },
    {
      name: "same message with different details stays apart, ordered by details",
      errors: [
        { message: "m", paths: ["a"], details: "y" },
        { message: "m", paths: ["b"], details: "x" },
      ],
      want: "m: b\nx\nm: a\ny",
    },
    { name: "duplicate paths collapse", errors: [{ message: "m", paths: ["a", "a"] }], want: "m: a" },
  ])("$name", ({ errors, want }) => {
    expect(renderFieldErrors(errors)).toBe(want);
  });
});

describe("fieldErrorsToIssues", () => {
  it("gives one issue per path", () => {
    expect(fieldErrorsToIssues([{ message: "m", paths: ["b", "a"], details: "d" }])).toEqual([
      { path: "a", message: "m", details: "d" },
      { path: "b", message: "m", details: "d" },
    ]);
  });
});
