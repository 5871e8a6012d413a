/**
 * An incremental HTTP/1.x response parser for the upstream connection (RFC 9112): status line, header
 * fields, then the body framed by Transfer-Encoding chunked, Content-Length, or the end of the connection.
 * It hands the head over already without hop-by-hop fields, as the app's own field lines where none needs
 * rewriting (`ResponseFields`), so a proxied response costs one pass over its head and no strings.
 */
import { connectionNamed, removeFields } from "./h1-fields.js";
import { DONE, H1MessageParser, HEAD, UNTIL_CLOSE } from "./h1-message.js";
import { byteIndex, isDigit } from "./h1-syntax.js";
import { ResponseFields } from "./response-fields.js";

/** What the parser reports while bytes are fed. */
export interface ResponseEvents {
  /** The final (non-1xx) head, without hop-by-hop fields; `fields` reads the fed bytes: use it during the call. */
  head(status: number, fields: ResponseFields): void;
  /** A piece of the (de-chunked) body. */
  body(chunk: Buffer): void;
  /** The response ended; `reusable` says whether the connection may carry another request. */
  end(reusable: boolean): void;
  /** Upgrade mode only: the app answered 101; `head` is its head as sent (without the blank line). */
  switched?(head: Buffer): void;
}

/** A response the proxy cannot read; the connection must be dropped. */
export class UpstreamProtocolError extends Error {
  readonly code = "ERR_UPSTREAM_PROTOCOL";
  constructor(message: string) {
    super(`upstream sent a malformed response: ${message}`);
    this.name = "UpstreamProtocolError";
  }
}

/** Largest response head accepted (Node's and Go's default limits are in the same range). */
export const MAX_HEAD_BYTES = 64 * 1024;

/** Parses one response at a time; `start` arms it for the next request's response. */
export class H1ResponseParser extends H1MessageParser {
  private headRequest = false;
  private upgrade = false;
  private keepAlive = true;
  /** `Keep-Alive: timeout=N` of the last response, in ms (0 = none given). */
  keepAliveHintMs = 0;
  /** Some byte of the current response arrived. */
  started = false;

  constructor(private readonly events: ResponseEvents) {
    super(MAX_HEAD_BYTES);
  }

  /**
   * Expects the response to a request; `head` = the request was HEAD (no body follows); `upgrade` = the
   * request asked to switch protocols, so a 101 is its final answer (reported by `switched`, not `head`).
   */
  start(headRequest: boolean, upgrade = false): void {
    this.begin();
    this.headRequest = headRequest;
    this.upgrade = upgrade;
    this.started = false;
    this.switchedOver = false;
    this.keepAliveHintMs = 0;
  }

  /** Feeds bytes from the socket. Throws UpstreamProtocolError; bytes beyond the response also throw. */
  feed(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.started = true;
    if (this.state === DONE || this.feedMessage(chunk) < chunk.length) {
      throw new UpstreamProtocolError("bytes after the end of the response");
    }
  }

  /**
   * Upgrade mode: feeds bytes and returns how many belong to the HTTP exchange. After a 101 the rest of
   * `chunk` is the new protocol's; after any other answer, bytes beyond it throw as in `feed`.
   */
  feedUpgrade(chunk: Buffer): number {
    if (chunk.length === 0) return 0;
    this.started = true;
    if (this.state === DONE) throw new UpstreamProtocolError("bytes after the end of the response");
    const used = this.feedMessage(chunk);
    if (used < chunk.length && !this.switchedOver) {
      throw new UpstreamProtocolError("bytes after the end of the response");
    }
    return used;
  }

  /** The last exchange ended in a 101 (upgrade mode). */
  switchedOver = false;

  /** The connection ended: completes a close-delimited body, otherwise the response was cut short. */
  eof(): void {
    // A close-delimited body: its framing already made the connection not reusable.
    if (this.state === UNTIL_CLOSE) {
      this.finish();
      return;
    }
    if (this.state !== DONE) throw new UpstreamProtocolError("connection closed before the response ended");
  }

  protected error(message: string): Error {
    return new UpstreamProtocolError(message === "head too large" ? "response head too large" : message);
  }

  protected onBody(chunk: Buffer): void {
    this.events.body(chunk);
  }

  protected onEnd(): void {
    this.events.end(this.keepAlive);
  }

  protected parseHead(buf: Buffer, end: number): void {
    let eol = byteIndex(buf, 0x0d, 0, end);
    if (eol < 0) eol = end;
    // HTTP/1.x SP 3DIGIT [SP reason]
    if (
      eol < 12 ||
      (eol < end && buf[eol + 1] !== 0x0a) ||
      !startsHttp1(buf) ||
      (buf[7] !== 0x30 && buf[7] !== 0x31) ||
      buf[8] !== 0x20 ||
      !isDigit(buf[9]) ||
      !isDigit(buf[10]) ||
      !isDigit(buf[11]) ||
      (eol > 12 && buf[12] !== 0x20)
    ) {
      throw new UpstreamProtocolError(
        `bad status line ${JSON.stringify(buf.toString("latin1", 0, Math.min(eol, 40)))}`,
      );
    }
    const status =
      ((buf[9] as number) - 0x30) * 100 + ((buf[10] as number) - 0x30) * 10 + (buf[11] as number) - 0x30;
    if (status < 100) throw new UpstreamProtocolError(`bad status ${status}`);
    // First pass: only where the kept lines lie; strings only when some line must be rewritten or dropped.
    this.parseFields(buf, eol + 2, end, null, true);
    // 1xx (other than 101, which only answers an upgrade) are interim: the final head follows.
    if (status < 200) {
      if (status === 101 && this.upgrade) {
        this.switchedOver = true;
        this.events.switched?.(buf.subarray(0, end));
        this.state = DONE;
        return;
      }
      if (status === 101) throw new UpstreamProtocolError("101 Switching Protocols to a plain request");
      this.state = HEAD;
      return;
    }
    const tokens = this.connectionTokens();
    this.keepAlive = buf[7] === 0x30 ? tokens.includes("keep-alive") : !tokens.includes("close");
    this.keepAliveHintMs = parseKeepAliveTimeout(this.keepAliveValue);
    // `keep-alive` and `close`, the usual values, name no field: skip building an empty set for them.
    const named = tokens.length > 1 || (tokens.length === 1 && !PLAIN_TOKENS.has(tokens[0] as string));
    // With both, Transfer-Encoding frames the body and the length is wrong (RFC 9112 6.3): never pass it on.
    const bothFramings = this.transferEncoding && this.contentLength >= 0;
    let fields: ResponseFields;
    if (this.canonical && !named && !bothFramings) {
      const length = this.contentLength >= 0 ? String(this.contentLength) : "";
      fields = new ResponseFields(buf, this.spans, this.spanCount, null, length, this.hasDate);
    } else {
      const headers: string[] = [];
      this.parseFields(buf, eol + 2, end, headers, true);
      if (named) dropNamed(headers, tokens);
      if (bothFramings) removeFields(headers, CONTENT_LENGTH);
      fields = new ResponseFields(null, NO_SPANS, 0, headers, lengthOf(headers), hasField(headers, "date"));
    }
    this.events.head(status, fields);
    if (this.headRequest || status === 204 || status === 304) this.frame("none");
    else if (this.transferEncoding) {
      // A body coding we cannot frame runs to the end of the connection (RFC 9112 6.3).
      if (!this.chunked) this.keepAlive = false;
      this.frame(this.chunked ? "chunked" : "close");
    } else if (this.contentLength >= 0) this.frame("length", this.contentLength);
    else {
      this.keepAlive = false;
      this.frame("close");
    }
  }
}

/** `buf` begins with `HTTP/1.` (compared byte by byte: no string per response). */
function startsHttp1(buf: Buffer): boolean {
  return (
    buf[0] === 0x48 &&
    buf[1] === 0x54 &&
    buf[2] === 0x54 &&
    buf[3] === 0x50 &&
    buf[4] === 0x2f &&
    buf[5] === 0x31 &&
    buf[6] === 0x2e
  );
}

/** `timeout=5, max=100` -> 5000; 0 when absent or unreadable. */
export function parseKeepAliveTimeout(value: string): number {
  if (value === "") return 0;
  // An app sends the same value on every response: remember the last one.
  if (value === lastHint.value) return lastHint.ms;
  const m = /(?:^|[\s,])timeout\s*=\s*(\d+)/i.exec(value);
  lastHint.value = value;
  lastHint.ms = m ? Number(m[1]) * 1000 : 0;
  return lastHint.ms;
}

const lastHint = { value: "", ms: 0 };

/** Removes the fields the `Connection` header names (hop-by-hop too, framing fields excepted). */
function dropNamed(headers: string[], tokens: readonly string[]): void {
  const named = connectionNamed(tokens);
  if (named.size > 0) removeFields(headers, named);
}

/** The value of the list's Content-Length ("" when none). */
function lengthOf(headers: readonly string[]): string {
  for (let i = 0; i < headers.length; i += 2)
    if ((headers[i] as string).toLowerCase() === "content-length") return headers[i + 1] as string;
  return "";
}

function hasField(headers: readonly string[], lower: string): boolean {
  for (let i = 0; i < headers.length; i += 2) if ((headers[i] as string).toLowerCase() === lower) return true;
  return false;
}

const NO_SPANS: readonly number[] = [];
const CONTENT_LENGTH: ReadonlySet<string> = new Set(["content-length"]);
const PLAIN_TOKENS: ReadonlySet<string> = new Set(["keep-alive", "close"]);
