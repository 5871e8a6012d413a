import type { GrpcServingStatus } from "./transport.js";

/** The HTTP/2 `:path` of the health check RPC. */
export const GRPC_HEALTH_CHECK_PATH = "/grpc.health.v1.Health/Check";

const STATUS_NAMES: Record<number, GrpcServingStatus> = {
  0: "UNKNOWN",
  1: "SERVING",
  2: "NOT_SERVING",
  3: "SERVICE_UNKNOWN",
};
const STATUS_NUMBERS: Record<GrpcServingStatus, number> = {
  UNKNOWN: 0,
  SERVING: 1,
  NOT_SERVING: 2,
  SERVICE_UNKNOWN: 3,
};

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** Reads a varint at `pos`; returns [value, next position]. Throws on truncation (a programmer-facing decode error). */
function readVarint(buf: Uint8Array, pos: number): [number, number] {
  let result = 0;
  let shift = 0;
  for (let i = pos; i < buf.length && shift < 64; i++) {
    const b = buf[i] as number;
    if (shift < 32) result |= (b & 0x7f) << shift;
    shift += 7;
    if ((b & 0x80) === 0) return [result >>> 0, i + 1];
  }
  throw new RangeError("truncated protobuf varint");
}

/** Protobuf of `HealthCheckRequest { string service = 1; }` (empty service = empty message). */
export function encodeGrpcHealthRequest(service: string): Uint8Array {
  if (service === "") return new Uint8Array(0);
  const bytes = new TextEncoder().encode(service);
  return Uint8Array.from([0x0a, ...varint(bytes.length), ...bytes]);
}

/** Protobuf of `HealthCheckResponse { ServingStatus status = 1; }`, for test servers. */
export function encodeGrpcHealthResponse(status: GrpcServingStatus): Uint8Array {
  const n = STATUS_NUMBERS[status];
  return n === 0 ? new Uint8Array(0) : Uint8Array.from([0x08, ...varint(n)]);
}

/** Walks the fields of a protobuf message, calling `onField` with the number, wire type and value. */
function fields(
  buf: Uint8Array,
  onField: (field: number, wire: number, value: number | Uint8Array) => void,
): void {
  let pos = 0;
  while (pos < buf.length) {
    const [tag, p] = readVarint(buf, pos);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (wire === 0) {
      const [v, q] = readVarint(buf, p);
      onField(field, wire, v);
      pos = q;
    } else if (wire === 2) {
      const [len, q] = readVarint(buf, p);
      if (q + len > buf.length) throw new RangeError("truncated protobuf field");
      onField(field, wire, buf.subarray(q, q + len));
      pos = q + len;
    } else if (wire === 1 || wire === 5) {
      pos = p + (wire === 1 ? 8 : 4);
    } else {
      throw new RangeError(`unsupported protobuf wire type ${wire}`);
    }
  }
}

/** Decodes `HealthCheckResponse`; an unknown enum number reads as UNKNOWN. */
export function decodeGrpcHealthResponse(msg: Uint8Array): GrpcServingStatus {
  let status: GrpcServingStatus = "UNKNOWN";
  fields(msg, (field, wire, value) => {
    if (field === 1 && wire === 0) status = STATUS_NAMES[value as number] ?? "UNKNOWN";
  });
  return status;
}

/** Decodes `HealthCheckRequest`, for test servers. */
export function decodeGrpcHealthRequest(msg: Uint8Array): string {
  let service = "";
  fields(msg, (field, wire, value) => {
    if (field === 1 && wire === 2) service = new TextDecoder().decode(value as Uint8Array);
  });
  return service;
}

/** Wraps one message in gRPC's length-prefixed framing (uncompressed). */
export function grpcFrame(msg: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + msg.length);
  new DataView(out.buffer).setUint32(1, msg.length);
  out.set(msg, 5);
  return out;
}

/** Splits a complete gRPC body into its messages; throws RangeError on a truncated or compressed frame. */
export function readGrpcFrames(body: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let pos = 0;
  while (pos < body.length) {
    if (pos + 5 > body.length) throw new RangeError("truncated gRPC frame header");
    if (body[pos] !== 0) throw new RangeError("compressed gRPC frames are not supported");
    const len = new DataView(body.buffer, body.byteOffset + pos + 1, 4).getUint32(0);
    if (pos + 5 + len > body.length) throw new RangeError("truncated gRPC frame");
    out.push(body.subarray(pos + 5, pos + 5 + len));
    pos += 5 + len;
  }
  return out;
}
