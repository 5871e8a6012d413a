import { describe, expect, it } from "vitest";
import { parseListening } from "./pod-ports.js";

describe("parseListening (a pod's queue-proxy answer, read unauthenticated)", () => {
  it("takes a port and a list of ports", () => {
    expect(parseListening('{"userPort":8080,"listening":[8099]}')).toEqual({
      userPort: 8080,
      listening: [8099],
    });
    expect(parseListening('{"userPort":8080,"listening":[]}')).toEqual({ userPort: 8080, listening: [] });
  });

  it("refuses what is not that: not JSON, no ports, ports out of range, /proc unreadable (null)", () => {
    for (const bad of [
      "",
      "nope",
      "null",
      "[]",
      '{"userPort":0,"listening":[]}',
      '{"userPort":"8080","listening":[]}',
      '{"userPort":8080,"listening":[70000]}',
      '{"userPort":8080,"listening":[1.5]}',
      '{"userPort":8080,"listening":null}',
    ]) {
      expect(parseListening(bad), bad).toBeUndefined();
    }
  });

  it("keeps at most 64 ports", () => {
    const many = Array.from({ length: 200 }, (_, i) => i + 1);
    expect(parseListening(JSON.stringify({ userPort: 8080, listening: many }))?.listening).toHaveLength(64);
  });
});
