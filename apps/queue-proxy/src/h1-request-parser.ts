/**
 * An incremental HTTP/1.x request parser for the serving port (RFC 9112): request line, header fields,
 * then the body framed by Content-Length or Transfer-Encoding chunked. It stops at the end of each
 * request, so the bytes of a pipelined next request wait until the current one is answered.
 */
import { METHODS } from "node:http";
import { sameText } from "./h1-field-names.js";
import { H1MessageParser } from "./h1-message.js";
import { byteIndex, TCHAR } from "./h1-syntax.js";
import { BODY_CHUNKED, BODY_NONE } from "./ports.js";

/** What the parser reports while bytes are fed. */
export interface RequestEvents {
  /** A request head was read; its fields are on the parser. */
  head(): void;
  /** A piece of the (de-chunked) body. */
  body(chunk: Buffer): void;
  /** The request ended (at once after `head` when it has no body). */
  end(): void;
}

/** A request the serving port refuses: `status` and the text go to the client, then the connection closes. */
export class ClientProtocolError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ClientProtocolError";
  }
}

const NO_FIELDS: string[] = [];
/** Heads up to this size keep their strings for the connection's next request (`recent`). */
const RECENT_HEAD_BYTES = 2048;

/** The methods llhttp knows (it refuses any other); CONNECT is refused separately. */
const KNOWN_METHODS = new Set(METHODS);
/** Every prefix of a known method, for heads that arrive in pieces. */
const METHOD_PREFIXES = new Set(METHODS.flatMap((m) => [...m].map((_, i) => m.slice(0, i + 1))));

/** `scheme://authority[/path or ?query]`, with the authority characters llhttp accepts. */
const ABSOLUTE_FORM = /^[A-Za-z]+:\/\/[A-Za-z0-9\-._~!$&'()*+,;=:@[\]%]*(?:[/?][\x21-\x7e]*)?$/;

/** Largest request head accepted: Go's `DefaultMaxHeaderBytes`, which Knative's queue-proxy keeps. */
export const MAX_REQUEST_HEAD_BYTES = 1 << 20;

/** "HTTP" and "/1.1" as big-endian 32-bit words. */
const HTTP = 0x48545450;
const SLASH_1_DOT = 0x2f312e00;

/** 1 for `HTTP/1.1`, 0 for `HTTP/1.0` in `buf[from, to)`, -1 for anything else. */
function http1Minor(buf: Buffer, from: number, to: number): number {
  if (to - from !== 8 || buf.readUInt32BE(from) !== HTTP) return -1;
  const rest = buf.readUInt32BE(from + 4);
  if (rest === (SLASH_1_DOT | 0x31)) return 1;
  return rest === (SLASH_1_DOT | 0x30) ? 0 : -1;
}

/** The method in `buf[0, sp)` is `GET` (most requests: no string is made for it). */
function isGet(buf: Buffer, sp: number): boolean {
  return sp === 3 && buf[0] === 0x47 && buf[1] === 0x45 && buf[2] === 0x54;
}

/** Parses one request at a time; `start` arms it for the next. */
export class H1RequestParser extends H1MessageParser {
  method = "";
  target = "";
  /** HTTP/1.0 (else 1.1). */
  http10 = false;
  /** The fields as received, flat [name, value, ...]. */
  rawHeaders: string[] = [];
  /** The client lets the connection carry another request. */
  keepAlive = true;
  /** `Expect: 100-continue`: the client waits for `100 Continue` before it sends the body. */
  expectContinue = false;
  /** An upgrade request (`Connection: upgrade` and an `Upgrade` field): no body is read, the socket is handed on. */
  upgrade = false;
  /** The request has a body (chunked, or a Content-Length above 0). */
  hasBody = false;
  /** The body's framing as parsed: its Content-Length, `BODY_CHUNKED` or `BODY_NONE` (ports.ts). */
  bodyFraming = BODY_NONE;

  constructor(
    private readonly events: RequestEvents,
    maxHeadBytes = MAX_REQUEST_HEAD_BYTES,
  ) {
    super(maxHeadBytes);
    this.requestRules = true;
  }

  /** Expects the next request. */
  start(): void {
    this.begin();
  }

  /** Lets go of the last request's fields (an idle connection should not hold a large head). */
  release(): void {
    this.rawHeaders = NO_FIELDS;
  }

  /** A request head is being read. */
  get inHead(): boolean {
    return this.busy && this.method === "";
  }

  /** The current request's head has been read and its body may still be coming. */
  get inBody(): boolean {
    return this.busy && this.method !== "";
  }

  /**
   * Feeds bytes from the socket; returns how many were used (fewer than given only when the request
   * ended inside `chunk`). Throws ClientProtocolError.
   */
  feed(chunk: Buffer): number {
    return this.feedMessage(chunk);
  }

  protected error(message: string, status = 400): Error {
    return new ClientProtocolError(status, message === "head too large" ? "request head too large" : message);
  }

  protected onBody(chunk: Buffer): void {
    this.events.body(chunk);
  }

  protected onEnd(): void {
    this.events.end();
  }

  protected override begin(): void {
    super.begin();
    this.method = "";
  }

  /** Also refuses, as llhttp does at once, a first piece whose method cannot begin any known one. */
  protected override checkPartial(data: Buffer, before: number): void {
    super.checkPartial(data, before);
    if (before !== -1) return;
    const sp = data.indexOf(0x20);
    const method = data.toString("latin1", 0, sp < 0 ? Math.min(data.length, 12) : sp);
    if (!(sp < 0 ? METHOD_PREFIXES.has(method) : KNOWN_METHODS.has(method))) {
      throw this.error(`unknown method ${JSON.stringify(method)}`);
    }
  }

  protected parseHead(buf: Buffer, end: number): void {
    let eol = byteIndex(buf, 0x0d, 0, end);
    if (eol < 0) eol = end;
    // method SP request-target SP HTTP-version; a space beyond the line is as wrong as none at all.
    const sp1 = byteIndex(buf, 0x20, 0, eol);
    const sp2 = sp1 < 0 ? -1 : byteIndex(buf, 0x20, sp1 + 1, eol);
    // llhttp reads `method SP target` alone as HTTP/0.9, which has no fields: refused, not guessed at.
    if (sp1 > 0 && sp1 < eol && (sp2 < 0 || sp2 > eol)) throw this.error("HTTP/0.9 is not supported");
    if (sp1 <= 0 || sp2 < 0 || sp2 > eol || (eol < end && buf[eol + 1] !== 0x0a)) {
      throw this.badRequestLine(buf, eol);
    }
    // llhttp skips extra spaces after the method; refused here rather than read one way or another.
    if (sp2 === sp1 + 1) throw this.error("more than one space after the method is not supported");
    for (let i = 0; i < sp1; i++) if (TCHAR[buf[i] as number] !== 1) throw this.badRequestLine(buf, eol);
    // Visible ASCII only, as llhttp's URL parser takes (no controls, no obs-text).
    for (let i = sp1 + 1; i < sp2; i++) {
      const b = buf[i] as number;
      if (b <= 0x20 || b >= 0x7f) throw this.badRequestLine(buf, eol);
    }
    // The two versions served are compared as bytes; a string is made only to say what else came.
    const minor = http1Minor(buf, sp2 + 1, eol);
    if (minor < 0) {
      const version = buf.toString("latin1", sp2 + 1, eol);
      if (version.startsWith(" "))
        throw this.error("more than one space before the version is not supported");
      if (/^HTTP\/\d\.\d$/.test(version)) throw this.error(`HTTP version ${version} not supported`, 505);
      throw this.badRequestLine(buf, eol);
    }
    const method = isGet(buf, sp1) ? "GET" : buf.toString("latin1", 0, sp1);
    if (method === "CONNECT") throw this.error("CONNECT is not supported", 405);
    if (method !== "GET" && method !== "POST" && !KNOWN_METHODS.has(method)) {
      throw this.error(`unknown method ${JSON.stringify(method)}`);
    }
    this.http10 = minor === 0;
    this.target = sameText(buf, sp1 + 1, sp2, this.target)
      ? this.target
      : buf.toString("latin1", sp1 + 1, sp2);
    // Origin-form and `*` as llhttp reads them; absolute-form only in the shape its URL parser takes for sure.
    const first = buf[sp1 + 1];
    if (first !== 0x2f && first !== 0x2a && !ABSOLUTE_FORM.test(this.target)) {
      throw this.error(`request target ${JSON.stringify(this.target.slice(0, 40))} is not supported`);
    }
    const fields: string[] = [];
    this.parseFields(buf, eol + 2, end, fields, false);
    this.rawHeaders = fields;
    // Only a small head is kept for the next one to reuse: an idle connection must not hold a large one.
    this.recent = end <= RECENT_HEAD_BYTES ? fields : NO_FIELDS;
    if (this.hosts === 0 && !this.http10) throw this.error("missing required Host header");
    if (this.hosts > 1) throw this.error("more than one Host header is not supported");
    if (this.expect !== "" && this.expect !== "100-continue") {
      throw this.error(`unsupported Expect ${JSON.stringify(this.expect)}`, 417);
    }
    const tokens = this.connectionTokens();
    this.keepAlive = this.http10 ? tokens.includes("keep-alive") : !tokens.includes("close");
    this.upgrade = this.upgradeField && tokens.includes("upgrade");
    // Framing (RFC 9112 6.3), the same for upgrade requests: their body comes before any switch.
    // Both fields at once is how requests are smuggled: refused, as llhttp does.
    if (this.transferEncoding && this.contentLength >= 0) {
      throw this.error("both Transfer-Encoding and Content-Length");
    }
    if (this.transferEncoding && !this.onlyChunked) throw this.error("unsupported transfer encoding", 501);
    this.bodyFraming = this.chunked ? BODY_CHUNKED : this.contentLength >= 0 ? this.contentLength : BODY_NONE;
    this.hasBody = this.chunked || this.contentLength > 0;
    this.expectContinue = this.hasBody && this.expect === "100-continue" && !this.http10;
    this.method = method;
    this.events.head();
    if (this.chunked) this.frame("chunked");
    else this.frame("length", this.contentLength);
  }

  private badRequestLine(buf: Buffer, eol: number): Error {
    return this.error(
      `malformed request line ${JSON.stringify(buf.toString("latin1", 0, Math.min(eol, 60)))}`,
    );
  }
}
