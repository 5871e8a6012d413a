import { describe, expect, it } from "vitest";
import {
  decodeGrpcHealthRequest,
  decodeGrpcHealthResponse,
  encodeGrpcHealthRequest,
  encodeGrpcHealthResponse,
  grpcFrame,
  readGrpcFrames,
} from "./grpc-health.js";

describe("grpc health codec", () => {
  it.each(["", "svc", "x".repeat(300)])("request round-trips service %#", (service) => {
    expect(decodeGrpcHealthRequest(encodeGrpcHealthRequest(service))).toBe(service);
  });

  it("encodes a request as field 1, length-delimited", () => {
    expect([...encodeGrpcHealthRequest("ab")]).toEqual([0x0a, 2, 0x61, 0x62]);
  });

  it.each(["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"] as const)(
    "response round-trips %s",
    (s) => {
      expect(decodeGrpcHealthResponse(encodeGrpcHealthResponse(s))).toBe(s);
    },
  );

  it("skips unknown fields and reads unknown enum numbers as UNKNOWN", () => {
    expect(decodeGrpcHealthResponse(Uint8Array.from([0x12, 1, 0x41, 0x08, 1]))).toBe("SERVING");
    expect(decodeGrpcHealthResponse(Uint8Array.from([0x08, 9]))).toBe("UNKNOWN");
  });

  it("frames and unframes messages", () => {
    const body = new Uint8Array([...grpcFrame(Uint8Array.from([1, 2])), ...grpcFrame(new Uint8Array(0))]);
    expect(readGrpcFrames(body).map((m) => [...m])).toEqual([[1, 2], []]);
  });

  it.each([
    { name: "truncated header", body: [0, 0, 0] },
    { name: "truncated message", body: [0, 0, 0, 0, 5, 1] },
    { name: "compressed", body: [1, 0, 0, 0, 0] },
  ])("rejects a $name frame", ({ body }) => {
    expect(() => readGrpcFrames(Uint8Array.from(body))).toThrow(RangeError);
  });
});
