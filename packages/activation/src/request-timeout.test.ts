import { describe, expect, it } from "vitest";
import {
  outwaitsCaller,
  parseGrpcTimeout,
  parsePreferWait,
  parseRequestTimeout,
  requestDeadlineMs,
} from "./request-timeout.js";

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
    { name: "Prefer: wait shortens", h: { prefer: "respond-async, wait=5" }, ms: 5000 },
    { name: "the shortest of all three", h: { prefer: "wait=1", "grpc-timeout": "2S" }, ms: 1000 },
  ];
  it.each(rows)("$name", ({ h, ms }) => {
    expect(requestDeadlineMs(new Headers(h), 300_000)).toBe(ms);
  });
});

describe("parsePreferWait", () => {
  it.each([
    { name: "absent", v: null, ms: undefined },
    { name: "alone", v: "wait=1", ms: 1000 },
    { name: "among others, any case, spaces", v: "return=minimal, WAIT = 10 ;x=y", ms: 10_000 },
    { name: "quoted", v: 'wait="3"', ms: 3000 },
    { name: "the first wait counts", v: "wait=2, wait=9", ms: 2000 },
    { name: "not delta-seconds", v: "wait=1.5", ms: undefined },
    { name: "no value", v: "wait", ms: undefined },
    { name: "a different preference", v: "waiting=3", ms: undefined },
  ])("$name", ({ v, ms }) => {
    expect(parsePreferWait(v)).toBe(ms);
  });
});

describe("outwaitsCaller", () => {
  it.each([
    { name: "no caller deadline", caller: undefined, expected: 3000, want: false },
    { name: "no estimate yet", caller: 1000, expected: undefined, want: false },
    { name: "shorter than the start", caller: 1000, expected: 3000, want: true },
    { name: "long enough", caller: 5000, expected: 3000, want: false },
  ])("$name", ({ caller, expected, want }) => {
    expect(outwaitsCaller(caller, expected)).toBe(want);
  });
});
