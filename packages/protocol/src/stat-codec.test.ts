import { describe, expect, it } from "vitest";
import { ProtoErrorCode } from "./proto-reader.js";
import { emptyStat, type Stat, type WireStatMessage } from "./stat.js";
import {
  decodeStat,
  decodeWireStatMessage,
  decodeWireStatMessages,
  encodeStat,
  encodeWireStatMessage,
  encodeWireStatMessages,
  statMetricsResponse,
} from "./stat-codec.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/\s+/g, ""), "hex"));
const stat = (s: Partial<Stat>): Stat => ({ ...emptyStat(), ...s });

/*
 * Expected bytes follow the proto3 wire rules (key = field << 3 | wire type; doubles wire type 1 as
 * 8 little-endian bytes; int64 wire type 0 as a varint, negatives as 10-byte two's complement; strings
 * wire type 2, length then UTF-8; default values omitted). Worked example for the first row:
 *   0a 01 70                    field 1 (pod_name), wire 2, length 1, "p"
 *   11 00000000 0000f03f        field 2 (average_concurrent_requests), wire 1, 1.0 as LE IEEE 754
 *   38 01                       field 7 (timestamp), wire 0, varint 1
 * Every row was also checked against `protoc --encode` (libprotoc 3.21.12) with a .proto written from
 * knative-spec.md f.1.
 */
const statRows: { name: string; value: Stat; hex: string }[] = [
  {
    name: "pod name, one double, timestamp",
    value: stat({ podName: "p", averageConcurrentRequests: 1, timestamp: 1 }),
    hex: "0a0170 11000000000000f03f 3801",
  },
  { name: "all defaults = empty message", value: emptyStat(), hex: "" },
  {
    name: "negative timestamp takes 10 bytes",
    value: stat({ timestamp: -1 }),
    hex: "38 ffffffffffffffffff01",
  },
  {
    name: "every field",
    value: {
      podName: "activator-7d9c",
      averageConcurrentRequests: 2.5,
      averageProxiedConcurrentRequests: 0.5,
      requestCount: 10,
      proxiedRequestCount: 4,
      processUptime: 123.25,
      timestamp: 1_700_000_000,
    },
    hex:
      "0a0e616374697661746f722d37643963 110000000000000440 19000000000000e03f 210000000000002440" +
      " 290000000000001040 310000000000d05e40 3880e2cfaa06",
  },
  {
    name: "-0 is written (its bits are not all zero)",
    value: stat({ averageConcurrentRequests: -0 }),
    hex: "110000000000000080",
  },
  { name: "non-ASCII pod name is UTF-8", value: stat({ podName: "π" }), hex: "0a02cf80" },
  {
    name: "large negative timestamp",
    value: stat({ timestamp: -1_700_000_000 }),
    hex: "38809eb0d5f9ffffffff01",
  },
  {
    name: "largest safe integer timestamp",
    value: stat({ timestamp: Number.MAX_SAFE_INTEGER }),
    hex: "38ffffffffffffff0f",
  },
  {
    name: "timestamp 2^60 (past 2^53, exact as a power of two)",
    value: stat({ timestamp: 2 ** 60 }),
    hex: "38808080808080808010",
  },
  { name: "smallest int64 timestamp", value: stat({ timestamp: -(2 ** 63) }), hex: "3880808080808080808001" },
];

const wireRows: { name: string; value: WireStatMessage; hex: string }[] = [
  {
    name: "empty stat is still written",
    value: { namespace: "default", name: "hello-00001", stat: emptyStat() },
    hex: "0a0764656661756c74 120b68656c6c6f2d3030303031 1a00",
  },
  { name: "absent stat is left out", value: { namespace: "ns", name: "r" }, hex: "0a026e73 120172" },
];

describe("Stat encoding matches proto3 bytes", () => {
  it.each(statRows)("$name", ({ value, hex: want }) => {
    expect(hex(encodeStat(value))).toBe(want.replace(/\s+/g, ""));
    expect(decodeStat(bytes(want))).toEqual({ ok: true, value });
  });

  it.each(wireRows)("WireStatMessage: $name", ({ value, hex: want }) => {
    expect(hex(encodeWireStatMessage(value))).toBe(want.replace(/\s+/g, ""));
    expect(decodeWireStatMessage(bytes(want))).toEqual({ ok: true, value });
  });

  it("WireStatMessages: repeated messages, with and without stat", () => {
    const messages: WireStatMessage[] = [
      { namespace: "a", name: "b", stat: stat({ podName: "p", requestCount: 3 }) },
      { namespace: "c", name: "d" },
    ];
    const want = "0a14 0a0161 120162 1a0c 0a0170 210000000000000840 0a06 0a0163 120164".replace(/\s+/g, "");
    expect(hex(encodeWireStatMessages(messages))).toBe(want);
    expect(decodeWireStatMessages(bytes(want))).toEqual({ ok: true, value: messages });
  });
});

describe("round trip", () => {
  const values: { name: string; value: Stat }[] = [
    {
      name: "fractions and huge doubles",
      value: stat({ averageConcurrentRequests: 0.1, requestCount: 1e300, processUptime: 5e-324 }),
    },
    {
      name: "negative doubles",
      value: stat({ averageProxiedConcurrentRequests: -3.75, proxiedRequestCount: -1 }),
    },
    {
      name: "infinities",
      value: stat({ requestCount: Number.POSITIVE_INFINITY, proxiedRequestCount: Number.NEGATIVE_INFINITY }),
    },
    { name: "long pod name", value: stat({ podName: "x".repeat(300) }) },
    { name: "min safe integer timestamp", value: stat({ timestamp: Number.MIN_SAFE_INTEGER }) },
  ];
  it.each(values)("$name", ({ value }) => {
    expect(decodeStat(encodeStat(value))).toEqual({ ok: true, value });
  });

  it("NaN survives", () => {
    const r = decodeStat(encodeStat(stat({ requestCount: Number.NaN })));
    expect(r.ok && Number.isNaN(r.value.requestCount)).toBe(true);
  });

  it("many messages", () => {
    const messages = Array.from({ length: 50 }, (_, i) => ({
      namespace: `ns${i}`,
      name: `rev-${i}`,
      ...(i % 3 === 0
        ? {}
        : { stat: stat({ podName: `p${i}`, averageConcurrentRequests: i / 7, timestamp: i }) }),
    }));
    expect(decodeWireStatMessages(encodeWireStatMessages(messages))).toEqual({ ok: true, value: messages });
  });
});

describe("input forms", () => {
  const encoded = encodeStat(stat({ podName: "pod", processUptime: 1.5, timestamp: 9 }));
  it.each([
    [
      "a view at an odd offset of a larger buffer",
      () => {
        const big = new Uint8Array(encoded.length + 7);
        big.set(encoded, 3);
        return big.subarray(3, 3 + encoded.length);
      },
    ],
    ["a Node Buffer", () => Buffer.from(encoded)],
    ["an ArrayBuffer", () => encoded.slice().buffer],
  ])("decodes %s", (_name, make) => {
    expect(decodeStat(make())).toEqual({
      ok: true,
      value: stat({ podName: "pod", processUptime: 1.5, timestamp: 9 }),
    });
  });

  it("statMetricsResponse serves the bytes as application/protobuf", async () => {
    const res = statMetricsResponse(stat({ podName: "p" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/protobuf");
    expect(hex(new Uint8Array(await res.arrayBuffer()))).toBe("0a0170");
  });
});

describe("decoding tolerates what proto3 allows", () => {
  const rows: { name: string; hex: string; want: Stat }[] = [
    { name: "unknown varint field 9", hex: "4805 0a0170", want: stat({ podName: "p" }) },
    { name: "unknown fixed64 field 10", hex: "51 0102030405060708 3802", want: stat({ timestamp: 2 }) },
    { name: "unknown length-delimited field 11", hex: "5a03 616263 0a0171", want: stat({ podName: "q" }) },
    { name: "unknown fixed32 field 12", hex: "65 01020304", want: emptyStat() },
    {
      name: "unknown group field 13 with nested fields",
      hex: "6b 0801 73 1001 74 6c 3803",
      want: stat({ timestamp: 3 }),
    },
    {
      name: "known field with the wrong wire type is skipped",
      hex: "1001 0a0170",
      want: stat({ podName: "p" }),
    },
    { name: "last value of a repeated scalar wins", hex: "3801 3802", want: stat({ timestamp: 2 }) },
    { name: "fields in any order", hex: "3801 0a0170", want: stat({ podName: "p", timestamp: 1 }) },
    { name: "overlong but valid varint for 1", hex: "38 8180808000", want: stat({ timestamp: 1 }) },
  ];
  it.each(rows)("$name", ({ hex: h, want }) => {
    expect(decodeStat(bytes(h))).toEqual({ ok: true, value: want });
  });

  it("a repeated embedded stat merges into the first", () => {
    const r = decodeWireStatMessage(bytes("1a03 0a0170 1a02 3807"));
    expect(r).toEqual({
      ok: true,
      value: { namespace: "", name: "", stat: stat({ podName: "p", timestamp: 7 }) },
    });
  });

  it("unknown top-level fields of WireStatMessages are skipped", () => {
    const r = decodeWireStatMessages(bytes("1001 0a04 0a026e73"));
    expect(r).toEqual({ ok: true, value: [{ namespace: "ns", name: "" }] });
  });
});

describe("bad input is an issue with a code, never a throw", () => {
  const rows: { name: string; hex: string; code: string; path: string }[] = [
    { name: "string cut short", hex: "0a0570", code: ProtoErrorCode.truncated, path: "podName" },
    {
      name: "double cut short",
      hex: "11000000",
      code: ProtoErrorCode.truncated,
      path: "averageConcurrentRequests",
    },
    { name: "varint cut short", hex: "3880", code: ProtoErrorCode.truncated, path: "timestamp" },
    { name: "key cut short", hex: "80", code: ProtoErrorCode.truncated, path: "" },
    {
      name: "varint of 11 bytes",
      hex: "38ffffffffffffffffffff01",
      code: ProtoErrorCode.malformed,
      path: "timestamp",
    },
    {
      name: "10th varint byte > 1",
      hex: "38ffffffffffffffffff02",
      code: ProtoErrorCode.malformed,
      path: "timestamp",
    },
    { name: "field number 0", hex: "0001", code: ProtoErrorCode.malformed, path: "" },
    { name: "wire type 7 on field 1", hex: "0f", code: ProtoErrorCode.malformed, path: "podName" },
    { name: "stray end-group", hex: "4c", code: ProtoErrorCode.malformed, path: "" },
    { name: "unclosed group", hex: "4b0801", code: ProtoErrorCode.truncated, path: "" },
    { name: "invalid UTF-8 pod name", hex: "0a01ff", code: ProtoErrorCode.utf8, path: "podName" },
  ];
  it.each(rows)("Stat: $name", ({ hex: h, code, path }) => {
    const r = decodeStat(bytes(h));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issue.code).toBe(code);
      expect(r.issue.path).toBe(path);
      expect(r.issue.message).toContain("byte");
    }
  });

  it("names the message and field inside WireStatMessages", () => {
    const good = encodeWireStatMessage({ namespace: "a", name: "b", stat: stat({ podName: "p" }) });
    // Second message: stat whose pod name claims 5 bytes but has 1.
    const bad = bytes("0a05 1a03 0a0570");
    const frame = new Uint8Array([0x0a, good.length, ...good, ...bad]);
    const r = decodeWireStatMessages(frame);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issue).toMatchObject({ code: ProtoErrorCode.truncated, path: "messages[1].stat.podName" });
  });

  it("a message length past the end", () => {
    const r = decodeWireStatMessages(bytes("0a09 0a0161"));
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issue).toMatchObject({ code: ProtoErrorCode.truncated, path: "messages[0]", offset: 1 });
  });

  it("every prefix of a valid Stat decodes or fails cleanly", () => {
    const full = encodeStat(stat({ podName: "pod-a", requestCount: 2, timestamp: -5 }));
    for (let n = 0; n <= full.length; n++) {
      const r = decodeStat(full.subarray(0, n));
      expect(typeof r.ok).toBe("boolean");
    }
  });
});

describe("encoding rejects programmer errors", () => {
  it.each([
    ["fractional timestamp", 1.5],
    ["timestamp beyond int64", 2 ** 64],
  ])("%s", (_name, timestamp) => {
    expect(() => encodeStat(stat({ timestamp }))).toThrow(RangeError);
  });
});
