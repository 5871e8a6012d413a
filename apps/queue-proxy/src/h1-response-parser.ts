/**
 * An incremental HTTP/1.x response parser for the upstream connection (RFC 9112): status line, header
 * fields, then the body framed by Transfer-Encoding chunked, Content-Length, or the end of the connection.
 * It hands the head over as the flat [name, value, ...] list `writeHead` takes, already without hop-by-hop
 * fields, so a proxied response costs one pass over its head and no objects beyond those strings.
 */
import { HOP_BY_HOP_HEADERS } from "@thaw/protocol";

/** What the parser reports while bytes are fed. */
export interface ResponseEvents {
  /** The final (non-1xx) head; `headers` excludes hop-by-hop fields. */
  head(status: number, headers: string[]): void;
  /** A piece of the (de-chunked) body. */
  body(chunk: Buffer): void;
  /** The response ended; `reusable` says whether the connection may carry another request. */
  end(reusable: boolean): void;
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

/** Response fields never copied back to the client (RFC 9110 7.6.1). */
const HOP_BY_HOP = new Set(HOP_BY_HOP_HEADERS);

const CRLF_CRLF = Buffer.from("\r\n\r\n");

// Parser states.
const HEAD = 0;
const LENGTH = 1;
const CHUNK_SIZE = 2;
const CHUNK_DATA = 3;
const CHUNK_END = 4;
const TRAILERS = 5;
const UNTIL_CLOSE = 6;
const DONE = 7;

/** Parses one response at a time; `start` arms it for the next request's response. */
export class H1ResponseParser {
  private state: number = DONE;
  private pending: Buffer | null = null;
  private remaining = 0;
  private line = "";
  private headRequest = false;
  private keepAlive = true;
  /** `Keep-Alive: timeout=N` of the last response, in ms (0 = none given). */
  keepAliveHintMs = 0;
  /** Some byte of the current response arrived. */
  started = false;

  constructor(private readonly events: ResponseEvents) {}

  /** Expects the response to a request; `head` = the request was HEAD (no body follows). */
  start(headRequest: boolean): void {
    this.state = HEAD;
    this.pending = null;
    this.headRequest = headRequest;
    this.started = false;
    this.keepAliveHintMs = 0;
  }

  /** Whether a response is expected or in progress. */
  get busy(): boolean {
    return this.state !== DONE;
  }

  /** Feeds bytes from the socket. Throws UpstreamProtocolError; bytes beyond the response also throw. */
  feed(chunk: Buffer): void {
    if (chunk.length > 0) this.started = true;
    let at = 0;
    while (at < chunk.length) {
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
          this.events.body(at === 0 ? chunk : chunk.subarray(at));
          at = chunk.length;
          break;
        case DONE:
          throw new UpstreamProtocolError("bytes after the end of the response");
      }
    }
  }

  /** The connection ended: completes a close-delimited body, otherwise the response was cut short. */
  eof(): void {
    if (this.state === UNTIL_CLOSE) {
      this.state = DONE;
      this.events.end(false);
      return;
    }
    if (this.state !== DONE) throw new UpstreamProtocolError("connection closed before the response ended");
  }

  /** Hands on up to `remaining` body bytes of `chunk` from `at`; returns where reading goes on. */
  private deliver(chunk: Buffer, at: number): number {
    const n = Math.min(this.remaining, chunk.length - at);
    this.remaining -= n;
    this.events.body(at === 0 && n === chunk.length ? chunk : chunk.subarray(at, at + n));
    return at + n;
  }

  private finish(): void {
    this.state = DONE;
    this.events.end(this.keepAlive);
  }

  private readHead(chunk: Buffer, at: number): number {
    let data = at === 0 ? chunk : chunk.subarray(at);
    let from = 0;
    if (this.pending !== null) {
      from = Math.max(0, this.pending.length - 3);
      data = Buffer.concat([this.pending, data]);
    }
    const end = data.indexOf(CRLF_CRLF, from);
    if (end < 0) {
      if (data.length > MAX_HEAD_BYTES) throw new UpstreamProtocolError("response head too large");
      this.pending = data;
      return chunk.length;
    }
    if (end > MAX_HEAD_BYTES) throw new UpstreamProtocolError("response head too large");
    // Bytes of `chunk` consumed: everything up to the blank line, minus what was pending before.
    const used = end + 4 - (this.pending?.length ?? 0);
    this.pending = null;
    this.parseHead(data, end);
    return at + used;
  }

  /**
   * Reads the head in `buf[0, end)` byte by byte: strings are made only for the names and values handed on,
   * and names and values are checked here so that `writeHead` never meets a character it would refuse.
   */
  private parseHead(buf: Buffer, end: number): void {
    let eol = buf.indexOf(0x0d);
    if (eol < 0 || eol > end) eol = end;
    // HTTP/1.x SP 3DIGIT [SP reason]
    if (
      eol < 12 ||
      buf.toString("latin1", 0, 7) !== "HTTP/1." ||
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
    const http10 = buf[7] === 0x30;
    const headers: string[] = [];
    let length = -1;
    let chunked = false;
    let otherCoding = false;
    let connection = "";
    let keepAliveHint = "";
    for (let pos = eol + 2; pos < end; ) {
      let lineEnd = buf.indexOf(0x0d, pos);
      if (lineEnd < 0 || lineEnd > end) lineEnd = end;
      const colon = buf.indexOf(0x3a, pos);
      if (colon <= pos || colon >= lineEnd || (lineEnd < end && buf[lineEnd + 1] !== 0x0a)) {
        throw badLine(buf, pos, lineEnd);
      }
      for (let i = pos; i < colon; i++) if (TCHAR[buf[i] as number] !== 1) throw badLine(buf, pos, lineEnd);
      let vs = colon + 1;
      let ve = lineEnd;
      while (vs < ve && (buf[vs] === 0x20 || buf[vs] === 0x09)) vs++;
      while (ve > vs && (buf[ve - 1] === 0x20 || buf[ve - 1] === 0x09)) ve--;
      for (let i = vs; i < ve; i++) if (VCHAR[buf[i] as number] !== 1) throw badLine(buf, pos, lineEnd);
      const name = buf.toString("latin1", pos, colon);
      const value = buf.toString("latin1", vs, ve);
      pos = lineEnd + 2;
      const c = name.charCodeAt(0) | 0x20;
      // Only names starting with c, k, p, t or u can be hop-by-hop or framing fields.
      if (c === 0x63 || c === 0x6b || c === 0x70 || c === 0x74 || c === 0x75) {
        const lower = name.toLowerCase();
        if (lower === "content-length") {
          const n = ve - vs >= 1 && ve - vs <= 15 && allDigits(buf, vs, ve) ? Number(value) : -1;
          if (n < 0 || (length >= 0 && length !== n)) {
            throw new UpstreamProtocolError(`bad content-length ${JSON.stringify(value)}`);
          }
          length = n;
        } else if (lower === "transfer-encoding") {
          const last = value
            .slice(value.lastIndexOf(",") + 1)
            .trim()
            .toLowerCase();
          if (last === "chunked") chunked = true;
          else otherCoding = true;
        } else if (lower === "connection") {
          connection = connection === "" ? value.toLowerCase() : `${connection},${value.toLowerCase()}`;
        } else if (lower === "keep-alive") {
          keepAliveHint = value;
        }
        if (HOP_BY_HOP.has(lower)) continue;
      }
      headers.push(name, value);
    }
    // 1xx (other than 101, which only answers an upgrade) are interim: the final head follows.
    if (status < 200) {
      if (status === 101) throw new UpstreamProtocolError("101 Switching Protocols to a plain request");
      this.state = HEAD;
      return;
    }
    const tokens = connection === "" ? [] : connection.split(",").map((t) => t.trim());
    this.keepAlive = http10 ? tokens.includes("keep-alive") : !tokens.includes("close");
    this.keepAliveHintMs = parseKeepAliveTimeout(keepAliveHint);
    if (tokens.length > 0) dropNamed(headers, tokens);
    this.events.head(status, headers);
    if (this.headRequest || status === 204 || status === 304) this.finish();
    else if (chunked && !otherCoding) this.state = CHUNK_SIZE;
    else if (otherCoding) {
      // A body coding we cannot frame: it runs to the end of the connection (RFC 9112 6.3).
      this.keepAlive = false;
      this.state = UNTIL_CLOSE;
    } else if (length > 0) {
      this.remaining = length;
      this.state = LENGTH;
    } else if (length === 0) this.finish();
    else {
      this.keepAlive = false;
      this.state = UNTIL_CLOSE;
    }
  }

  /** Reads one CRLF-terminated line of the chunked framing; lines are short, so a string carries them. */
  private readLine(chunk: Buffer, at: number): number {
    const lf = chunk.indexOf(0x0a, at);
    const stop = lf < 0 ? chunk.length : lf;
    this.line += chunk.toString("latin1", at, stop);
    if (this.line.length > 4096) throw new UpstreamProtocolError("chunk framing line too long");
    if (lf < 0) return chunk.length;
    const line = this.line.endsWith("\r") ? this.line.slice(0, -1) : this.line;
    this.line = "";
    this.onLine(line);
    return lf + 1;
  }

  private onLine(line: string): void {
    if (this.state === CHUNK_END) {
      if (line !== "") throw new UpstreamProtocolError("chunk data longer than its size");
      this.state = CHUNK_SIZE;
      return;
    }
    if (this.state === TRAILERS) {
      // Trailer fields are dropped, as the proxy forwards none; a blank line ends the message.
      if (line === "") this.finish();
      return;
    }
    const semi = line.indexOf(";");
    const hex = (semi < 0 ? line : line.slice(0, semi)).trim();
    if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) {
      throw new UpstreamProtocolError(`bad chunk size ${JSON.stringify(hex.slice(0, 20))}`);
    }
    const size = Number.parseInt(hex, 16);
    if (size === 0) this.state = TRAILERS;
    else {
      this.remaining = size;
      this.state = CHUNK_DATA;
    }
  }
}

function isDigit(b: number | undefined): boolean {
  return b !== undefined && b >= 0x30 && b <= 0x39;
}

function allDigits(buf: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isDigit(buf[i])) return false;
  return true;
}

function badLine(buf: Buffer, from: number, to: number): UpstreamProtocolError {
  return new UpstreamProtocolError(
    `bad header line ${JSON.stringify(buf.toString("latin1", from, Math.min(to, from + 40)))}`,
  );
}

/** RFC 9110 token characters (field names): 1 = allowed. */
const TCHAR = new Uint8Array(256);
for (let b = 0x21; b < 0x7f; b++) if (!'"(),/:;<=>?@[\\]{}'.includes(String.fromCharCode(b))) TCHAR[b] = 1;
/** Field value characters Node's `writeHead` accepts: HTAB, SP to `~`, and obs-text. */
const VCHAR = new Uint8Array(256);
VCHAR[0x09] = 1;
for (let b = 0x20; b < 0x7f; b++) VCHAR[b] = 1;
for (let b = 0x80; b < 0x100; b++) VCHAR[b] = 1;

/** `timeout=5, max=100` -> 5000; 0 when absent or unreadable. */
export function parseKeepAliveTimeout(value: string): number {
  if (value === "") return 0;
  const m = /(?:^|[\s,])timeout\s*=\s*(\d+)/i.exec(value);
  return m ? Number(m[1]) * 1000 : 0;
}

/** Removes the fields the `Connection` header names (they are hop-by-hop too). */
function dropNamed(headers: string[], tokens: string[]): void {
  const named = tokens.filter((t) => t !== "close" && t !== "keep-alive" && t !== "");
  if (named.length === 0) return;
  for (let i = headers.length - 2; i >= 0; i -= 2) {
    if (named.includes((headers[i] as string).toLowerCase())) headers.splice(i, 2);
  }
}
