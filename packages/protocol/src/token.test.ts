import { describe, expect, it } from "vitest";
import { bearerToken, tokenAllows, tokenMatches } from "./token.js";

describe("tokens", () => {
  it.each([
    ["same", "secret-123", "secret-123", true],
    ["one char off", "secret-124", "secret-123", false],
    ["prefix", "secret-12", "secret-123", false],
    ["longer", "secret-1234", "secret-123", false],
    ["empty", "", "secret-123", false],
  ])("tokenMatches: %s", (_n, a, b, want) => {
    expect(tokenMatches(a, b)).toBe(want);
  });

  it.each([
    ["Bearer abc", "abc"],
    ["bearer   abc  ", "abc"],
    ["Basic abc", undefined],
    ["Bearer", undefined],
    ["Bearer a b", undefined],
  ])("bearerToken(%j)", (value, want) => {
    expect(bearerToken(new Headers({ authorization: value }))).toBe(want);
  });

  it("tokenAllows: open without a token, else any matching candidate", () => {
    expect(tokenAllows(undefined)).toBe(true);
    expect(tokenAllows("")).toBe(true);
    expect(tokenAllows("t", undefined, null)).toBe(false);
    expect(tokenAllows("t", "x", "t")).toBe(true);
  });
});
