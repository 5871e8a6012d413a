/**
 * The header fields of a response read from the app, as the HTTP/1.1 client side wants them: the app's
 * own field lines, byte for byte, where they need no rewriting, so a proxied head is copied rather than
 * taken apart into strings and put back together.
 */

/** A response's kept fields: either the app's bytes (`spans` of `buf`) or a [name, value, ...] list. */
export class ResponseFields {
  private strings: string[] | null;

  constructor(
    /** The bytes the spans point into; only valid while the head is being handed on (a shared buffer). */
    private readonly buf: Buffer | null,
    /** [from, to) pairs of whole field lines, each ending in CRLF, every line reading `name: value`. */
    private readonly spans: readonly number[],
    /** How many entries of `spans` are this head's (the parser reuses the array). */
    private readonly spanCount: number,
    list: string[] | null,
    /** The Content-Length passed on ("" when none). */
    readonly contentLength: string,
    /** A `Date` field is among them. */
    readonly hasDate: boolean,
  ) {
    this.strings = list;
  }

  /** The fields as a flat [name, value, ...] list (made on first use from the bytes). */
  get list(): string[] {
    if (this.strings !== null) return this.strings;
    const out: string[] = [];
    const buf = this.buf as Buffer;
    const spans = this.spans;
    for (let s = 0; s < this.spanCount; s += 2) {
      const to = spans[s + 1] as number;
      for (let at = spans[s] as number; at < to; ) {
        const colon = buf.indexOf(0x3a, at);
        const eol = buf.indexOf(0x0d, colon);
        out.push(buf.toString("latin1", at, colon), buf.toString("latin1", colon + 2, eol));
        at = eol + 2;
      }
    }
    this.strings = out;
    return out;
  }

  /** Bytes `copyTo` writes, or -1 when the fields are only a list. */
  get rawLength(): number {
    if (this.buf === null) return -1;
    let n = 0;
    for (let s = 0; s < this.spanCount; s += 2)
      n += (this.spans[s + 1] as number) - (this.spans[s] as number);
    return n;
  }

  /** Copies the app's field lines into `target` at `at`; returns the offset after them. */
  copyTo(target: Buffer, at: number): number {
    const buf = this.buf as Buffer;
    for (let s = 0; s < this.spanCount; s += 2)
      at += buf.copy(target, at, this.spans[s] as number, this.spans[s + 1] as number);
    return at;
  }
}

/** What a response head's fields may come as: a plain list (own answers, h2c) or an app's response. */
export type ResponseHeaders = string[] | ResponseFields;

/** The flat [name, value, ...] list of `headers`. */
export function fieldList(headers: ResponseHeaders): string[] {
  return Array.isArray(headers) ? headers : headers.list;
}
