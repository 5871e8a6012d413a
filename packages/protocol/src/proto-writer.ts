/** Protobuf wire types used by the Stat messages. */
export const WireType = {
  varint: 0,
  fixed64: 1,
  lengthDelimited: 2,
  startGroup: 3,
  endGroup: 4,
  fixed32: 5,
} as const;

const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;
const utf8 = new TextEncoder();

/** A growable byte buffer that writes protobuf wire primitives. */
export class ProtoWriter {
  // Big enough for any Stat (the scraper caps them at 336 bytes) so encoding one never grows the buffer.
  #buf = new Uint8Array(384);
  #view = new DataView(this.#buf.buffer);
  #len = 0;

  /** The bytes written so far (a copy-free view). */
  finish(): Uint8Array {
    return this.#buf.subarray(0, this.#len);
  }

  #reserve(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    const next = new Uint8Array(Math.max(this.#buf.length * 2, this.#len + n));
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
    this.#view = new DataView(next.buffer);
  }

  /** An unsigned varint of up to 64 bits. */
  varint(value: bigint): this {
    this.#reserve(10);
    let v = BigInt.asUintN(64, value);
    while (v >= 0x80n) {
      this.#buf[this.#len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.#buf[this.#len++] = Number(v);
    return this;
  }

  /** An unsigned varint of a small non-negative integer (tags, lengths) without BigInt. */
  uint32(value: number): this {
    this.#reserve(5);
    let v = value >>> 0;
    while (v >= 0x80) {
      this.#buf[this.#len++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.#buf[this.#len++] = v;
    return this;
  }

  /** A field key. */
  tag(field: number, wireType: number): this {
    return this.uint32(((field << 3) | wireType) >>> 0);
  }

  /** A double as 8 little-endian bytes. */
  double(value: number): this {
    this.#reserve(8);
    this.#view.setFloat64(this.#len, value, true);
    this.#len += 8;
    return this;
  }

  /** Length-prefixed raw bytes. */
  bytes(value: Uint8Array): this {
    this.uint32(value.length);
    this.#reserve(value.length);
    this.#buf.set(value, this.#len);
    this.#len += value.length;
    return this;
  }

  /** A length-prefixed UTF-8 string. */
  string(value: string): this {
    // Pod and revision names are ASCII: copying code units skips TextEncoder's allocation.
    const n = value.length;
    for (let i = 0; i < n; i++) if (value.charCodeAt(i) >= 0x80) return this.bytes(utf8.encode(value));
    this.uint32(n);
    this.#reserve(n);
    for (let i = 0; i < n; i++) this.#buf[this.#len++] = value.charCodeAt(i);
    return this;
  }

  /** An unsigned varint of a non-negative safe integer, with float arithmetic instead of BigInt. */
  uint53(value: number): this {
    this.#reserve(8);
    let v = value;
    while (v >= 0x80) {
      this.#buf[this.#len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.#buf[this.#len++] = v;
    return this;
  }

  /** proto3 `string` field: omitted when empty. */
  stringField(field: number, value: string): this {
    return value === "" ? this : this.tag(field, WireType.lengthDelimited).string(value);
  }

  /** proto3 `double` field: omitted only for +0 (Go omits when all 64 bits are zero, so -0 is written). */
  doubleField(field: number, value: number): this {
    return Object.is(value, 0) ? this : this.tag(field, WireType.fixed64).double(value);
  }

  /** proto3 `int64` field: omitted when 0; negative values take the 10-byte two's-complement form. */
  int64Field(field: number, value: number): this {
    if (value === 0) return this;
    if (!Number.isInteger(value)) throw new RangeError(`int64 field ${field}: ${value} is not an integer`);
    if (value > 0 && value <= Number.MAX_SAFE_INTEGER) return this.tag(field, WireType.varint).uint53(value);
    const big = BigInt(value);
    if (big < MIN_INT64 || big > MAX_INT64)
      throw new RangeError(`int64 field ${field}: ${value} is out of range`);
    return this.tag(field, WireType.varint).varint(big);
  }

  /** An embedded message field (always written, even when empty, as Go does for a set message). */
  messageField(field: number, encoded: Uint8Array): this {
    return this.tag(field, WireType.lengthDelimited).bytes(encoded);
  }
}
