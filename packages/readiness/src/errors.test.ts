import { describe, expect, it } from "vitest";
import { ProbeError, ProbeErrorCode, toProbeError } from "./errors.js";

describe("ProbeError", () => {
  it("carries code, message and cause but no stack frames (an outcome, built on every refused connect)", () => {
    const cause = new Error("connect ECONNREFUSED 127.0.0.1:1");
    const e = new ProbeError(ProbeErrorCode.Connect, "nothing listens", { cause });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("ProbeError");
    expect(e.code).toBe(ProbeErrorCode.Connect);
    expect(e.message).toBe("nothing listens");
    expect(e.cause).toBe(cause);
    expect(e.stack).not.toMatch(/\n\s+at /);
  });

  it("leaves Error.stackTraceLimit as it was, so other errors keep their stacks", () => {
    const before = Error.stackTraceLimit;
    new ProbeError(ProbeErrorCode.Timeout, "late");
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error("bug").stack).toMatch(/\n\s+at /);
    Error.stackTraceLimit = 3;
    try {
      toProbeError(new Error("refused"));
      expect(Error.stackTraceLimit).toBe(3);
    } finally {
      Error.stackTraceLimit = before;
    }
  });
});
