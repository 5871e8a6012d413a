/**
 * One request on an HTTP/1.x connection and its response: the head is written together with the first
 * body bytes, framed by the app's Content-Length, chunked, or the end of the connection (HTTP/1.0).
 */
import { STATUS_CODES } from "node:http";
import type { Readable } from "node:stream";
import type { H1Connection } from "./h1-connection.js";
import type { Downstream } from "./ports.js";
import type { ResponseFields, ResponseHeaders } from "./response-fields.js";
import { holdForTurn } from "./turn-writes.js";

/** Bodies of known length up to this size share the head's buffer and write. */
const BODY_ROOM = 8 * 1024;
/** The end of a chunked body (shared: sockets never change what they are given). */
const LAST_CHUNK = Buffer.from("0\r\n\r\n", "latin1");

// Response framings.
const NONE = 0;
const LENGTH = 1;
const CHUNKED = 2;
const CLOSE = 3;

/** One request on an `H1Connection` and its response. */
export class H1Reply implements Downstream {
  body: Readable | null = null;
  onClose: (() => void) | null = null;
  onDrain: (() => void) | null = null;
  headersSent = false;
  responseLength = "";
  /** The response was written in full, cut off, or the client went away. */
  finished = false;
  /** No `100 Continue` is owed: it was sent, or the client did not ask for one. */
  continued = true;
  readonly http2 = false;
  /** The response head not yet written, with room for a small body behind its first `headLength` bytes. */
  private head: Buffer | null = null;
  private headLength = 0;
  private framing = NONE;

  constructor(
    private readonly conn: H1Connection,
    readonly method: string,
    readonly target: string,
    readonly bodyFraming: number,
    private readonly http10: boolean,
    /** The connection carries another request after this one. */
    public keepAlive: boolean,
  ) {}

  get protocol(): string {
    return this.http10 ? "HTTP/1.0" : "HTTP/1.1";
  }

  get remoteAddress(): string {
    return this.conn.socket.remoteAddress ?? "";
  }

  get localAddress(): string {
    return this.conn.socket.localAddress ?? "";
  }

  get closed(): boolean {
    return this.finished || this.conn.closed;
  }

  writeHead(status: number, headers: ResponseHeaders): void {
    if (this.headersSent) return;
    // Fields that are only a list (rewritten or own answers) are written as a list.
    if (!Array.isArray(headers) && headers.rawLength < 0) headers = headers.list;
    this.headersSent = true;
    let hasDate = false;
    let fields = "";
    let raw: ResponseFields | null = null;
    if (Array.isArray(headers)) {
      for (let i = 0; i < headers.length; i += 2) {
        const name = headers[i] as string;
        const value = headers[i + 1] as string;
        const c = name.charCodeAt(0) | 0x20;
        if (c === 0x63 && name.length === 14 && name.toLowerCase() === "content-length")
          this.responseLength = value;
        else if (c === 0x64 && name.length === 4 && name.toLowerCase() === "date") hasDate = true;
        fields += `${name}: ${value}\r\n`;
      }
    } else {
      // The app's field lines go out as they came; only what the proxy adds is made here.
      raw = headers;
      this.responseLength = headers.contentLength;
      hasDate = headers.hasDate;
    }
    let tail = "";
    if (this.method === "HEAD" || status === 204 || status === 304 || status < 200) this.framing = NONE;
    else if (this.responseLength !== "") this.framing = LENGTH;
    else if (!this.http10) {
      this.framing = CHUNKED;
      tail += "transfer-encoding: chunked\r\n";
    } else {
      this.framing = CLOSE;
      this.keepAlive = false;
    }
    // Shutting down, or the client still waits for a 100 Continue and may never send its body: close after.
    if (this.conn.server.closing || !this.continued) this.keepAlive = false;
    if (!this.keepAlive) {
      if (!this.http10) tail += "connection: close\r\n";
    } else if (this.http10) tail += "connection: keep-alive\r\n";
    if (!hasDate) tail += `date: ${httpDate()}\r\n`;
    tail += "\r\n";
    const line = statusLine(status);
    // The head is copied out now (raw fields are a view of a shared read buffer). A small body of known
    // length gets room behind it, so head and body leave in one write without another copy.
    const headLength = line.length + (raw === null ? fields.length : raw.rawLength) + tail.length;
    const length = this.framing === LENGTH ? Number(this.responseLength) : 0;
    const room = length <= BODY_ROOM ? length : 0;
    const head = Buffer.allocUnsafe(headLength + room);
    let at = putLatin1(head, line, 0);
    at = raw === null ? at + head.write(fields, at, "latin1") : raw.copyTo(head, at);
    putLatin1(head, tail, at);
    this.head = head;
    this.headLength = headLength;
  }

  write(chunk: Buffer): boolean {
    if (this.closed) return true;
    if (!this.headersSent) this.writeHead(200, []);
    if (this.framing === NONE || chunk.length === 0) return true;
    const head = this.head;
    this.head = null;
    if (head !== null && this.framing === LENGTH && head.length - this.headLength >= chunk.length) {
      chunk.copy(head, this.headLength);
      // The room is the whole body's size: a body that came in one piece fills it exactly.
      const whole = this.headLength + chunk.length;
      return this.conn.socket.write(whole === head.length ? head : head.subarray(0, whole));
    }
    const chunked = this.framing === CHUNKED;
    // A chunked body's pieces wait for the end of the turn: an app's answer that came in one read (its
    // pieces and the last chunk) leaves in one write, so no proxy in front reads a head and body without
    // their end, and loses the response if it dies before the next read.
    if (chunked) holdForTurn(this.conn.socket);
    return this.conn.send(head === null ? null : head.subarray(0, this.headLength), chunk, chunked);
  }

  end(body?: string | Buffer): void {
    if (this.closed) return;
    if (!this.headersSent) this.writeHead(200, []);
    if (body !== undefined && body.length > 0)
      this.write(typeof body === "string" ? Buffer.from(body) : body);
    const head = this.head === null ? null : this.head.subarray(0, this.headLength);
    this.head = null;
    const last = this.framing === CHUNKED ? LAST_CHUNK : null;
    if (head !== null) this.conn.socket.write(last === null ? head : Buffer.concat([head, last]));
    else if (last !== null) this.conn.socket.write(last);
    this.finished = true;
    this.conn.replyDone(this);
  }

  /** The client side is gone (closed, or its request turned out broken): ends the exchange's view of it. */
  abandon(): void {
    if (this.finished) return;
    this.finished = true;
    this.body?.destroy();
    this.onClose?.();
  }

  destroy(): void {
    if (this.closed) return;
    this.finished = true;
    this.conn.socket.destroy();
  }
}

/** Strings up to this length are copied by a loop: less than `Buffer.write`'s call into C++ costs. */
const SHORT_TEXT = 64;

/** Writes latin1 `text` into `buf` at `at`; returns the offset after it. */
function putLatin1(buf: Buffer, text: string, at: number): number {
  if (text.length > SHORT_TEXT) return at + buf.write(text, at, "latin1");
  for (let i = 0; i < text.length; i++) buf[at + i] = text.charCodeAt(i);
  return at + text.length;
}

const statusLines: string[] = [];

/** `HTTP/1.1 <status> <reason>\r\n`, made once per status. */
function statusLine(status: number): string {
  let line = statusLines[status];
  if (line === undefined) {
    line = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Unknown"}\r\n`;
    if (status >= 100 && status < 1000) statusLines[status] = line;
  }
  return line;
}

let dateSecond = -1;
let dateText = "";

/** The `Date` field for responses whose app gave none, made once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/** The answer to a request the server refuses itself: `status reason: message` as plain text, then close. */
export function refusal(status: number, message: string): string {
  const reason = STATUS_CODES[status] ?? "Unknown";
  return closingAnswer(
    status,
    message === "" ? `${status} ${reason}\n` : `${status} ${reason}: ${message}\n`,
  );
}

/** A whole plain-text answer that closes the connection, for answers written straight to a socket. */
export function closingAnswer(status: number, body: string): string {
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Unknown"}\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}
