import { PROTOBUF_CONTENT_TYPE } from "./headers.js";
import { type DecodeResult, ProtoDecodeError, ProtoReader } from "./proto-reader.js";
import { ProtoWriter, WireType } from "./proto-writer.js";
import { emptyStat, type Stat, type WireStatMessage } from "./stat.js";

// Field numbers of stat.proto (knative-spec.md f.1).
const StatField = {
  podName: 1,
  averageConcurrentRequests: 2,
  averageProxiedConcurrentRequests: 3,
  requestCount: 4,
  proxiedRequestCount: 5,
  processUptime: 6,
  timestamp: 7,
} as const;
const WireField = { namespace: 1, name: 2, stat: 3 } as const;
const MESSAGES_FIELD = 1;

function writeStat(w: ProtoWriter, s: Stat): ProtoWriter {
  return w
    .stringField(StatField.podName, s.podName)
    .doubleField(StatField.averageConcurrentRequests, s.averageConcurrentRequests)
    .doubleField(StatField.averageProxiedConcurrentRequests, s.averageProxiedConcurrentRequests)
    .doubleField(StatField.requestCount, s.requestCount)
    .doubleField(StatField.proxiedRequestCount, s.proxiedRequestCount)
    .doubleField(StatField.processUptime, s.processUptime)
    .int64Field(StatField.timestamp, s.timestamp);
}

function writeWireStatMessage(w: ProtoWriter, m: WireStatMessage): ProtoWriter {
  w.stringField(WireField.namespace, m.namespace).stringField(WireField.name, m.name);
  if (m.stat) w.messageField(WireField.stat, writeStat(new ProtoWriter(), m.stat).finish());
  return w;
}

/** Serialises a `Stat` exactly as Go's proto3 marshaller does (field order, defaults omitted). */
export function encodeStat(stat: Stat): Uint8Array {
  return writeStat(new ProtoWriter(), stat).finish();
}

/** Serialises one `WireStatMessage`; an absent `stat` is left out, a present one is always written. */
export function encodeWireStatMessage(message: WireStatMessage): Uint8Array {
  return writeWireStatMessage(new ProtoWriter(), message).finish();
}

/** Serialises a `WireStatMessages` (one websocket frame from the activator to the autoscaler). */
export function encodeWireStatMessages(messages: readonly WireStatMessage[]): Uint8Array {
  const w = new ProtoWriter();
  for (const m of messages) w.messageField(MESSAGES_FIELD, encodeWireStatMessage(m));
  return w.finish();
}

type DoubleKey = Exclude<keyof Stat, "podName" | "timestamp">;
const DOUBLE_FIELDS: Partial<Record<number, DoubleKey>> = {
  [StatField.averageConcurrentRequests]: "averageConcurrentRequests",
  [StatField.averageProxiedConcurrentRequests]: "averageProxiedConcurrentRequests",
  [StatField.requestCount]: "requestCount",
  [StatField.proxiedRequestCount]: "proxiedRequestCount",
  [StatField.processUptime]: "processUptime",
};
const STAT_NAMES: Partial<Record<number, string>> = {
  ...DOUBLE_FIELDS,
  [StatField.podName]: "podName",
  [StatField.timestamp]: "timestamp",
};
const WIRE_NAMES: Partial<Record<number, string>> = { 1: "namespace", 2: "name", 3: "stat" };

function join(path: string, name: string | undefined): string {
  if (!name) return path;
  return path ? `${path}.${name}` : name;
}

/** Labels a decode failure with the field path it happened in (the innermost label wins). */
function label(err: unknown, path: string): unknown {
  if (err instanceof ProtoDecodeError && err.path === "") err.path = path;
  return err;
}

function readStat(r: ProtoReader, into: Stat, path: string): Stat {
  let field = 0;
  try {
    while (!r.done) {
      field = 0;
      const tag = r.tag();
      field = tag.field;
      const double = DOUBLE_FIELDS[field];
      if (double && tag.wireType === WireType.fixed64) into[double] = r.double();
      else if (field === StatField.podName && tag.wireType === WireType.lengthDelimited)
        into.podName = r.string();
      else if (field === StatField.timestamp && tag.wireType === WireType.varint) {
        into.timestamp = r.int64();
      }
      // Unknown field, or a known one with another wire type: Go keeps it as unknown; we skip it.
      else r.skip(tag.wireType, field);
    }
  } catch (err) {
    throw label(err, join(path, STAT_NAMES[field]));
  }
  return into;
}

function readWireStatMessage(r: ProtoReader, path: string): WireStatMessage {
  const m: WireStatMessage = { namespace: "", name: "" };
  let field = 0;
  try {
    while (!r.done) {
      field = 0;
      const tag = r.tag();
      field = tag.field;
      const delimited = tag.wireType === WireType.lengthDelimited;
      if (field === WireField.namespace && delimited) m.namespace = r.string();
      else if (field === WireField.name && delimited) m.name = r.string();
      // A repeated embedded message merges into the earlier one, as protobuf specifies.
      else if (field === WireField.stat && delimited) {
        m.stat = readStat(r.message(), m.stat ?? emptyStat(), join(path, "stat"));
      } else r.skip(tag.wireType, field);
    }
  } catch (err) {
    throw label(err, join(path, WIRE_NAMES[field]));
  }
  return m;
}

/** Bytes as they arrive: a `Uint8Array` (Node `Buffer` included) or a websocket frame's `ArrayBuffer`. */
export type ProtoInput = Uint8Array | ArrayBuffer;

function view(input: ProtoInput): Uint8Array {
  return input instanceof Uint8Array ? input : new Uint8Array(input);
}

function decodeWith<T>(read: () => T): DecodeResult<T> {
  try {
    return { ok: true, value: read() };
  } catch (err) {
    if (!(err instanceof ProtoDecodeError)) throw err;
    return {
      ok: false,
      issue: {
        code: err.code,
        path: err.path,
        offset: err.offset,
        message: `${err.path ? `${err.path}: ` : ""}${err.message} (byte ${err.offset})`,
      },
    };
  }
}

/** Parses a serialised `Stat`; unknown fields are skipped, bad input is an issue, never a throw. */
export function decodeStat(bytes: ProtoInput): DecodeResult<Stat> {
  return decodeWith(() => readStat(new ProtoReader(view(bytes)), emptyStat(), ""));
}

/** Parses one serialised `WireStatMessage`. */
export function decodeWireStatMessage(bytes: ProtoInput): DecodeResult<WireStatMessage> {
  return decodeWith(() => readWireStatMessage(new ProtoReader(view(bytes)), ""));
}

/** Parses a serialised `WireStatMessages` into its messages (including ones without a `stat`). */
export function decodeWireStatMessages(bytes: ProtoInput): DecodeResult<WireStatMessage[]> {
  return decodeWith(() => {
    const r = new ProtoReader(view(bytes));
    const out: WireStatMessage[] = [];
    while (!r.done) {
      const { field, wireType } = r.tag();
      const path = `messages[${out.length}]`;
      if (field === MESSAGES_FIELD && wireType === WireType.lengthDelimited) {
        let sub: ProtoReader;
        try {
          sub = r.message();
        } catch (err) {
          throw label(err, path);
        }
        out.push(readWireStatMessage(sub, path));
      } else r.skip(wireType, field);
    }
    return out;
  });
}

/** The queue-proxy's :9090 `/metrics` answer: 200, `application/protobuf`, the serialised `Stat`. */
export function statMetricsResponse(stat: Stat): Response {
  return new Response(encodeStat(stat), { status: 200, headers: { "content-type": PROTOBUF_CONTENT_TYPE } });
}
