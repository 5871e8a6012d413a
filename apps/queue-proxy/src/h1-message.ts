/**
 * What the HTTP/1.x request parser (serving port) and response parser (upstream connection) share
 * (RFC 9112): collecting the head, reading its fields with the character checks of RFC 9110, and the
 * body framing by Content-Length, Transfer-Encoding chunked or the end of the connection.
 */

import {
  CONNECTION,
  CONTENT_LENGTH,
  DATE,
  EXPECT,
  fieldNameId,
  HOP_BY_HOP_IDS,
  HOST,
  KEEP_ALIVE,
  OTHER,
  sameName,
  sameText,
  TRANSFER_ENCODING,
  UPGRADE,
} from "./h1-field-names.js";
import { checkTrailer, chunkSize, lengthValue, TCHAR, TOO_LONG } from "./h1-syntax.js";

const CRLF_CRLF = Buffer.from("\r\n\r\n");

/** Most header fields in one head: enough for any real message, few enough that one head stays cheap. */
const MAX_FIELDS = 10_000;

/** Parser states. */
export const HEAD = 0;
const LENGTH = 1;
const CHUNK_SIZE = 2;
const CHUNK_DATA = 3;
const CHUNK_END = 4;
const TRAILERS = 5;
export const UNTIL_CLOSE = 6;
export const DONE = 7;

/** How a message's body is delimited. */
type Framing = "none" | "length" | "chunked" | "close";

/**
 * One message at a time: `begin` arms it, `feedMessage` consumes bytes until the message ends. The
 * subclass reads the start line and decides the framing; this class does the rest.
 */
export abstract class H1MessageParser {
  protected state: number = DONE;
  private pending: Buffer | null = null;
  private pendingLength = 0;
  private remaining = 0;
  private line = "";

  // What the fields of the last head said about framing and the connection.
  /** Content-Length (-1 when absent). */
  protected contentLength = -1;
  /** Transfer-Encoding was given, and whether its final coding is chunked. */
  protected transferEncoding = false;
  protected chunked = false;
  /** Transfer-Encoding is exactly one `chunked` (the only form a request may use, as in Go). */
  protected onlyChunked = false;
  /** `Connection` tokens, lower case, comma-joined ("" when absent). */
  protected connection = "";
  /** The last `Keep-Alive` value. */
  protected keepAliveValue = "";
  private lastKeepAlive = "";
  /** The last small head's field list ([] when none): its strings are reused where the next one repeats them. */
  protected recent: readonly string[] = NO_TOKENS;
  /** Request-side fields: `Expect`, `Upgrade` present, how many `Host`. */
  protected expect = "";
  protected upgradeField = false;
  protected hosts = 0;
  /** A `Date` field was given. */
  protected hasDate = false;
  /** Without a `fields` list: where the kept field lines lie, and whether all read `name: value`. */
  protected readonly spans: number[] = [];
  /** How many entries of `spans` the last head filled (the array is reused, never truncated). */
  protected spanCount = 0;
  protected canonical = true;

  /**
   * Requests (as llhttp): a second Content-Length is refused even when equal, and so is any coding after
   * `chunked`. Responses keep the leniency of Go's transport (same length repeated; body to the close).
   */
  protected requestRules = false;

  constructor(private readonly maxHeadBytes: number) {}

  /** An error for bytes the parser cannot accept; `status` is the answer a client would get. */
  protected abstract error(message: string, status?: number): Error;
  /** The head is `buf[0, end)` (without the blank line); it must call `frame`. */
  protected abstract parseHead(buf: Buffer, end: number): void;
  protected abstract onBody(chunk: Buffer): void;
  protected abstract onEnd(): void;

  /** Whether a message is expected or in progress. */
  get busy(): boolean {
    return this.state !== DONE;
  }

  /** Expects the next message. */
  protected begin(): void {
    this.state = HEAD;
    this.pending = null;
    this.pendingLength = 0;
    this.line = "";
  }

  /** Feeds bytes; returns how many were used: all of them, unless the message ended inside `chunk`. */
  protected feedMessage(chunk: Buffer): number {
    let at = 0;
    while (at < chunk.length && this.state !== DONE) {
      switch (this.state) {
        case HEAD:
          at = this.readHead(chunk, at);
          break;
        case LENGTH:
          at = this.deliver(chunk, at);
          if (this.remaining === 0) this.finish();
          break;
        case CHUNK_SIZE:
        case TRAILERS:
        case CHUNK_END:
          at = this.readLine(chunk, at);
          break;
        case CHUNK_DATA:
          at = this.deliver(chunk, at);
          if (this.remaining === 0) this.state = CHUNK_END;
          break;
        case UNTIL_CLOSE:
          this.onBody(at === 0 ? chunk : chunk.subarray(at));
          at = chunk.length;
          break;
      }
    }
    return at;
  }

  /** Starts the body after the head (or ends the message when it has none). */
  protected frame(framing: Framing, length = 0): void {
    if (framing === "chunked") this.state = CHUNK_SIZE;
    else if (framing === "close") this.state = UNTIL_CLOSE;
    else if (framing === "length" && length > 0) {
      this.remaining = length;
      this.state = LENGTH;
    } else this.finish();
  }

  protected finish(): void {
    this.state = DONE;
    this.onEnd();
  }

  /** Hands on up to `remaining` body bytes of `chunk` from `at`; returns where reading goes on. */
  private deliver(chunk: Buffer, at: number): number {
    const n = Math.min(this.remaining, chunk.length - at);
    this.remaining -= n;
    this.onBody(at === 0 && n === chunk.length ? chunk : chunk.subarray(at, at + n));
    return at + n;
  }

  private readHead(chunk: Buffer, at: number): number {
    const data = at === 0 ? chunk : chunk.subarray(at);
    if (this.pendingLength === 0) {
      const end = headEnd(data);
      if (end < 0) {
        this.checkPartial(data, -1);
        this.keep(data);
        return chunk.length;
      }
      if (end > this.maxHeadBytes) throw this.tooLarge();
      this.parseHead(data, end);
      return at + end + 4;
    }
    // The head came in pieces: collect them in one growing buffer (no quadratic copying for slow
    // clients), taking from this piece only the bytes up to the blank line, which may straddle the seam.
    const before = this.pendingLength;
    const pending = this.pending as Buffer;
    const back = Math.min(3, before);
    const seam = Buffer.concat([pending.subarray(before - back, before), data.subarray(0, 3)]).indexOf(
      CRLF_CRLF,
    );
    let take = seam >= 0 ? seam + 4 - back : data.indexOf(CRLF_CRLF);
    if (seam < 0 && take >= 0) take += 4;
    if (take < 0) {
      this.checkPartial(data, pending[before - 1] as number);
      this.keep(data);
      return chunk.length;
    }
    this.keep(data.subarray(0, take));
    const all = (this.pending as Buffer).subarray(0, this.pendingLength);
    this.pending = null;
    this.pendingLength = 0;
    this.parseHead(all, all.length - 4);
    return at + take;
  }

  /**
   * A head still incomplete may already hold a bare LF or a bare CR, which no head may contain: llhttp
   * refuses at once, and so does this parser, rather than wait for a blank line that could only end a
   * head it must refuse. `before` is the byte that came before `data` (-1 if none). Only heads that do
   * not arrive in one read pay for this.
   */
  protected checkPartial(data: Buffer, before: number): void {
    for (let i = data.indexOf(0x0a); i >= 0; i = data.indexOf(0x0a, i + 1)) {
      if ((i === 0 ? before : data[i - 1]) !== 0x0d) throw this.error("bare LF in the head");
    }
    for (let i = data.indexOf(0x0d); i >= 0 && i < data.length - 1; i = data.indexOf(0x0d, i + 1)) {
      if (data[i + 1] !== 0x0a) throw this.error("bare CR in the head");
    }
    if (before === 0x0d && data[0] !== 0x0a) throw this.error("bare CR in the head");
  }

  private keep(data: Buffer): void {
    const need = this.pendingLength + data.length;
    if (need > this.maxHeadBytes + 4) throw this.tooLarge();
    if (this.pending === null || this.pending.length < need) {
      const grown = Buffer.allocUnsafe(Math.min(Math.max(4096, need * 2), this.maxHeadBytes + 4));
      if (this.pending !== null) this.pending.copy(grown, 0, 0, this.pendingLength);
      this.pending = grown;
    }
    data.copy(this.pending, this.pendingLength);
    this.pendingLength = need;
  }

  private tooLarge(): Error {
    return this.error("head too large", 431);
  }

  /**
   * Reads the header fields in `buf[pos, end)` byte by byte, checking names and values here, so the proxy
   * never hands on a character Node's `writeHead` or the app's parser would refuse. With `dropHopByHop`,
   * the hop-by-hop fields (`HOP_BY_HOP_IDS`) are left out. With a `fields` list, the kept fields go into it as [name, value, ...] strings; without
   * one, only where the kept lines lie in `buf` is noted (`spans`, pairs of [from, to) with their CRLF,
   * adjacent lines merged), and strings are made only for the fields that matter to framing. `canonical`
   * then says whether every kept line reads exactly `name: value` (one space, no trailing whitespace).
   */
  protected parseFields(
    buf: Buffer,
    pos: number,
    end: number,
    fields: string[] | null,
    dropHopByHop: boolean,
  ): void {
    this.contentLength = -1;
    this.transferEncoding = false;
    this.chunked = false;
    this.onlyChunked = false;
    this.connection = "";
    this.keepAliveValue = "";
    this.expect = "";
    this.upgradeField = false;
    this.hosts = 0;
    this.hasDate = false;
    this.canonical = true;
    const spans = this.spans;
    // Counted rather than truncated: setting an array's length is a runtime call on every head.
    let spanCount = 0;
    let count = 0;
    while (pos < end) {
      if (++count > MAX_FIELDS) throw this.error(`more than ${MAX_FIELDS} header fields`, 431);
      // One pass per line, checking as it goes (a `Buffer.indexOf` per delimiter costs more than a short
      // line): the name is token characters up to the colon, the value field characters up to CRLF.
      // Neither CR nor the colon is a token character, nor CR a value character, so the first colon and
      // the first CR are where these runs stop on any line that is well-formed.
      let colon = pos;
      while (colon < end && TCHAR[buf[colon] as number] === 1) colon++;
      if (colon === pos || colon === end || buf[colon] !== 0x3a) throw this.badLine(buf, pos, end);
      let lineEnd = colon + 1;
      // VCHAR without a table: HTAB, or SP and above except DEL.
      for (let b = buf[lineEnd] as number; lineEnd < end; b = buf[++lineEnd] as number) {
        if (b < 0x20 ? b !== 0x09 : b === 0x7f) break;
      }
      if (lineEnd < end && (buf[lineEnd] !== 0x0d || buf[lineEnd + 1] !== 0x0a)) {
        throw this.badLine(buf, pos, end);
      }
      let vs = colon + 1;
      let ve = lineEnd;
      while (vs < ve && (buf[vs] === 0x20 || buf[vs] === 0x09)) vs++;
      while (ve > vs && (buf[ve - 1] === 0x20 || buf[ve - 1] === 0x09)) ve--;
      const from = pos;
      pos = lineEnd + 2;
      // The name is checked as a token above, so it can be recognised from its bytes: no string per field.
      const id = fieldNameId(buf, from, colon);
      switch (id) {
        case OTHER:
          break;
        case CONTENT_LENGTH: {
          // llhttp: one Content-Length only (a response may repeat the same one, as Go's transport
          // takes), digits after the leading whitespace, then spaces only.
          const n = lengthValue(buf, vs, lineEnd);
          if (n === TOO_LONG) throw this.error("Content-Length beyond 2^53 is not supported");
          const again = this.contentLength >= 0 && (this.requestRules || this.contentLength !== n);
          if (n < 0 || again)
            throw this.error(`bad content-length ${JSON.stringify(buf.toString("latin1", vs, ve))}`);
          this.contentLength = n;
          break;
        }
        case TRANSFER_ENCODING: {
          // llhttp refuses Transfer-Encoding after a Content-Length (even empty), otherwise ignores an
          // empty value, refuses any coding after `chunked`, and reads `chunked` followed by a tab as
          // another coding (it trims spaces only).
          if (this.contentLength >= 0 && this.requestRules)
            throw this.error("both Transfer-Encoding and Content-Length");
          if (ve === vs) break;
          if (this.chunked && this.requestRules) throw this.error("bad transfer-encoding");
          const value = buf.toString("latin1", vs, ve);
          const tabbed = buf[lineEnd - 1] === 0x09;
          this.onlyChunked = !this.transferEncoding && !tabbed && value.toLowerCase() === "chunked";
          this.transferEncoding = true;
          this.chunked =
            !tabbed &&
            value
              .slice(value.lastIndexOf(",") + 1)
              .trim()
              .toLowerCase() === "chunked";
          break;
        }
        case CONNECTION: {
          const value = lowerToken(buf, vs, ve);
          this.connection = this.connection === "" ? value : `${this.connection},${value}`;
          break;
        }
        case KEEP_ALIVE:
          // An app sends the same value on every response: the last string is reused when the bytes match.
          this.keepAliveValue = sameText(buf, vs, ve, this.lastKeepAlive)
            ? this.lastKeepAlive
            : buf.toString("latin1", vs, ve);
          this.lastKeepAlive = this.keepAliveValue;
          break;
        case EXPECT:
          this.expect = buf.toString("latin1", vs, ve).toLowerCase();
          break;
        case UPGRADE:
          this.upgradeField = true;
          break;
        case HOST:
          this.hosts++;
          break;
        case DATE:
          this.hasDate = true;
          break;
      }
      if (dropHopByHop && id !== OTHER && (HOP_BY_HOP_IDS & (1 << id)) !== 0) continue;
      if (fields !== null) {
        // A client repeats most of its fields from one request to the next: where the bytes match the
        // string in the same place last time, it is reused instead of copied out again.
        const at = fields.length;
        const r = this.recent;
        const name =
          at < r.length && sameText(buf, from, colon, r[at] as string)
            ? (r[at] as string)
            : buf.toString("latin1", from, colon);
        const value =
          at + 1 < r.length && sameText(buf, vs, ve, r[at + 1] as string)
            ? (r[at + 1] as string)
            : buf.toString("latin1", vs, ve);
        fields.push(name, value);
        continue;
      }
      if (vs !== colon + 2 || buf[colon + 1] !== 0x20 || ve !== lineEnd) this.canonical = false;
      if (spanCount > 0 && spans[spanCount - 1] === from) spans[spanCount - 1] = pos;
      else {
        spans[spanCount++] = from;
        spans[spanCount++] = pos;
      }
    }
    this.spanCount = spanCount;
  }

  /** The `Connection` header's tokens. */
  protected connectionTokens(): readonly string[] {
    const c = this.connection;
    // The common values need no splitting.
    if (c === "") return NO_TOKENS;
    if (c === "keep-alive") return KEEP_ALIVE_TOKENS;
    if (c === "close") return CLOSE;
    return c.split(",").map((t) => t.trim());
  }

  /** The line starting at `from` (up to its CR, or the end of the head at `end`) is malformed. */
  private badLine(buf: Buffer, from: number, end: number): Error {
    let to = buf.indexOf(0x0d, from);
    if (to < 0 || to > end) to = end;
    return this.error(
      `bad header line ${JSON.stringify(buf.toString("latin1", from, Math.min(to, from + 40)))}`,
    );
  }

  /** Reads one CRLF-terminated line of the chunked framing; lines are short, so a string carries them. */
  private readLine(chunk: Buffer, at: number): number {
    const lf = chunk.indexOf(0x0a, at);
    const stop = lf < 0 ? chunk.length : lf;
    this.line += chunk.toString("latin1", at, stop);
    if (this.line.length > 4096) throw this.error("chunk framing line too long");
    if (lf < 0) return chunk.length;
    // Every line of the chunked framing ends in CRLF; a bare LF is how framings are made to disagree.
    if (!this.line.endsWith("\r")) throw this.error("chunk framing line without CRLF");
    const line = this.line.slice(0, -1);
    this.line = "";
    this.onLine(line);
    return lf + 1;
  }

  private onLine(line: string): void {
    if (this.state === CHUNK_END) {
      if (line !== "") throw this.error("chunk data longer than its size");
      this.state = CHUNK_SIZE;
      return;
    }
    if (this.state === TRAILERS) {
      // Trailer fields are dropped, as the proxy forwards none, but checked as llhttp checks them.
      if (line === "") this.finish();
      else checkTrailer(line, (m) => this.error(m));
      return;
    }
    const size = chunkSize(line);
    if (size === TOO_LONG) throw this.error("chunk size beyond 2^48 is not supported");
    if (size < 0) throw this.error(`bad chunk size ${JSON.stringify(line.slice(0, 20))}`);
    if (size === 0) this.state = TRAILERS;
    else {
      this.remaining = size;
      this.state = CHUNK_DATA;
    }
  }
}

/** How far `headEnd` looks byte by byte before leaving the search to `Buffer.indexOf`. */
const SHORT_HEAD = 512;

/**
 * Where the blank line ending the head in `data` begins, -1 if it has not arrived. Most heads are short:
 * a loop finds their end for less than the call into C++ that `Buffer.indexOf` makes, which is kept for
 * the rest of a long one.
 */
function headEnd(data: Buffer): number {
  const stop = Math.min(data.length, SHORT_HEAD) - 3;
  for (let i = 0; i < stop; ) {
    const b = data[i + 3];
    // A byte that is neither CR nor LF cannot lie in a CRLFCRLF starting at any of the next four places.
    if (b !== 0x0a && b !== 0x0d) i += 4;
    else if (data[i] === 0x0d && data[i + 1] === 0x0a && data[i + 2] === 0x0d && b === 0x0a) return i;
    else i++;
  }
  return data.length <= SHORT_HEAD ? -1 : data.indexOf(CRLF_CRLF, Math.max(0, stop));
}

/** A `Connection` value in lower case; the two usual ones without making a string. */
function lowerToken(buf: Buffer, from: number, to: number): string {
  if (to - from === 10 && sameName(buf, from, "keep-alive")) return "keep-alive";
  if (to - from === 5 && sameName(buf, from, "close")) return "close";
  return buf.toString("latin1", from, to).toLowerCase();
}

const NO_TOKENS: readonly string[] = [];
const KEEP_ALIVE_TOKENS: readonly string[] = ["keep-alive"];
const CLOSE: readonly string[] = ["close"];
