import { describe, expect, it } from "vitest";
import {
  FIRST_BYTE_NOTE_MAX_BYTES,
  PROBLEM_NOTE_MAX_BYTES,
  parseFirstByteNote,
  parseProblemNote,
} from "./problem-note.js";

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

describe("parseFirstByteNote", () => {
  it("reads a note and refuses anything else", () => {
    const note = { type: "firstByte", namespace: "apps", name: "hello", at: 1796148186757 };
    expect(parseFirstByteNote(JSON.stringify(note))).toEqual(note);
    expect(parseFirstByteNote(JSON.stringify({ ...note, extra: 1 }))).toEqual(note);
    for (const at of ["1796148186757", 1.5, -1, 0, null]) {
      expect(parseFirstByteNote(JSON.stringify({ ...note, at }))).toBeUndefined();
    }
    expect(parseFirstByteNote(JSON.stringify({ ...note, type: "problem" }))).toBeUndefined();
    expect(parseFirstByteNote(JSON.stringify({ ...note, name: 3 }))).toBeUndefined();
    expect(parseFirstByteNote("null")).toBeUndefined();
    expect(parseFirstByteNote("{")).toBeUndefined();
    expect(
      parseFirstByteNote(JSON.stringify({ ...note, name: "x".repeat(FIRST_BYTE_NOTE_MAX_BYTES) })),
    ).toBeUndefined();
  });
});
