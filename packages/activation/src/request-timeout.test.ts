import { describe, expect, it } from "vitest";
import { parseGrpcTimeout, parseRequestTimeout, requestDeadlineMs } from "./request-timeout.js";

describe("parseGrpcTimeout", () => {
  it.each([
    { v: "1H", ms: 3_600_000 },
    { v: "2M", ms: 120_000 },
    { v: "3S", ms: 3000 },
    { v: "250m", ms: 250 },
    { v: "5000u", ms: 5 },
    { v: "7000000n", ms: 7 },
    { v: "123456789S", ms: undefined },
    { v: "10s", ms: undefined },
    { v: "-1S", ms: undefined },
    { v: "", ms: undefined },
  ])("$v", ({ v, ms }) => {
    expect(parseGrpcTimeout(v)).toBe(ms);
  });
});

describe("parseRequestTimeout", () => {
  it.each([
    { v: "5", ms: 5000 },
    { v: "1.5", ms: 1500 },
    { v: "-3", ms: undefined },
    { v: "soon", ms: undefined },
  ])("$v", ({ v, ms }) => {
    expect(parseRequestTimeout(v)).toBe(ms);
  });
});

describe("requestDeadlineMs", () => {
  const rows: { name: string; h: Record<string, string>; ms: number }[] = [
    { name: "no headers keep the revision timeout", h: {}, ms: 300_000 },
    { name: "grpc-timeout shortens", h: { "grpc-timeout": "2S" }, ms: 2000 },
    { name: "Request-Timeout shortens", h: { "request-timeout": "3" }, ms: 3000 },
    { name: "the shorter of both wins", h: { "grpc-timeout": "2S", "request-timeout": "1" }, ms: 1000 },
    { name: "never lengthens", h: { "request-timeout": "900" }, ms: 300_000 },
    { name: "malformed is ignored", h: { "grpc-timeout": "fast" }, ms: 300_000 },
  ];
  it.each(rows)("$name", ({ h, ms }) => {
    expect(requestDeadlineMs(new Headers(h), 300_000)).toBe(ms);
  });
});
