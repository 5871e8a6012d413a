import { describe, expect, it } from "vitest";
import { PROBLEM_NOTE_MAX_BYTES, parseProblemNote } from "./problem-note.js";

describe("parseProblemNote", () => {
  it("reads a note and refuses anything else", () => {
    const note = { type: "problem", namespace: "apps", name: "a", severity: "failing", message: "boom" };
    expect(parseProblemNote(JSON.stringify(note))).toEqual(note);
    expect(parseProblemNote(JSON.stringify({ ...note, severity: "x", message: 3 }))).toEqual({
      ...note,
      severity: null,
      message: null,
    });
    expect(parseProblemNote("not json")).toBeUndefined();
    expect(parseProblemNote(JSON.stringify({ ...note, type: "status" }))).toBeUndefined();
    expect(
      parseProblemNote(JSON.stringify({ ...note, message: "x".repeat(PROBLEM_NOTE_MAX_BYTES) })),
    ).toBeUndefined();
  });
});
