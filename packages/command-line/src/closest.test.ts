import { describe, expect, it } from "vitest";
import { closest, editDistance } from "./closest.js";

describe("closest", () => {
  const keys = ["max-scale", "min-scale", "target", "metric", "class", "initial-scale"];
  it.each([
    ["a transposition", "max-scael", keys, "max-scale"],
    ["camel case of a kebab key", "maxScale", keys, "max-scale"],
    [
      "a word inside a longer key",
      "concurrency",
      ["name", "containerConcurrency", "timeoutSeconds"],
      "containerConcurrency",
    ],
    ["a misspelt word", "enviroment", ["env", "environment", "cwd"], "environment"],
    ["a long form of a short key", "enviroment", ["command", "env", "cwd", "portEnv"], "env"],
    ["a mistyped flag", "--activtor", ["--activator", "--listen", "--config"], "--activator"],
    ["a command", "upp", ["up", "validate", "k8s"], "up"],
  ])("%s: %s → %s", (_name, input, candidates, want) => {
    expect(closest(input, candidates)).toBe(want);
  });
  it("suggests nothing for a word far from every candidate", () => {
    expect(closest("zzzzzz", keys)).toBeUndefined();
    expect(closest("", keys)).toBeUndefined();
  });
  it("counts a swap of neighbours as one edit", () => {
    expect(editDistance("scael", "scale")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
});
