import { WireType } from "./proto-writer.js";

/** Stable codes of protobuf decoding failures. */
export const ProtoErrorCode = {
  truncated: "ERR_PROTOBUF_TRUNCATED",
  malformed: "ERR_PROTOBUF_MALFORMED",
  utf8: "ERR_PROTOBUF_UTF8",
  tooLarge: "ERR_PROTOBUF_TOO_LARGE",
} as const;

/** One of the {@link ProtoErrorCode} strings. */
export type ProtoErrorCode = (typeof ProtoErrorCode)[keyof typeof ProtoErrorCode];

/** Why a byte string is not a valid message: code, where (field path and byte offset) and what. */
export interface ProtoIssue {
  code: ProtoErrorCode;
  /** Field path such as `messages[1].stat.podName`; "" for the top level. */
  path: string;
  offset: number;
  message: string;
}

/** Result of decoding: the value, or the first problem found. */
export type DecodeResult<T> = { ok: true; value: T } | { ok: false; issue: ProtoIssue };

/** Thrown inside the reader only; the public decoders turn it into a {@link DecodeResult}. */
export class ProtoDecodeError extends Error {
  readonly code: ProtoErrorCode;
  readonly offset: number;
  path = "";

  constructor(code: ProtoErrorCode, offset: number, message: string) {
    super(message);
    this.name = "ProtoDecodeError";
    this.code = code;
    this.offset = offset;
  }
}

// ignoreBOM keeps a leading U+FEFF in the string, as Go does.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const MAX_FIELD = 2 ** 29 - 1;

/** Reads protobuf wire primitives from a byte range, failing with {@link ProtoDecodeError}. */
export class ProtoReader {
  readonly #buf: Uint8Array;
  readonly #view: DataView;
  readonly #end: number;
  #pos: number;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.#buf = buf;
    this.#view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.#pos = start;
    this.#end = end;
  }

  /** Current byte offset. */
  get pos(): number {
    return this.#pos;
  }

  /** True when every byte was consumed. */
  get done(): boolean {
    return this.#pos >= this.#end;
  }

  /** A varint of up to 10 bytes as an unsigned 64-bit bigint. */
  varint(): bigint {
    const start = this.#pos;
    let result = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.#pos >= this.#end)
        throw new ProtoDecodeError(ProtoErrorCode.truncated, start, "varint cut short");
      const b = this.#buf[this.#pos++] as number;
      if (i === 9 && b > 1)
        throw new ProtoDecodeError(ProtoErrorCode.malformed, start, "varint overflows 64 bits");
      result |= BigInt(b & 0x7f) << BigInt(7 * i);
      if (b < 0x80) return result;
    }
    throw new ProtoDecodeError(ProtoErrorCode.malformed, start, "varint longer than 10 bytes");
  }

  /**
   * A varint as a double, for keys and lengths: exact up to 2^53, approximate above, which only ever
   * feeds range checks that reject such values anyway. Avoids BigInt on the hot path.
   */
  varintNumber(): number {
    const start = this.#pos;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.#pos >= this.#end)
        throw new ProtoDecodeError(ProtoErrorCode.truncated, start, "varint cut short");
      const b = this.#buf[this.#pos++] as number;
      if (i === 9 && b > 1)
        throw new ProtoDecodeError(ProtoErrorCode.malformed, start, "varint overflows 64 bits");
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 0x80;
    }
    throw new ProtoDecodeError(ProtoErrorCode.malformed, start, "varint longer than 10 bytes");
  }

  /** An int64 varint as a number (two's complement for negatives; beyond 2^53 precision is lost). */
  int64(): number {
    const start = this.#pos;
    const n = this.varintNumber();
    if (n <= Number.MAX_SAFE_INTEGER) return n;
    this.#pos = start;
    return Number(BigInt.asIntN(64, this.varint()));
  }

  /** A field key: field number and wire type. */
  tag(): { field: number; wireType: number } {
    const start = this.#pos;
    const key = this.varintNumber();
    const field = Math.floor(key / 8);
    if (field < 1 || field > MAX_FIELD) {
      throw new ProtoDecodeError(ProtoErrorCode.malformed, start, `invalid field number ${field}`);
    }
    return { field, wireType: key % 8 };
  }

  /** A little-endian double. */
  double(): number {
    this.#need(8, "double");
    const v = this.#view.getFloat64(this.#pos, true);
    this.#pos += 8;
    return v;
  }

  /** A length prefix followed by that many bytes, returned as [start, end) offsets. */
  span(): [number, number] {
    const start = this.#pos;
    const len = this.varintNumber();
    if (len > this.#end - this.#pos) {
      throw new ProtoDecodeError(
        ProtoErrorCode.truncated,
        start,
        `length ${len} runs past the end of the input`,
      );
    }
    const from = this.#pos;
    this.#pos += Number(len);
    return [from, this.#pos];
  }

  /** A length-delimited UTF-8 string (proto3 rejects invalid UTF-8, so do we). */
  string(): string {
    const [from, to] = this.span();
    // ASCII (every pod and revision name) needs neither validation nor TextDecoder.
    if (to - from <= 256) {
      let ascii = "";
      let i = from;
      for (; i < to; i++) {
        const b = this.#buf[i] as number;
        if (b >= 0x80) break;
        ascii += String.fromCharCode(b);
      }
      if (i === to) return ascii;
    }
    try {
      return utf8.decode(this.#buf.subarray(from, to));
    } catch {
      throw new ProtoDecodeError(ProtoErrorCode.utf8, from, "string field is not valid UTF-8");
    }
  }

  /** A reader over an embedded message. */
  message(): ProtoReader {
    const [from, to] = this.span();
    return new ProtoReader(this.#buf, from, to);
  }

  /** Skips the value of a field this decoder does not know (or knows with another wire type). */
  skip(wireType: number, field: number): void {
    switch (wireType) {
      case WireType.varint:
        this.varintNumber();
        return;
      case WireType.fixed64:
        this.#need(8, "fixed64");
        this.#pos += 8;
        return;
      case WireType.lengthDelimited:
        this.span();
        return;
      case WireType.fixed32:
        this.#need(4, "fixed32");
        this.#pos += 4;
        return;
      case WireType.startGroup:
        this.#skipGroup(field);
        return;
      default:
        throw new ProtoDecodeError(ProtoErrorCode.malformed, this.#pos, `unexpected wire type ${wireType}`);
    }
  }

  #skipGroup(field: number): void {
    for (;;) {
      if (this.done)
        throw new ProtoDecodeError(ProtoErrorCode.truncated, this.#pos, `group ${field} not closed`);
      const t = this.tag();
      if (t.wireType === WireType.endGroup) {
        if (t.field === field) return;
        throw new ProtoDecodeError(
          ProtoErrorCode.malformed,
          this.#pos,
          `group ${field} closed as ${t.field}`,
        );
      }
      this.skip(t.wireType, t.field);
    }
  }

  #need(n: number, what: string): void {
    if (this.#end - this.#pos < n) {
      throw new ProtoDecodeError(ProtoErrorCode.truncated, this.#pos, `${what} needs ${n} bytes`);
    }
  }
}
