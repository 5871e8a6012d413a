import { PROTOBUF_CONTENT_TYPE, type Stat } from "@thaw/protocol";

// A minimal proto3 writer for the one message the queue-proxy serves (f.1). Kept here until
// @thaw/protocol's codec lands; field numbers and wire types are Knative's stat.proto.
const DOUBLE_FIELDS: [keyof Stat, number][] = [
  ["averageConcurrentRequests", 2],
  ["averageProxiedConcurrentRequests", 3],
  ["requestCount", 4],
  ["proxiedRequestCount", 5],
  ["processUptime", 6],
];

/** Serializes a `Stat` in protobuf wire format, omitting proto3 defaults. */
export function encodeStat(stat: Stat): Uint8Array {
  const out: number[] = [];
  if (stat.podName !== "") {
    const name = new TextEncoder().encode(stat.podName);
    out.push(0x0a);
    pushVarint(out, BigInt(name.length));
    for (const b of name) out.push(b);
  }
  const buf = new DataView(new ArrayBuffer(8));
  for (const [key, field] of DOUBLE_FIELDS) {
    const v = stat[key] as number;
    if (v === 0) continue;
    out.push((field << 3) | 1);
    buf.setFloat64(0, v, true);
    for (let i = 0; i < 8; i++) out.push(buf.getUint8(i));
  }
  if (stat.timestamp !== 0) {
    out.push((7 << 3) | 0);
    pushVarint(out, BigInt.asUintN(64, BigInt(Math.trunc(stat.timestamp))));
  }
  return Uint8Array.from(out);
}

/** The queue-proxy's `/metrics` answer: always 200 with the protobuf Stat, whatever was asked. */
export function statResponse(stat: Stat): Response {
  return new Response(encodeStat(stat), { status: 200, headers: { "content-type": PROTOBUF_CONTENT_TYPE } });
}

function pushVarint(out: number[], v: bigint): void {
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}
