import { describe, expect, it } from "vitest";
import { helpText } from "./help.js";
import { parseCommandLine, withFlagsOverEnv } from "./parse.js";
import type { Command } from "./spec.js";
import { unknownKeyMessages } from "./unknown-keys.js";

const cmd: Command = {
  name: "demo",
  summary: "a demo",
  flags: [
    { name: "--port", value: "PORT", env: "DEMO_PORT", default: "8012", help: "port" },
    { name: "--config", short: "-c", value: "FILE", help: "config" },
    { name: "--verbose", help: "more" },
  ],
  env: [{ name: "DEMO_TOKEN", help: "a token" }],
};

describe("parseCommandLine", () => {
  it.each([
    ["a value after the flag", ["--port", "1"], { "--port": "1" }],
    ["a value after =", ["--port=1"], { "--port": "1" }],
    ["a short form", ["-c", "x.yaml"], { "--config": "x.yaml" }],
    ["a bare switch", ["--verbose"], { "--verbose": "true" }],
    ["a switch with =false", ["--verbose=false"], { "--verbose": "false" }],
  ])("%s", (_n, argv, flags) => {
    const all = Object.fromEntries(Object.entries(flags).map(([name, value]) => [name, [value]]));
    expect(parseCommandLine(cmd, argv)).toEqual({ kind: "ok", flags, all, positionals: [] });
  });
  it("keeps every value of a repeated flag in order, and the last as its value", () => {
    expect(parseCommandLine(cmd, ["--port", "1", "--verbose", "--port=2", "-c", "a", "--port", "3"])).toEqual(
      {
        kind: "ok",
        flags: { "--port": "3", "--verbose": "true", "--config": "a" },
        all: { "--port": ["1", "2", "3"], "--verbose": ["true"], "--config": ["a"] },
        positionals: [],
      },
    );
  });
  it("answers --help and --version before reading further", () => {
    expect(parseCommandLine(cmd, ["--bogus", "--help"]).kind).toBe("error");
    expect(parseCommandLine(cmd, ["--port", "1", "-h"]).kind).toBe("help");
    expect(parseCommandLine(cmd, ["--version"]).kind).toBe("version");
  });
  it("names an unknown flag and the nearest known one", () => {
    expect(parseCommandLine(cmd, ["--prot", "1"])).toEqual({
      kind: "error",
      message: "unknown flag --prot (did you mean --port?)",
    });
    expect(parseCommandLine(cmd, ["--zzzzzz"])).toEqual({
      kind: "error",
      message: "unknown flag --zzzzzz (see demo --help)",
    });
  });
  it("says which flag lacks its value, and which argument is extra", () => {
    expect(parseCommandLine(cmd, ["--port"])).toEqual({
      kind: "error",
      message: "--port needs a value (PORT)",
    });
    expect(parseCommandLine(cmd, ["--config", "--verbose"]).kind).toBe("error");
    expect(parseCommandLine(cmd, ["x"])).toEqual({
      kind: "error",
      message: "unexpected argument x (see demo --help)",
    });
  });
  it("hands the rest of the line to a subcommand, and names an unknown one", () => {
    const top: Command = { name: "t", summary: "", flags: [], commands: [{ name: "up", summary: "" }] };
    expect(parseCommandLine(top, ["up", "--x"])).toEqual({
      kind: "ok",
      flags: {},
      all: {},
      positionals: [],
      command: { name: "up", argv: ["--x"] },
    });
    expect(parseCommandLine(top, ["upp"])).toEqual({
      kind: "error",
      message: "unknown command upp (did you mean up?)",
    });
  });
  it("lays flags over their variables", () => {
    expect(withFlagsOverEnv(cmd, { "--port": "2" }, { DEMO_PORT: "1", OTHER: "x" })).toEqual({
      DEMO_PORT: "2",
      OTHER: "x",
    });
  });
});

describe("helpText", () => {
  it("lists every flag and variable with its default and variable", () => {
    const text = helpText(cmd);
    expect(text).toContain("demo: a demo");
    expect(text).toMatch(/--port PORT +port \(default: 8012; env DEMO_PORT\)/);
    expect(text).toMatch(/-c, --config FILE +config/);
    expect(text).toContain("DEMO_TOKEN");
    expect(text).toContain("--version");
  });
});

describe("unknownKeyMessages", () => {
  it("suggests per key and lists the allowed keys once", () => {
    expect(unknownKeyMessages(["max-scael", "zzz", "qqq"], ["max-scale", "min-scale"])).toEqual([
      "unknown field (did you mean max-scale?)",
      "unknown field; allowed here: max-scale, min-scale",
      "unknown field",
    ]);
  });
});
